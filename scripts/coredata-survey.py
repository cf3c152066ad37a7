#!/usr/bin/env python3
"""Survey what ModelStore does with real Core Data models.

For every model unit found under the given folders (an .xcdatamodeld bundle, or an
.xcdatamodel directory that is not inside a bundle) this script:

  1. imports the unit with `modelstore xcdatamodel UNIT --report` and reads the result
     of every version (ok, or the error codes it reports);
  2. generates SwiftData code with `modelstore xcdatamodel PATH --generate swiftdata
     --out DIR` (the CLI form of model.generate) twice: once for the whole unit (all
     versions, a VersionedSchema per version and the migration plan) and once for each
     version on its own;
  3. runs `swiftc -parse` on the generated files;
  4. with `--typecheck`, type-checks the generated SwiftData code against the tests' stub
     of SwiftData's API (availability for the deployment target, macros, inverses:
     `SwiftDataTypeChecker`), through the test `GeneratedCorpusCodeTests/
     testSwiftDataInAGivenDirectoryTypeChecks` (needs the test build: `swift build
     --build-tests`), one unit per directory, whole units and versions alone.

For every Core Data store under the folders (an SQLite file with Z_PRIMARYKEY and
Z_METADATA; -wal/-shm side files go with it) it imports the store with `modelstore
import-coredata` and compares each entity's count with the rows the store holds for it
(counted here with Python's sqlite3 on a copy, `Z_ENT` per entity), opens it in place
with `modelstore serve --format coredata` and asks `query.count` of each entity (exactly
that entity), and checks that the store's files kept their bytes.

It prints a table: versions imported / failed with the reasons grouped by error code
(with examples), the warnings of imports that succeed, grouped by code, units / versions
whose generated code exists, parses (and type-checks), and stores imported and opened
with exact counts. `--json FILE` also writes every result. Nothing is written outside a
temporary folder.

Defaults: the folders ../shared/corpus (the team corpus) and Tests/Fixtures/CoreDataWild
(the fixtures collected for issue #16), the debug binary .build/debug/modelstore.
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures
import hashlib
import itertools
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_FOLDERS = [REPO.parent / "shared" / "corpus", REPO / "Tests" / "Fixtures" / "CoreDataWild"]
TIMEOUT = 180


@dataclass
class VersionResult:
    unit: str
    name: str
    path: str
    imported: bool
    errors: list = field(default_factory=list)  # [{code, message, file, line, column}]
    generated: bool | None = None
    parsed: bool | None = None
    problem: str | None = None  # why generation or parsing failed
    warnings: list = field(default_factory=list)  # [{code, message}] reported for this version
    code_dir: str | None = None  # where its generated code waits for the type check
    typechecked: bool | None = None
    typecheck_error: str | None = None


@dataclass
class UnitResult:
    path: str
    versions: list
    imported: bool
    generated: bool
    parsed: bool
    problem: str | None = None
    crash: str | None = None
    code_dir: str | None = None
    typechecked: bool | None = None
    typecheck_error: str | None = None


def find_units(folder: Path) -> list[Path]:
    """Bundles, and standalone .xcdatamodel directories, that hold at least one contents file."""
    units = []
    for root, dirs, _files in os.walk(folder):
        dirs.sort()
        here = Path(root)
        keep = []
        for d in dirs:
            p = here / d
            if d.endswith(".xcdatamodeld"):
                if any((v / "contents").is_file() for v in p.glob("*.xcdatamodel")):
                    units.append(p)
            elif d.endswith(".xcdatamodel"):
                if (p / "contents").is_file():
                    units.append(p)
            else:
                keep.append(d)
        dirs[:] = keep
    return units


def run(cmd: list[str], cwd: Path | None = None) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(cmd, 124, "", f"timed out after {TIMEOUT}s")


def first_error_line(text: str) -> str:
    for line in text.splitlines():
        if "error" in line:
            return line.strip()
    lines = [l for l in text.splitlines() if l.strip()]
    return lines[-1].strip() if lines else "(no message)"


def error_code_of(line: str) -> str:
    """The '[code]' a modelstore diagnostic line ends with, or the line's gist."""
    line = line.strip()
    if line.endswith("]") and "[" in line:
        return line[line.rindex("[") + 1 : -1]
    return line


_code_dirs = itertools.count()


