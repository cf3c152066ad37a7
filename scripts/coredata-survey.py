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
  3. runs `swiftc -parse` on the generated files.

It prints a table: versions imported / failed with the reasons grouped by error code
(with examples), the warnings of imports that succeed, grouped by code, and units /
versions whose generated code exists and parses.
`--json FILE` also writes every result. Nothing is written outside a temporary folder.

Defaults: the folders ../shared/corpus (the team corpus) and Tests/Fixtures/CoreDataWild
(the fixtures collected for issue #16), the debug binary .build/debug/modelstore.
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures
import json
import os
import shutil
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


@dataclass
class UnitResult:
    path: str
    versions: list
    imported: bool
    generated: bool
    parsed: bool
    problem: str | None = None
    crash: str | None = None


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


def generate_and_parse(modelstore: str, swiftc: str, target: Path, scratch: Path) -> tuple[bool, bool, str | None]:
    out = Path(tempfile.mkdtemp(dir=scratch))
    try:
        gen = run([modelstore, "xcdatamodel", str(target), "--generate", "swiftdata", "--out", str(out)])
        files = sorted(str(p) for p in out.glob("*.swift"))
        if gen.returncode == 0 and not files:
            return True, True, None  # a model without entities: nothing to write, nothing to parse
        if gen.returncode != 0:
            errs = [l for l in gen.stderr.splitlines() if ": error:" in l or l.startswith("modelstore")]
            reason = error_code_of(errs[0]) if errs else first_error_line(gen.stderr)
            return False, False, "generate: " + reason
        parse = run([swiftc, "-parse", *files])
        if parse.returncode != 0:
            line = first_error_line(parse.stderr)
            # keep the message, drop the temporary path
            msg = line.split(": error: ", 1)[-1] if ": error: " in line else line
            return True, False, "swiftc -parse: " + msg
        return True, True, None
    finally:
        shutil.rmtree(out, ignore_errors=True)


def survey_unit(unit: Path, base: Path, modelstore: str, swiftc: str, scratch: Path, per_version: bool) -> UnitResult:
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
            v.generated, v.parsed, v.problem = generate_and_parse(modelstore, swiftc, Path(v.path), scratch)
    generated, parsed, problem = generate_and_parse(modelstore, swiftc, unit, scratch)
    return UnitResult(rel, versions, all(v.imported for v in versions), generated, parsed, problem, crash)


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
        for folder in folders:
            folder = folder.resolve()
            units = find_units(folder)
            with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
                results = list(pool.map(
                    lambda u: survey_unit(u, folder, args.modelstore, args.swiftc, Path(scratch), not args.no_per_version),
                    units))
            print_table(str(folder), results, args.examples)
            everything[str(folder)] = [
                {**{k: getattr(r, k) for k in ("path", "imported", "generated", "parsed", "problem", "crash")},
                 "versions": [v.__dict__ for v in r.versions]}
                for r in results
            ]
    if args.json:
        args.json.write_text(json.dumps(everything, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
