#!/usr/bin/env python3
"""Peak memory and time of one big `context.save`, beside the sqlite3 CLI.

One `serve` process gets `model.define` (the benchmark Task of run.py: a unique uuid, a
title, a flag, a date, an integer) and then one `context.save` of M inserts (M = 100,000:
a message of about 18 MB). Measured with GNU time: the process's peak resident memory
(max RSS) and its wall time (spawn to exit, model.define included), median of --runs
runs. Beside it, in the same run, the sqlite3 CLI inserts the same rows in one
transaction (a script of M INSERT statements) into:

  layout    the table ModelStore itself creates (layout.py's CLI_DDL), so the ratio is the
            server's own overhead;
  handmade  the table a developer would write for the model: `id BLOB` (16 bytes) unique,
            REAL date, INTEGER PRIMARY KEY (issue #13's comparison).

The same save with a `ref` on every insert (so the reply carries a ref map of M entries)
is measured too, and with --import `modelstore import` of a `json` document of the same
rows (one document holding an `objects` array). Each run measures every side once, back to
back, so a ratio is the median of the runs' ratios.

As run.py's case `save_memory`: M = 100,000 (10,000 with --quick), --runs runs, with the
import.

Usage: python3 Benchmarks/save_memory.py [--binary PATH] [--inserts M] [--runs R] [--import]
Prints a Markdown table and a JSON line of the figures (without the runs); exits non-zero
when a request fails.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

from benchlib import ROOT, TIME, Context, Outcome, Row, fresh, mib, rpc, run_measured
from layout import SCHEMA, cli_measured, count_rows, rows, serve_measured, values, write_insert_script

HANDMADE_DDL = (
    'CREATE TABLE "Task" ("pk" INTEGER PRIMARY KEY, "id" BLOB NOT NULL UNIQUE, "title" TEXT, '
    '"isCompleted" INTEGER, "createdAt" REAL, "priority" INTEGER);\n'
)
SERVER_SIDES = ("define", "save", "save_refs", "import")  # what the server runs; "import" with --import only
COMPARED = SERVER_SIDES[1:]  # set beside the CLI sides (model.define alone is the baseline)
CLI_SIDES = ("layout", "handmade")
CPU_RESOLUTION = 0.01  # GNU time's CPU seconds: a side of a few thousand inserts can show 0
FIGURES = {"seconds": "seconds", "peak_rss_kib": "peak_kib", "cpu_seconds": "cpu_seconds"}  # run_measured's: the name here


def handmade_insert(r) -> str:
    u, title, done, secs, _, prio = r
    return (
        'INSERT INTO "Task" ("id", "title", "isCompleted", "createdAt", "priority") '
        f"VALUES (X'{u.replace('-', '')}', '{title}', {1 if done else 0}, {float(secs)!r}, {prio});\n"
    )


def write_inputs(work: Path, m: int, with_import: bool) -> tuple[dict, dict]:
    """The request files (define alone, the save, the save with refs) and the CLI's scripts
    (server's layout, hand-written table); the json document too `with_import`. Returns the
    input of each side and the figures of their sizes."""
    define = rpc(0, "model.define", {"schema": SCHEMA}) + "\n"
    inputs, sizes = {"define": work / "define.jsonl"}, {}
    inputs["define"].write_text(define)
    for name, with_refs in (("save", False), ("save_refs", True)):
        changes = [{"op": "insert", "entity": "Task", "values": values(r)} for r in rows(m)]
        if with_refs:
            for i, c in enumerate(changes):
                c["ref"] = f"$t{i}"
        save = rpc(1, "context.save", {"changes": changes})
        sizes[f"{name}_message_bytes"] = len(save) + 1
        inputs[name] = work / f"{name}.jsonl"
        inputs[name].write_text(define + save + "\n")
    inputs["layout"], inputs["handmade"] = work / "layout.sql", work / "handmade.sql"
    write_insert_script(inputs["layout"], m)
    write_insert_script(inputs["handmade"], m, HANDMADE_DDL, handmade_insert)
    if with_import:
        inputs["import"] = work / "tasks.json"
        with open(inputs["import"], "w") as f:
            f.write('{"format":"modelstore-export","version":1,"schema":' + json.dumps(SCHEMA) + ',"entities":["Task"],"objects":[\n')
            for i, r in enumerate(rows(m)):
                record = {"_id": f"Task/{i + 1}", "_entity": "Task", **values(r)}
                f.write(("," if i else "") + json.dumps(record, separators=(",", ":")) + "\n")
            f.write("]}\n")
        sizes["import_bytes"] = inputs["import"].stat().st_size
    return inputs, sizes


def measure(binary: str, inserts: int, runs: int, with_import: bool, work: Path) -> dict:
    """`runs` rounds, each running every side once in turn (so every side sees the same
    machine load); the median of each side's wall time, peak memory and CPU time, and the
    median of each round's ratio of a server side to a CLI side. `rounds` holds every round."""
    m = inserts
    inputs, figures = write_inputs(work, m, with_import)
    figures.update(inserts=m, runs=runs)
    ours = [k for k in SERVER_SIDES if k in inputs]

    def imp() -> dict:
        db = fresh(work, "imported.store")
        r = run_measured([binary, "import", "--store", str(db), str(inputs["import"])], Path(os.devnull))
        assert count_rows(db) == m
        return r

    side = {
        "define": lambda: serve_measured(binary, work, inputs["define"], 1, 0),
        "save": lambda: serve_measured(binary, work, inputs["save"], 2, m),
        "layout": lambda: cli_measured(fresh(work, "cli.db"), inputs["layout"], m),
        "handmade": lambda: cli_measured(fresh(work, "cli.db"), inputs["handmade"], m),
        "save_refs": lambda: serve_measured(binary, work, inputs["save_refs"], 2, m),
        "import": imp,
    }
    rounds = []
    for _ in range(runs):
        rnd = {k: side[k]() for k in side if k in inputs}  # in the order of `side`
        for k in (k for k in COMPARED if k in rnd):
            for cli in CLI_SIDES:
                rnd[f"{k}_{cli}_ratio"] = rnd[k]["seconds"] / rnd[cli]["seconds"]
                rnd[f"{k}_{cli}_cpu_ratio"] = rnd[k]["cpu_seconds"] / max(rnd[cli]["cpu_seconds"], CPU_RESOLUTION)
        rounds.append(rnd)
    for k in (*ours, *CLI_SIDES):
        for fig, name in FIGURES.items():
            figures[f"{k}_{name}"] = statistics.median(r[k][fig] for r in rounds)
    for key in (k for k in rounds[0] if k.endswith("ratio")):
        figures[key] = statistics.median(r[key] for r in rounds)
    figures["rounds"] = rounds
    return figures


def seconds(f: dict, k: str) -> str:
    return f"{f[k + '_seconds']:.3f} s (CPU {f[k + '_cpu_seconds']:.3f} s)"


def ratio(f: dict, k: str, cli: str) -> str:
    return f"{f[f'{k}_{cli}_ratio']:.2f}x wall, {f[f'{k}_{cli}_cpu_ratio']:.2f}x CPU"


def case(ctx: Context) -> Outcome:
    m = 10_000 if ctx.quick else 100_000
    work = ctx.work / "save_memory"
    work.mkdir(exist_ok=True)
    f = measure(ctx.binary, m, ctx.runs, True, work)
    f.update(target_peak_mib=64, target_ratio=1.0)
    save = f"one context.save of {m:,} inserts ({f['save_message_bytes'] / 1e6:.1f} MB message)"
    table = [Row(f"(save_memory) peak memory of {save}", mib(f["save_peak_kib"]),
                 f"{mib(f['layout_peak_kib'])} (server's layout), "
                 f"{mib(f['handmade_peak_kib'])} (hand-written table)", "", "<= 64 MiB")]
    for cli, what in (("handmade", "hand-written table"), ("layout", "server's layout")):
        table.append(Row(f"(save_memory) wall time of {save}, beside the CLI on the {what}", seconds(f, "save"),
                         f"{seconds(f, cli)} ({what})", ratio(f, "save", cli), "<= 1.0x"))
    for k, what in (("save_refs", f"the same save with a ref on every insert ({f['save_refs_message_bytes'] / 1e6:.1f} MB message)"),
                    ("import", f"`modelstore import` of the same rows as a {f['import_bytes'] / 1e6:.1f} MB json document")):
        table.append(Row(f"(save_memory) {what}", f"{seconds(f, k)}, peak {mib(f[k + '_peak_kib'])}",
                         f"{seconds(f, 'handmade')} (hand-written table)", ratio(f, k, "handmade"), ""))
    return Outcome(f, table)


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
    with tempfile.TemporaryDirectory(prefix="modelstore-savemem-") as tmp:
        f = measure(args.binary, m, args.runs, args.with_import, Path(tmp))
    print(f"| measured, median of {args.runs} | modelstore | sqlite3 CLI, server's layout | sqlite3 CLI, hand-written table |")
    print("|---|---|---|---|")
    for k, what in (("save", f"one context.save of {m:,} inserts"), ("save_refs", "the same with a ref on every insert")):
        print(f"| {what} ({f[k + '_message_bytes'] / 1e6:.1f} MB message) | {seconds(f, k)}, peak {mib(f[k + '_peak_kib'])} "
              f"| {ratio(f, k, 'layout')} | {ratio(f, k, 'handmade')} |")
    print(f"| the CLI inserting the same rows | | {seconds(f, 'layout')}, peak {mib(f['layout_peak_kib'])} "
          f"| {seconds(f, 'handmade')}, peak {mib(f['handmade_peak_kib'])} |")
    print(f"| `model.define` alone (the server's baseline) | {f['define_seconds']:.3f} s, peak {mib(f['define_peak_kib'])} | | |")
    if args.with_import:
        print(f"| `modelstore import` of a {f['import_bytes'] / 1e6:.1f} MB json document | {seconds(f, 'import')}, "
              f"peak {mib(f['import_peak_kib'])} | | |")
    print(json.dumps({k: v for k, v in f.items() if k != "rounds"}))


if __name__ == "__main__":
    main()