def generate_and_parse(
    modelstore: str, swiftc: str, target: Path, scratch: Path, keep: Path | None = None
) -> tuple[bool, bool, str | None, str | None]:
    """Generates SwiftData code for `target` and parses it: (generated, parsed, problem, code
    directory). With `keep`, the files of code that parses are kept in a new directory under
    it (for the type check)."""
    out = Path(tempfile.mkdtemp(dir=scratch))
    try:
        gen = run([modelstore, "xcdatamodel", str(target), "--generate", "swiftdata", "--out", str(out)])
        files = sorted(str(p) for p in out.glob("*.swift"))
        if gen.returncode == 0 and not files:
            return True, True, None, None  # a model without entities: nothing to write, nothing to parse
        if gen.returncode != 0:
            errs = [l for l in gen.stderr.splitlines() if ": error:" in l or l.startswith("modelstore")]
            reason = error_code_of(errs[0]) if errs else first_error_line(gen.stderr)
            return False, False, "generate: " + reason, None
        parse = run([swiftc, "-parse", *files])
        if parse.returncode != 0:
            line = first_error_line(parse.stderr)
            # keep the message, drop the temporary path
            msg = line.split(": error: ", 1)[-1] if ": error: " in line else line
            return True, False, "swiftc -parse: " + msg, None
        kept = None
        if keep is not None:
            kept = keep / f"u{next(_code_dirs):05d}"
            shutil.copytree(out, kept)
        return True, True, None, str(kept) if kept else None
    finally:
        shutil.rmtree(out, ignore_errors=True)


def survey_unit(
    unit: Path, base: Path, modelstore: str, swiftc: str, scratch: Path, per_version: bool, keep: Path | None
) -> UnitResult:
    rel = str(unit.relative_to(base.parent)) if base.parent in unit.parents else str(unit)
    rep = run([modelstore, "xcdatamodel", str(unit), "--report"])
    versions: list[VersionResult] = []
    crash = None
    try:
        report = json.loads(rep.stdout)
    except json.JSONDecodeError:
        report = None
        crash = f"exit {rep.returncode}: {first_error_line(rep.stderr)}"
    if report is not None:
        for v in report.get("versions", []):
            errs = [
                {k: e.get(k) for k in ("code", "message", "file", "line", "column")}
                for e in v.get("errors", [])
            ]
            warns = [{k: w.get(k) for k in ("code", "message")} for w in v.get("warnings", [])]
            vdir = Path(v["file"]).parent if v.get("file") else unit
            versions.append(VersionResult(rel, v["name"], str(vdir), not errs, errs, warnings=warns))
        if not versions:  # a report without versions: the unit itself failed
            errs = [{k: e.get(k) for k in ("code", "message", "file", "line", "column")} for e in report.get("errors", [])]
            versions.append(VersionResult(rel, unit.stem, str(unit), False, errs or [{"code": "noVersions", "message": "no version reported"}]))
    else:
        for vdir in sorted(unit.glob("*.xcdatamodel")) if unit.suffix == ".xcdatamodeld" else [unit]:
            versions.append(VersionResult(rel, vdir.stem, str(vdir), False, [{"code": "crash", "message": crash}]))
    if per_version:
        for v in versions:
            v.generated, v.parsed, v.problem, v.code_dir = generate_and_parse(modelstore, swiftc, Path(v.path), scratch, keep)
    generated, parsed, problem, code_dir = generate_and_parse(modelstore, swiftc, unit, scratch, keep)
    return UnitResult(rel, versions, all(v.imported for v in versions), generated, parsed, problem, crash, code_dir)


def typecheck(results: list[UnitResult], keep: Path) -> str:
    """Type-checks every kept code directory through the test that checks a directory's
    units; records each unit's and version's outcome; returns the test's summary line."""
    env = dict(os.environ, MODELSTORE_SWIFTDATA_CHECK_DIR=str(keep))
    cmd = ["swift", "test", "--skip-build", "--filter", "GeneratedCorpusCodeTests.testSwiftDataInAGivenDirectoryTypeChecks"]
    try:
        done = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=3600, env=env)
    except subprocess.TimeoutExpired:
        return "type check timed out"
    failed: dict[str, str] = {}
    summary = ""
    for line in done.stdout.splitlines():
        m = re.match(r"^(u\d{5}): (.*)$", line)
        if m:
            failed[m.group(1)] = m.group(2)
        elif line.startswith("SwiftData type check of "):
            summary = line
    if not summary:
        return "type check did not run: " + first_error_line(done.stdout + done.stderr)
    for r in results:
        for item in [r, *r.versions]:
            if item.code_dir:
                name = Path(item.code_dir).name
                item.typechecked = name not in failed
                item.typecheck_error = failed.get(name)
    return summary

SIDE_FILES = ("-wal", "-shm", "-journal")


