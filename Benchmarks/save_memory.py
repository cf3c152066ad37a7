#!/usr/bin/env python3
"""Peak memory and time of one big `context.save`, beside the sqlite3 CLI.

One `serve` process gets `model.define` (the benchmark Task of run.py: a unique uuid, a
title, a flag, a date, an integer) and then one `context.save` of M inserts (M = 100,000:
a message of about 18 MB). Measured with GNU time: the process's peak resident memory
(max RSS) and its wall time (spawn to exit, model.define included), median of --runs
runs. Beside it, in the same run, the sqlite3 CLI inserts the same rows in one
transaction (a script of M INSERT statements) into:

  layout    the table ModelStore itself creates (run.py's CLI_DDL), so the ratio is the
            server's own overhead;
  handmade  the table a developer would write for the model: `id BLOB` (16 bytes) unique,
            REAL date, INTEGER PRIMARY KEY (issue #13's comparison).

The same save with a `ref` on every insert (so the reply carries a ref map of M entries)
is measured too, and with --import `modelstore import` of a `json` document of the same
rows (one document holding an `objects` array).

Usage: python3 Benchmarks/save_memory.py [--binary PATH] [--inserts M] [--runs R] [--import]
Prints a Markdown table and a JSON line of the figures; exits non-zero when a request fails.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from run import CLI_DDL, PRAGMAS, ROOT, SCHEMA, TIME, check_replies, cli_insert, count_rows, fresh, rows, rpc, values

HANDMADE_DDL = (
    'CREATE TABLE "Task" ("pk" INTEGER PRIMARY KEY, "id" BLOB NOT NULL UNIQUE, "title" TEXT, '
    '"isCompleted" INTEGER, "createdAt" REAL, "priority" INTEGER);\n'
)


def handmade_insert(r) -> str:
    u, title, done, secs, _, prio = r
    return (
        'INSERT INTO "Task" ("id", "title", "isCompleted", "createdAt", "priority") '
        f"VALUES (X'{u.replace('-', '')}', '{title}', {1 if done else 0}, {float(secs)!r}, {prio});\n"
    )


def run_measured(argv, stdin_path: Path, stdout_path: Path | None = None):
    """Runs argv with a file on stdin under GNU time: (wall seconds, peak RSS KiB, CPU seconds).

    CPU time (user + system, all threads) is reported beside wall time: the server parses
    a large save on a second thread, so its wall time depends on a second core being free.
    """
    with tempfile.NamedTemporaryFile("r", suffix=".time") as out, open(stdin_path, "rb") as fin, \
            open(stdout_path or os.devnull, "wb") as fout:
        start = time.perf_counter()
        p = subprocess.run([TIME, "-f", "%M %U %S", "-o", out.name, *argv], stdin=fin, stdout=fout, stderr=subprocess.PIPE)
        elapsed = time.perf_counter() - start
        if p.returncode != 0:
            sys.exit(f"{argv[0]} failed ({p.returncode}): {p.stderr.decode()[-2000:]}")
        peak, user, system = out.read().split()[-3:]
    return elapsed, int(peak), float(user) + float(system)


def medians(samples) -> tuple:
    """The median of each field of (wall, peak, cpu) samples."""
    return tuple(statistics.median(s[i] for s in samples) for i in range(3))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=str(ROOT / ".build" / "release" / "modelstore"))
    ap.add_argument("--inserts", type=int, default=100_000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--import", dest="with_import", action="store_true", help="also measure `modelstore import` of a json document")
    args = ap.parse_args()
    for present, missing in (
        (shutil.which("sqlite3"), "the sqlite3 CLI is needed: apt-get install sqlite3"),
        (os.access(TIME, os.X_OK), "GNU time is needed for peak memory: apt-get install time"),
        (os.access(args.binary, os.X_OK), f"no modelstore binary at {args.binary}: run 'swift build -c release' first"),
    ):
        if not present:
            sys.exit(missing)
    m = args.inserts
    figures: dict = {"inserts": m, "runs": args.runs}
    with tempfile.TemporaryDirectory(prefix="modelstore-savemem-") as tmp:
        work = Path(tmp)
        define = rpc(0, "model.define", {"schema": SCHEMA}) + "\n"
        requests = {}
        for name, with_refs in (("save", False), ("save_refs", True)):
            changes = [{"op": "insert", "entity": "Task", "values": values(r)} for r in rows(m)]
            if with_refs:
                for i, c in enumerate(changes):
                    c["ref"] = f"$t{i}"
            save = rpc(1, "context.save", {"changes": changes})
            figures[f"{name}_message_bytes"] = len(save) + 1
            requests[name] = work / f"{name}.jsonl"
            requests[name].write_text(define + save + "\n")
        requests["define"] = work / "define.jsonl"
        requests["define"].write_text(define)
        scripts = {}
        for name, ddl, insert in (("layout", CLI_DDL, cli_insert), ("handmade", HANDMADE_DDL, handmade_insert)):
            scripts[name] = work / f"{name}.sql"
            with open(scripts[name], "w") as f:
                f.write(PRAGMAS + ddl + "BEGIN;\n")
                for r in rows(m):
                    f.write(insert(r))
                f.write("COMMIT;\n")

        def serve(request: Path, replies: int, expected_rows: int):
            db = fresh(work, "ours.store")
            out = work / "replies.jsonl"
            t = run_measured([args.binary, "serve", "--store", str(db), "--max-message-bytes", str(1 << 28)], request, out)
            check_replies(out, replies)
            assert count_rows(db) == expected_rows
            return t

        def cli(script: Path):
            db = fresh(work, "cli.db")
            t = run_measured(["sqlite3", str(db)], script)
            assert count_rows(db) == m
            return t

        samples = {k: [] for k in ("define", "save", "save_refs", "layout", "handmade")}
        # Interleaved, so that every side sees the same machine load.
        for _ in range(args.runs):
            samples["define"].append(serve(requests["define"], 1, 0))
            samples["save"].append(serve(requests["save"], 2, m))
            samples["layout"].append(cli(scripts["layout"]))
            samples["handmade"].append(cli(scripts["handmade"]))
            samples["save_refs"].append(serve(requests["save_refs"], 2, m))
        for k, v in samples.items():
            figures[f"{k}_seconds"], figures[f"{k}_peak_kib"], figures[f"{k}_cpu_seconds"] = medians(v)
        if args.with_import:
            doc = work / "tasks.json"
            with open(doc, "w") as f:
                f.write('{"format":"modelstore-export","version":1,"schema":' + json.dumps(SCHEMA) + ',"entities":["Task"],"objects":[\n')
                for i, r in enumerate(rows(m)):
                    record = {"_id": f"Task/{i + 1}", "_entity": "Task", **values(r)}
                    f.write(("," if i else "") + json.dumps(record, separators=(",", ":")) + "\n")
                f.write("]}\n")
            figures["import_bytes"] = doc.stat().st_size

            def imp():
                db = fresh(work, "imported.store")
                t = run_measured([args.binary, "import", "--store", str(db), str(doc)], Path(os.devnull))
                assert count_rows(db) == m
                return t

            figures["import_seconds"], figures["import_peak_kib"], figures["import_cpu_seconds"] = medians([imp() for _ in range(args.runs)])

    f = figures
    mib = lambda kib: f"{kib / 1024:.1f} MiB"
    ratio = lambda k, cli: f"{f[k + '_seconds'] / f[cli + '_seconds']:.2f}x wall, {f[k + '_cpu_seconds'] / f[cli + '_cpu_seconds']:.2f}x CPU"
    print(f"| measured, median of {args.runs} | modelstore | sqlite3 CLI, server's layout | sqlite3 CLI, hand-written table |")
    print("|---|---|---|---|")
    for k, what in (("save", f"one context.save of {m:,} inserts"), ("save_refs", "the same with a ref on every insert")):
        print(f"| {what} ({f[k + '_message_bytes'] / 1e6:.1f} MB message) | {f[k + '_seconds']:.3f} s "
              f"(CPU {f[k + '_cpu_seconds']:.3f} s), peak {mib(f[k + '_peak_kib'])} "
              f"| {ratio(k, 'layout')} | {ratio(k, 'handmade')} |")
    print(f"| the CLI inserting the same rows | | {f['layout_seconds']:.3f} s (CPU {f['layout_cpu_seconds']:.3f} s), "
          f"peak {mib(f['layout_peak_kib'])} | {f['handmade_seconds']:.3f} s (CPU {f['handmade_cpu_seconds']:.3f} s), "
          f"peak {mib(f['handmade_peak_kib'])} |")
    print(f"| `model.define` alone (the server's baseline) | {f['define_seconds']:.3f} s, peak {mib(f['define_peak_kib'])} | | |")
    if args.with_import:
        print(f"| `modelstore import` of a {f['import_bytes'] / 1e6:.1f} MB json document | {f['import_seconds']:.3f} s "
              f"(CPU {f['import_cpu_seconds']:.3f} s), peak {mib(f['import_peak_kib'])} | | |")
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
