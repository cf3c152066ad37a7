#!/usr/bin/env python3
"""Write Tests/Fixtures/CoreDataWild/MANIFEST.md from the fixtures and their ledgers.

The folder holds real Core Data models copied byte for byte from public GitHub
repositories (issue #16). Three ledgers sit beside them and are the source of truth:

  SOURCES.tsv   one row per copied file: local path, repository, path in the
                repository, commit it was read at, length in characters
  LICENCES.tsv  one row per repository: licence and where it was read
  NOTES.tsv     what was left out, and why
  GPL.tsv       models under copyleft licences that are listed, not copied

This script checks every fixture against SOURCES.tsv (exists, same length, no file
without a row), reads every model version to list its notable features, and writes
MANIFEST.md. With `--survey FILE` (the JSON written by scripts/coredata-survey.py
--json) it also writes the survey figures and a per-bundle status column; without it,
the survey section already in MANIFEST.md is kept as it is, so rerunning the script
after adding fixtures does not drop recorded baselines. The baseline measured before
issue #16's fixes (between the `survey:baseline` markers) is always kept as it is, below
the figures.

    python3 scripts/coredata-wild-manifest.py [--survey survey.json --label "..."]
    python3 scripts/coredata-wild-manifest.py --check   # verify only, write nothing
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import importlib.util
import io
import json
import os
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
WILD = REPO / "Tests" / "Fixtures" / "CoreDataWild"
LEDGERS = {"SOURCES.tsv", "LICENCES.tsv", "NOTES.tsv", "GPL.tsv", "MANIFEST.md"}
BEGIN, END = "<!-- survey:begin -->", "<!-- survey:end -->"
BASELINE_BEGIN, BASELINE_END = "<!-- survey:baseline:begin -->", "<!-- survey:baseline:end -->"

SWIFT_KEYWORDS = {
    "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init",
    "inout", "internal", "let", "open", "operator", "private", "protocol", "public", "rethrows", "static",
    "struct", "subscript", "typealias", "var", "break", "case", "continue", "default", "defer", "do",
    "else", "fallthrough", "for", "guard", "if", "in", "repeat", "return", "switch", "where", "while",
    "as", "catch", "false", "is", "nil", "super", "self", "Self", "throw", "throws", "true", "try", "Type",
    "Any", "Protocol",
}
# NSManagedObject / NSObject members a property must not shadow
RESERVED = {"description", "hash", "entity", "managedObjectContext", "objectID", "isDeleted", "isInserted",
            "isUpdated", "isFault", "hasChanges", "changedValues", "class", "superclass", "debugDescription"}


def read_tsv(path: Path) -> list[list[str]]:
    if not path.exists():
        return []
    rows = [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return rows[1:] if rows and rows[0][0] in ("local path", "repo", "item") else rows


def versions_of(unit: Path) -> list[Path]:
    if unit.suffix == ".xcdatamodel":
        return [unit]
    return sorted((v for v in unit.glob("*.xcdatamodel") if (v / "contents").is_file()), key=lambda p: p.stem)


def current_version(unit: Path) -> str | None:
    f = unit / ".xccurrentversion"
    if not f.is_file():
        return None
    m = re.search(r"<key>_XCCurrentVersionName</key>\s*<string>([^<]*)</string>", f.read_text(encoding="utf-8"))
    return m.group(1).strip() if m else "?"


# attribute flags (attr="YES") and the feature each one stands for
ATTRIBUTE_FLAGS = {
    "transient": "transient",
    "derived": "derived attribute",
    "allowsExternalBinaryDataStorage": "external binary storage",
    "preserveAfterDeletion": "preserveAfterDeletion",
    "allowsCloudEncryption": "allowsCloudEncryption",
    "spotlightIndexingEnabled": "spotlight indexing",
    "storedInTruthFile": "storedInTruthFile",
    "indexed": "indexed attribute",
}


def yes(el: ET.Element, attr: str) -> bool:
    return el.get(attr) == "YES"


def name_features(name: str, kind: str) -> set[str]:
    """Names generated code cannot take as they are."""
    f = set()
    if name[:1].isupper():
        f.add(f"uppercase {kind} name")
    if name in SWIFT_KEYWORDS:
        f.add("Swift keyword as name")
    if name in RESERVED:
        f.add("NSManagedObject member as name")
    return f


def features_of(contents: Path) -> set[str]:
    """Tags for what this model version uses; the names are the ones in the feature table."""
    f: set[str] = set()
    try:
        root = ET.parse(contents).getroot()
    except ET.ParseError as e:
        return {f"XML error: {e}"}
    if yes(root, "usedWithCloudKit"):
        f.add("usedWithCloudKit")
    if yes(root, "usedWithSwiftData"):
        f.add("usedWithSwiftData")
    if root.get("userDefinedModelVersionIdentifier"):
        f.add("version identifier")
    if root.find("elements") is None:
        f.add("no <elements> (Xcode 13+)")
    elif len(root.find("elements")) == 0:
        f.add("empty <elements/>")
    entities = root.findall("entity")
    if not entities:
        f.add("no entities")
    names = {e.get("name") for e in entities}
    for e in entities:
        if e.get("parentEntity"):
            f.add("inheritance")
            parent = next((p for p in entities if p.get("name") == e.get("parentEntity")), None)
            if parent is not None and parent.get("parentEntity"):
                f.add("inheritance depth > 2")
        if yes(e, "isAbstract"):
            f.add("abstract entity")
        if e.get("elementID"):
            f.add("entity renaming identifier")
        if e.get("versionHashModifier"):
            f.add("versionHashModifier")
        if e.get("syncable") is None:
            f.add("entity without syncable")
        if e.get("codeGenerationType"):
            f.add(f"codegen {e.get('codeGenerationType')}")
        if not e.get("representedClassName"):
            f.add("entity without class name")
        elif e.get("representedClassName", "").startswith(".") or "." in e.get("representedClassName", "")[1:]:
            f.add("module-qualified class name")
        if e.find("uniquenessConstraints") is not None:
            f.add("uniqueness constraints")
        if e.find("fetchIndex") is not None:
            f.add("fetch indexes")
            rels = {r.get("name"): r for r in e.findall("relationship")}
            for el in e.iter("fetchIndexElement"):
                r = rels.get(el.get("property"))
                if r is not None and yes(r, "toMany"):
                    f.add("fetch index on to-many")
                if el.get("type") and el.get("type") != "Binary":
                    f.add(f"fetch index type {el.get('type')}")
        if e.find("compoundIndexes") is not None:
            f.add("compound indexes (old style)")
        ui = e.find("userInfo")
        if ui is not None:
            f.add("userInfo" if len(ui) else "empty <userInfo/>")
        for a in e.findall("attribute"):
            t = a.get("attributeType")
            n = a.get("name", "")
            if t is None:
                f.add("attribute without attributeType")
            elif t == "Composite":
                f.add("composite attribute")
            elif t in ("Transformable", "Decimal", "URI", "UUID", "Object ID", "Binary", "Undefined"):
                f.add(t)
            f.update(tag for flag, tag in ATTRIBUTE_FLAGS.items() if yes(a, flag))
            if a.get("elementID"):
                f.add("attribute renaming identifier")
            if a.get("versionHashModifier"):
                f.add("versionHashModifier")
            if any(a.get(k) for k in ("minValueString", "maxValueString", "regularExpressionString",
                                      "minDateTimeInterval", "maxDateTimeInterval")):
                f.add("validation rules")
            if a.get("defaultDateTimeInterval"):
                f.add("date default")
            if t == "Transformable":
                if a.get("valueTransformerName") == "":
                    f.add("Transformable with empty valueTransformerName")
                elif a.get("valueTransformerName"):
                    f.add("value transformer")
                if a.get("customClassName"):
                    f.add("Transformable customClassName")
            if t and t.startswith("Integer") and a.get("defaultValueString") in ("YES", "NO"):
                f.add("integer default YES/NO")
            if a.find("userInfo") is not None:
                f.add("userInfo" if len(a.find("userInfo")) else "empty <userInfo/>")
            f |= name_features(n, "property")
        for r in e.findall("relationship"):
            n = r.get("name", "")
            if yes(r, "ordered"):
                f.add("ordered to-many")
            if yes(r, "toMany") and r.get("maxCount") not in (None, "0"):
                f.add("to-many with maxCount")
            if r.get("deletionRule") in ("Deny", "No Action"):
                f.add(f"delete rule {r.get('deletionRule')}")
            if not r.get("inverseName"):
                f.add("relationship without inverse")
            if r.get("destinationEntity") == e.get("name"):
                f.add("self-referencing relationship")
            if r.get("elementID"):
                f.add("relationship renaming identifier")
            if r.get("destinationEntity") and r.get("destinationEntity") not in names:
                f.add("destination entity missing")
            f |= name_features(n, "relationship")
            if r.find("userInfo") is not None:
                f.add("userInfo")
        if e.find("fetchedProperty") is not None:
            f.add("fetched properties")
    if root.find("fetchRequest") is not None:
        f.add("fetch request templates")
    if root.find("configuration") is not None:
        f.add("configurations")
    return f


def survey_module():
    spec = importlib.util.spec_from_file_location("coredata_survey", REPO / "scripts" / "coredata-survey.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["coredata_survey"] = mod  # dataclasses look their module up here
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return mod


def folders_of(data: dict) -> dict[str, dict]:
    """Per folder `{units, stores}` (a survey written before stores were surveyed is a list
    of units per folder)."""
    return {f: (v if isinstance(v, dict) else {"units": v, "stores": []}) for f, v in data.items()}


def render_survey(data: dict, label: str) -> str:
    mod = survey_module()
    out = io.StringIO()
    out.write(f"{label}\n")
    for folder, surveyed in folders_of(data).items():
        results = [mod.UnitResult(**{**u, "versions": [mod.VersionResult(**v) for v in u["versions"]]}) for u in surveyed["units"]]
        stores = [mod.StoreResult(**s) for s in surveyed["stores"]]
        buf = io.StringIO()
        shown = folder.replace(str(REPO.parent), "/work")
        with contextlib.redirect_stdout(buf):
            mod.print_table(shown, results, 2)
            mod.print_stores(shown, stores)
        out.write(buf.getvalue().replace("\n## ", "\n### "))
    return out.getvalue()


def survey_status(data: dict | None) -> dict[str, str]:
    """Per fixture unit (path relative to CoreDataWild): a short status from the survey."""
    status: dict[str, str] = {}
    if not data:
        return status
    for folder, surveyed in folders_of(data).items():
        if not folder.rstrip("/").endswith("CoreDataWild"):
            continue
        for u in surveyed["units"]:
            rel = u["path"].split("CoreDataWild/", 1)[-1]
            vs = u["versions"]
            ok = sum(v["imported"] for v in vs)
            codes = sorted({e["code"] for v in vs for e in v["errors"]})
            s = f"{ok}/{len(vs)} import"
            if codes:
                s += " (" + ", ".join(codes) + ")"
            if not u["parsed"]:
                s += f"; no code: {u['problem']}"
            elif u.get("typechecked") is True:
                s += "; code parses and type-checks"
            elif u.get("typechecked") is False:
                s += f"; code parses, type check fails: {u.get('typecheck_error')}"
            else:
                s += "; code parses"
            status[rel] = s
    return status


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dir", type=Path, default=WILD)
    ap.add_argument("--survey", type=Path, help="JSON written by scripts/coredata-survey.py --json")
    ap.add_argument("--label", default="", help="one line saying when and how the survey was measured")
    ap.add_argument("--check", action="store_true", help="verify the ledgers against the files; write nothing")
    args = ap.parse_args()
    wild: Path = args.dir.resolve()

    sources = read_tsv(wild / "SOURCES.tsv")
    licences = {r[0]: r for r in read_tsv(wild / "LICENCES.tsv")}
    notes = read_tsv(wild / "NOTES.tsv")
    gpl = read_tsv(wild / "GPL.tsv")

    # 1. ledger against files
    problems = []
    by_local = {}
    for r in sources:
        local, repo, src, commit, n = r[:5]
        by_local[local] = r
        p = wild / local
        if not p.is_file():
            problems.append(f"missing file: {local}")
            continue
        text = p.read_text(encoding="utf-8")
        if len(text) != int(n):
            problems.append(f"length {len(text)} != {n}: {local}")
        if local.split("/", 1)[1] != src or local.split("/", 1)[0] != repo.replace("/", "__", 1):
            problems.append(f"local path does not mirror the source path: {local}")
        if repo not in licences:
            problems.append(f"no licence row for {repo}")
    for root, _dirs, files in os.walk(wild):
        for name in files:
            rel = str((Path(root) / name).relative_to(wild))
            if rel in LEDGERS:
                continue
            if rel not in by_local:
                problems.append(f"file without a SOURCES.tsv row: {rel}")
    if problems:
        print("\n".join(problems), file=sys.stderr)
        return 1
    if args.check:
        print(f"ok: {len(sources)} files match SOURCES.tsv")
        return 0

    # 2. units and features
    units = survey_module().find_units(wild)
    survey = json.loads(args.survey.read_text()) if args.survey else None
    old = (wild / "MANIFEST.md").read_text(encoding="utf-8") if (wild / "MANIFEST.md").exists() else ""
    # without a new survey, keep the per-unit status the last one wrote
    status = survey_status(survey) if survey else {
        m.group(1): m.group(2) for m in re.finditer(r"^\| `([^`]+)` \|.*\| ([^|]*) \|$", old, re.M)}
    rows = []
    feature_versions: dict[str, int] = collections.Counter()
    feature_units: dict[str, list[str]] = collections.defaultdict(list)
    repo_units: dict[str, list[str]] = collections.defaultdict(list)
    repo_versions: dict[str, int] = collections.Counter()
    total_versions = 0
    multi = 0
    for u in units:
        rel = str(u.relative_to(wild))
        repo_dir = rel.split("/", 1)[0]
        repo = next((r[1] for r in sources if r[0].split("/", 1)[0] == repo_dir), repo_dir.replace("__", "/", 1))
        vs = versions_of(u)
        total_versions += len(vs)
        multi += len(vs) > 1
        repo_units[repo].append(rel)
        repo_versions[repo] += len(vs)
        cur = current_version(u) if u.suffix == ".xcdatamodeld" else None
        feats: set[str] = set()
        for v in vs:
            fv = features_of(v / "contents")
            feats |= fv
            for x in fv:
                feature_versions[x] += 1
        for x in feats:
            feature_units[x].append(rel)
        if len(vs) > 1:
            feats.add(f"{len(vs)} versions")
        if u.suffix == ".xcdatamodeld" and cur is None:
            feats.add("no .xccurrentversion")
        elif cur is not None and cur not in {v.name for v in vs}:
            feats.add(f".xccurrentversion names a missing version ({cur})")
        if cur is not None and "\t<key>_XCCurrentVersionName</key>" not in (u / ".xccurrentversion").read_text(encoding="utf-8"):
            feats.add("hand-written .xccurrentversion")
        commits = sorted({by_local[str(f.relative_to(wild))][3][:10]
                          for v in vs for f in [v / "contents"]}
                         | ({by_local[str((u / ".xccurrentversion").relative_to(wild))][3][:10]}
                            if (u / ".xccurrentversion").is_file() else set()))
        names = ", ".join((v.name.removesuffix(".xcdatamodel") + ("*" if v.name == cur else "")) for v in vs)
        rows.append((rel, names, " ".join(f"`{c}`" for c in commits), ", ".join(sorted(feats)), status.get(rel, "")))

    files = [Path(r) / n for r, _d, fs in os.walk(wild) for n in fs]
    fixture_files = [p for p in files if p.name not in LEDGERS]
    size = sum(p.stat().st_size for p in fixture_files)
    all_size = sum(p.stat().st_size for p in files if p.name != "MANIFEST.md")
    xccv = sum(1 for p in fixture_files if p.name == ".xccurrentversion")

    if BASELINE_BEGIN in old and BASELINE_END in old:
        baseline = old.split(BASELINE_BEGIN, 1)[1].split(BASELINE_END, 1)[0].strip("\n") + "\n"
        old = old.split(BASELINE_BEGIN, 1)[0] + old.split(BASELINE_END, 1)[1]
    elif survey is not None and BEGIN in old and END in old:
        # The first survey after the baseline: the survey block so far becomes the baseline.
        baseline = old.split(BEGIN, 1)[1].split(END, 1)[0].strip("\n") + "\n"
    else:
        baseline = None
    if survey is not None:
        survey_block = render_survey(survey, args.label or "Survey figures.")
    elif BEGIN in old and END in old:
        survey_block = old.split(BEGIN, 1)[1].split(END, 1)[0].strip("\n") + "\n"
    else:
        survey_block = "Not measured yet: run scripts/coredata-survey.py --json FILE, then this script with --survey FILE.\n"

    w = io.StringIO()
    p = lambda s="": w.write(s + "\n")  # noqa: E731
    p("# CoreDataWild: real Core Data models from public repositories")
    p()
    p("Test material for issue #16: Core Data model bundles (`.xcdatamodeld`: every version's "
      "`contents` XML and the `.xccurrentversion` plist) taken from public GitHub repositories that "
      "the team corpus (`shared/corpus`) does not hold. Our team wrote none of it.")
    p()
    p("- Layout: `<owner>__<repo>/<path in the repository>`, exactly as upstream, so a bundle keeps its "
      "Xcode structure and its name.")
    p("- Every file is a byte-for-byte copy of the upstream file at the commit given in `SOURCES.tsv` "
      "(read through the team's code-search index, one stored version per path; the length of each "
      "copy was checked against the length the index reports; the index gives no checksum). Long "
      "versions were written by applying to the neighbouring version the differences read in the "
      "upstream text, then checked the same way. No file was edited afterwards. Where the index "
      "holds the files of one bundle at different commits, each file's own commit is listed; such a "
      "bundle is a faithful set of upstream files but may never have existed at one single commit.")
    p("- Only repositories whose licence allows redistribution (MIT, BSD, Apache-2.0 and similar) are "
      "copied. Each fixture stays under its upstream licence (table below). Copyleft models are listed "
      "in `GPL.tsv` and can be fetched with `scripts/fetch-coredata-gpl.sh`; they are not in the repository.")
    p("- Binary files (SQLite stores, compiled `.mom`/`.omo`, pre-Xcode-4 `elements`/`layout` models) "
      "cannot be read through the index; they are noted under *Left out*.")
    p("- This file is generated by `scripts/coredata-wild-manifest.py` from `SOURCES.tsv`, "
      "`LICENCES.tsv`, `NOTES.tsv` and `GPL.tsv`; `--check` verifies every fixture against `SOURCES.tsv`.")
    p()
    p("## Summary")
    p()
    p("| | count |")
    p("|---|---|")
    p(f"| source repositories | {len(repo_units)} |")
    p(f"| model units (bundles + standalone `.xcdatamodel`) | {len(units)} |")
    p(f"| multi-version bundles | {multi} |")
    p(f"| model versions (`contents` files) | {total_versions} |")
    p(f"| `.xccurrentversion` files | {xccv} |")
    p(f"| fixture files / bytes | {len(fixture_files)} / {size:,} |")
    p(f"| whole folder with the ledgers (not counting this file), bytes | {all_size:,} |")
    p()
    p("## Survey: what ModelStore does with these models")
    p()
    p(BEGIN)
    p(survey_block.rstrip("\n"))
    p(END)
    p()
    if baseline is not None:
        p("## Survey before issue #16's fixes (the baseline)")
        p()
        p(BASELINE_BEGIN)
        p(baseline.rstrip("\n"))
        p(BASELINE_END)
        p()
    p("## Repositories and licences")
    p()
    p("| repository | licence | where the licence was read | units | versions |")
    p("|---|---|---|---|---|")
    for repo in sorted(repo_units, key=str.lower):
        lic = licences.get(repo, [repo, "?", "?"])
        p(f"| {repo} | {lic[1]} | {lic[2] if len(lic) > 2 else ''} | {len(repo_units[repo])} | {repo_versions[repo]} |")
    p()
    p("## Bundles")
    p()
    p("Versions are listed by folder name; `*` marks the one `.xccurrentversion` names. Commits are "
      "abbreviated; `SOURCES.tsv` has them in full, per file. The status column is the survey result "
      "for the unit, when a survey was given.")
    p()
    p("| unit | versions | commits | notable features | survey |")
    p("|---|---|---|---|---|")
    for rel, names, commits, feats, st in rows:
        p(f"| `{rel}` | {names} | {commits} | {feats} | {st} |")
    p()
    p("## Feature coverage")
    p()
    p("How many model versions (and units) use each feature, with one example unit.")
    p()
    p("| feature | versions | units | example |")
    p("|---|---|---|---|")
    for feat in sorted(feature_versions, key=lambda k: (-feature_versions[k], k)):
        p(f"| {feat} | {feature_versions[feat]} | {len(feature_units[feat])} | `{feature_units[feat][0]}` |")
    p()
    p("## Left out")
    p()
    p("| item | why |")
    p("|---|---|")
    for r in notes:
        p(f"| {r[0]} | {r[1] if len(r) > 1 else ''} |")
    p()
    p("## Copyleft models, listed only")
    p()
    p("These repositories have Core Data models worth testing against, under GPL/AGPL. Keeping GPL "
      "files inside this repository would put test fixtures under terms the rest of the repository "
      "does not carry, so they stay out; `scripts/fetch-coredata-gpl.sh DEST` fetches them (a sparse, "
      "shallow clone of each repository's default branch, needs network access) and "
      "`scripts/coredata-survey.py DEST` surveys them. Licences are as the repositories publish "
      "them (SPDX names), not re-read for this list; paths are where the index last saw each bundle.")
    p()
    p("| repository | licence | bundle | note |")
    p("|---|---|---|---|")
    for r in gpl:
        p(f"| {r[0]} | {r[1]} | `{r[2]}` | {r[3] if len(r) > 3 else ''} |")
    (wild / "MANIFEST.md").write_text(w.getvalue(), encoding="utf-8")
    print(f"wrote {wild / 'MANIFEST.md'}: {len(repo_units)} repositories, {len(units)} units, {total_versions} versions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