def find_stores(folder: Path) -> list[Path]:
    """Core Data stores under `folder`: SQLite files (any name) with Z_PRIMARYKEY and Z_METADATA."""
    found = []
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        for name in sorted(files):
            path = Path(root) / name
            if name.endswith(SIDE_FILES) or not path.is_file():
                continue
            with open(path, "rb") as f:
                if f.read(16) != b"SQLite format 3\0":
                    continue
            with tempfile.TemporaryDirectory() as tmp:
                try:
                    tables = {t for (t,) in sqlite3.connect(copy_store(path, Path(tmp))).execute(
                        "SELECT name FROM sqlite_master WHERE type = 'table'")}
                except sqlite3.DatabaseError:
                    continue
            if {"Z_PRIMARYKEY", "Z_METADATA"} <= tables:
                found.append(path)
    return found


def copy_store(path: Path, into: Path) -> str:
    """A copy of the store and its side files in `into` (reading never touches the original)."""
    for suffix in ("", *SIDE_FILES):
        if Path(str(path) + suffix).exists():
            shutil.copyfile(str(path) + suffix, into / ("store.sqlite" + suffix))
    return str(into / "store.sqlite")


def fingerprint(path: Path) -> dict:
    out = {}
    for suffix in ("", *SIDE_FILES):
        p = Path(str(path) + suffix)
        if p.exists():
            out[suffix] = (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns)
    return out


def source_counts(path: Path) -> dict[str, int]:
    """Rows per entity, read with sqlite3 from a copy: Core Data's Z_ENT (a table of one
    entity counts every row); Core Data's own entities (Z_ENT 16000 and up) left out."""
    with tempfile.TemporaryDirectory() as tmp:
        db = sqlite3.connect(copy_store(path, Path(tmp)))
        entities = [(int(n), name, int(sup or 0)) for n, name, sup in db.execute("SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY")]
        model = [e for e in entities if e[0] < 16000]
        parent = {n: sup for n, _, sup in model}
        names = {n: name for n, name, _ in model}

        def root(n: int) -> int:
            seen = set()
            while parent.get(n) and parent[n] in names and n not in seen:
                seen.add(n)
                n = parent[n]
            return n

        tables = {t for (t,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        by_table = collections.Counter("Z" + names[root(n)].upper() for n in names)
        counts = {}
        for n, name in names.items():
            table = "Z" + names[root(n)].upper()
            if table not in tables:
                continue
            quoted = '"' + table.replace('"', '""') + '"'
            if by_table[table] == 1:
                (c,) = db.execute(f"SELECT count(*) FROM {quoted}").fetchone()
            else:
                (c,) = db.execute(f"SELECT count(*) FROM {quoted} WHERE CAST(Z_ENT AS INTEGER) = ?", (n,)).fetchone()
            counts[name] = c
        db.close()
        return counts


@dataclass
class StoreResult:
    path: str
    imported: bool
    exact: bool
    in_place: bool
    unchanged: bool
    objects: int = 0
    problem: str | None = None


def survey_store(path: Path, base: Path, modelstore: str, scratch: Path) -> StoreResult:
    rel = str(path.relative_to(base.parent)) if base.parent in path.parents else str(path)
    before = fingerprint(path)
    expected = source_counts(path)
    out = Path(tempfile.mkdtemp(dir=scratch)) / "imported.store"
    imp = run([modelstore, "import-coredata", str(path), "--store", str(out)])
    result = StoreResult(rel, imp.returncode == 0, False, False, False, sum(expected.values()))
    if imp.returncode != 0:
        result.problem = "import: " + first_error_line(imp.stderr)
    else:
        got = {}
        for line in imp.stdout.splitlines()[1:]:
            m = re.match(r"^  ([A-Za-z_][A-Za-z0-9_]*): (\d+)$", line)
            if m:
                got[m.group(1)] = int(m.group(2))
        wrong = {e: (got.get(e), n) for e, n in expected.items() if got.get(e) != n}
        result.exact = not wrong
        if wrong:
            result.problem = "counts (imported, source): " + ", ".join(f"{e} {g}/{n}" for e, (g, n) in sorted(wrong.items()))
    requests = [{"jsonrpc": "2.0", "id": i, "method": "query.count", "params": {"entity": e, "includeSubentities": False}}
                for i, e in enumerate(expected)]
    try:
        serve = subprocess.run([modelstore, "serve", "--store", str(path), "--format", "coredata"],
                               input="".join(json.dumps(r) + "\n" for r in requests), capture_output=True, text=True, timeout=TIMEOUT)
        replies = {}
        for line in serve.stdout.splitlines():
            try:
                m = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(m, dict) and "id" in m:
                replies[m["id"]] = m.get("result", {}).get("count") if "result" in m else m.get("error")
        wrong = {e: replies.get(i) for i, e in enumerate(expected) if replies.get(i) != expected[e]}
        result.in_place = serve.returncode == 0 and not wrong
        if not result.in_place and result.problem is None:
            result.problem = f"in place (exit {serve.returncode}): " + (
                ", ".join(f"{e} {v}/{expected[e]}" for e, v in sorted(wrong.items())) or first_error_line(serve.stderr))
    except subprocess.TimeoutExpired:
        result.problem = result.problem or "in place: timed out"
    result.unchanged = fingerprint(path) == before
    if not result.unchanged:
        result.problem = (result.problem + "; " if result.problem else "") + "the store's files changed"
    return result


def print_stores(title: str, stores: list[StoreResult]) -> None:
    if not stores:
        print(f"\nStores under {title}: none.")
        return
    ok = [s for s in stores if s.imported and s.exact and s.in_place and s.unchanged]
    print(f"\nStores under {title} (counts per entity against the source's rows, read with sqlite3):\n")
    print("| measure | count | of | share |")
    print("|---|---|---|---|")
    print(f"| stores imported with every entity's exact count | {sum(s.imported and s.exact for s in stores)} | {len(stores)} | {pct(sum(s.imported and s.exact for s in stores), len(stores))} |")
    print(f"| stores opened in place with every entity's exact count | {sum(s.in_place for s in stores)} | {len(stores)} | {pct(sum(s.in_place for s in stores), len(stores))} |")
    print(f"| stores whose files kept their bytes | {sum(s.unchanged for s in stores)} | {len(stores)} | {pct(sum(s.unchanged for s in stores), len(stores))} |")
    print(f"| all of it | {len(ok)} | {len(stores)} | {pct(len(ok), len(stores))} |")
    print(f"| objects in those stores | {sum(s.objects for s in stores)} | | |")
    for s in stores:
        if s.problem:
            print(f"\n- `{s.path}`: {s.problem}")


def pct(n: int, d: int) -> str:
    return f"{100.0 * n / d:.1f}%" if d else "-"


def print_table(title: str, units: list[UnitResult], examples: int) -> None:
    versions = [v for u in units for v in u.versions]
    ok = [v for v in versions if v.imported]
    print(f"\n## {title}\n")
    print("| measure | count | of | share |")
    print("|---|---|---|---|")
    print(f"| model units (bundles + standalone models) | {len(units)} | | |")
    print(f"| model versions imported without error | {len(ok)} | {len(versions)} | {pct(len(ok), len(versions))} |")
    print(f"| units whose every version imports | {sum(u.imported for u in units)} | {len(units)} | {pct(sum(u.imported for u in units), len(units))} |")
    print(f"| units generating SwiftData code (whole unit) | {sum(u.generated for u in units)} | {len(units)} | {pct(sum(u.generated for u in units), len(units))} |")
    print(f"| units whose generated code passes `swiftc -parse` | {sum(u.parsed for u in units)} | {len(units)} | {pct(sum(u.parsed for u in units), len(units))} |")
    gv = [v for v in versions if v.generated is not None]
    if gv:
        print(f"| versions generating SwiftData code (version alone) | {sum(bool(v.generated) for v in gv)} | {len(gv)} | {pct(sum(bool(v.generated) for v in gv), len(gv))} |")
        print(f"| versions whose generated code passes `swiftc -parse` | {sum(bool(v.parsed) for v in gv)} | {len(gv)} | {pct(sum(bool(v.parsed) for v in gv), len(gv))} |")
    if any(u.typechecked is not None for u in units):
        ok_units = [u for u in units if u.parsed and (u.code_dir is None or u.typechecked)]
        print(f"| units whose code parses and type-checks (whole unit, SwiftData stub) | {len(ok_units)} | {len(units)} | {pct(len(ok_units), len(units))} |")
        tv = [v for v in versions if v.generated is not None]
        ok_versions = [v for v in tv if v.parsed and (v.code_dir is None or v.typechecked)]
        if tv:
            print(f"| versions whose code parses and type-checks (version alone) | {len(ok_versions)} | {len(tv)} | {pct(len(ok_versions), len(tv))} |")
    crashes = [u for u in units if u.crash]
    if crashes:
        print(f"| units whose report was not JSON (crash or refusal) | {len(crashes)} | {len(units)} | |")

    by_code: dict[str, list[tuple[VersionResult, dict]]] = collections.defaultdict(list)
    for v in versions:
        for code in sorted({e["code"] for e in v.errors}):
            first = next(e for e in v.errors if e["code"] == code)
            by_code[code].append((v, first))
    if by_code:
        print("\nImport failures by error code (a version with several codes counts once per code):\n")
        print("| error code | versions | example |")
        print("|---|---|---|")
        for code, items in sorted(by_code.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            shown = []
            for v, e in items[:examples]:
                where = f"{Path(e['file']).name if e.get('file') else ''}:{e.get('line') or ''}"
                shown.append(f"`{v.unit}` {v.name} ({where}): {e.get('message')}")
            print(f"| `{code}` | {len(items)} | {'<br>'.join(shown)} |")

    by_warning: dict[str, list[tuple[VersionResult, dict]]] = collections.defaultdict(list)
    for v in versions:
        for code in sorted({w["code"] for w in v.warnings}):
            by_warning[code].append((v, next(w for w in v.warnings if w["code"] == code)))
    if by_warning:
        print("\nWarnings by code (imports that succeed but report something; a version counts once per code):\n")
        print("| warning code | versions | example |")
        print("|---|---|---|")
        for code, items in sorted(by_warning.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            v, w = items[0]
            print(f"| `{code}` | {len(items)} | `{v.unit}` {v.name}: {w.get('message')} |")

    problems: dict[str, list[str]] = collections.defaultdict(list)
    for u in units:
        if u.problem:
            problems[u.problem].append(u.path)
        elif u.typechecked is False:
            problems["type check: " + (u.typecheck_error or "?")].append(u.path)
    for v in versions:
        if v.typechecked is False:
            problems["type check (version alone): " + (v.typecheck_error or "?")].append(f"{v.unit} {v.name}")
    if problems:
        print("\nUnits without parsing generated code, by first reason:\n")
        print("| reason | units | examples |")
        print("|---|---|---|")
        for reason, paths in sorted(problems.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            print(f"| {reason.replace('|', '/')} | {len(paths)} | {'<br>'.join('`' + p + '`' for p in paths[:examples])} |")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folders", nargs="*", type=Path, help="folders to search (default: the corpus and CoreDataWild)")
    ap.add_argument("--modelstore", default=str(REPO / ".build" / "debug" / "modelstore"))
    ap.add_argument("--swiftc", default="swiftc")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--no-per-version", action="store_true", help="generate code per unit only")
    ap.add_argument("--examples", type=int, default=2, help="examples shown per failure group")
    ap.add_argument("--json", type=Path, help="also write every result to this file")
    ap.add_argument("--typecheck", action="store_true",
                    help="also type-check the generated SwiftData code against the tests' SwiftData stub (needs swift build --build-tests)")
    ap.add_argument("--no-stores", action="store_true", help="leave out the Core Data stores")
    args = ap.parse_args()
    folders = args.folders or [f for f in DEFAULT_FOLDERS if f.exists()]
    if not Path(args.modelstore).exists():
        print(f"coredata-survey: no modelstore binary at {args.modelstore} (run swift build --product modelstore)", file=sys.stderr)
        return 2
    if shutil.which(args.swiftc) is None and not Path(args.swiftc).exists():
        print(f"coredata-survey: swiftc not found ({args.swiftc})", file=sys.stderr)
        return 2
    everything = {}
    with tempfile.TemporaryDirectory(prefix="coredata-survey-") as scratch:
        keep = Path(scratch) / "typecheck" if args.typecheck else None
        if keep:
            keep.mkdir()
        surveyed = []
        for folder in folders:
            folder = folder.resolve()
            units = find_units(folder)
            with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
                results = list(pool.map(
                    lambda u: survey_unit(u, folder, args.modelstore, args.swiftc, Path(scratch), not args.no_per_version, keep),
                    units))
            stores = [] if args.no_stores else [survey_store(p, folder, args.modelstore, Path(scratch)) for p in find_stores(folder)]
            surveyed.append((folder, results, stores))
        checked = typecheck([r for _, results, _ in surveyed for r in results], keep) if keep else None
        for folder, results, stores in surveyed:
            print_table(str(folder), results, args.examples)
            if not args.no_stores:
                print_stores(str(folder), stores)
            everything[str(folder)] = {
                "units": [
                    {**{k: getattr(r, k) for k in ("path", "imported", "generated", "parsed", "problem", "crash", "typechecked", "typecheck_error")},
                     "versions": [{k: v for k, v in v.__dict__.items() if k != "code_dir"} for v in r.versions]}
                    for r in results
                ],
                "stores": [s.__dict__ for s in stores],
            }
        if checked:
            print(f"\n{checked}")
    if args.json:
        args.json.write_text(json.dumps(everything, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
