#!/usr/bin/env python3
"""ModelStore benchmarks, each run side by side with something doing the same work: the
sqlite3 CLI unless the case names another.

On ModelStore's own table layout (the server's overhead over that layout):
  (a) N objects.insert requests pipelined over stdio in one transaction, vs the CLI
      running N INSERT statements in one transaction (same table layout, indexes, pragmas)
  (b) one context.save of M inserts, vs the CLI running M INSERT statements in one transaction
  (c) K sequential objects.get round trips from a client (median and p99 round trip)
  (d) start-up: spawn to the initialize reply (median of R runs), beside spawning the CLI
  (e) on Q Task objects with an index on priority, the fetch `priority == 2 AND
      isCompleted == NO` sorted by createdAt, limit 100, repeated, vs the CLI running the
      same SQL with -json output the same number of times
  (f) a full fetch of F objects serialized, vs the CLI's `-json` of the same rows
  (g) `modelstore export` of the Q Task objects as ndjson to a file, vs the CLI's `-json`
      of the same rows and columns to a file
  (h) peak memory of that export for a tenth of Q vs Q objects (streaming: flat)
  (i) `modelstore import` of the file (g) wrote into an empty store, vs the CLI running
      the equivalent INSERT script (same rows, same table and indexes) in one transaction
  (k) the cost of history: (a) with and without `serve --no-history`; the ratio is with / without
  (l) live query latency: one process commits an insert (its reply marks the commit), another
      observes the entity; time until its `query/changed` arrives (median and p99 of L)
  (n) live query idle cost: 10 servers on one file, one subscription each, no traffic: the
      CPU they use together over 60 s (10 s with --quick), as a percentage of one core
  (j) `modelstore migrate` of a copy of the Q-object store through one lightweight stage
      (rename title -> name through originalName, add notes with a default), vs the CLI
      running the same ALTER TABLE / UPDATE statements in one transaction
  (m) optimistic locking under load (counters.py): 4 server processes on one file each
      incrementing one counter with objects.get {withVersion} + objects.update {ifVersion}
      for MODELSTORE_BENCH_COUNTER_SECONDS (default 600; 30 with --quick): increments per
      second, conflicts retried, and lost increments, which must be 0 (the run fails otherwise)
Issue #13's table: on the seeds' model beside what a developer would write by hand, and
the other rows of that table:
  seeds   (seeds.py) 100,000 and 200,000 pipelined objects.insert of Tasks with a unique
          UUID and a category, one transaction, vs the CLI inserting the same rows into a
          hand-written table; time and checkpointed file size
  tomany  (tomany.py) fetching the categories `ANY tasks.isCompleted == NO` (10 categories,
          50,000 tasks) from a Python client loop, vs SQLAlchemy 2's ORM in-process (in
          its own virtual environment under OUT/venv, made on first use)
  save_memory  (save_memory.py) peak memory of one context.save of 100,000 inserts (an 18 MB
          message), its wall and CPU time beside the CLI inserting the same rows into the
          server's layout and into a hand-written table; the same save with a ref on every
          insert, and `modelstore import` of the rows as one json document
  schema_change  (schema_change.py) three model.define steps (add an optional attribute,
          rename it, add one with a constant default) on stores of 200,000 and 20,000 Tasks:
          time of each and the file size after it
  roundtrip  (roundtrip.py) 20,000 sequential objects.get round trips from a Python loop,
          beside a `cat` echo of the same bytes from the same loop (the pipe floor), with
          loop and child on one CPU and on two: median and p99, and the overhead
On a PostgreSQL store (issue #15), beside psql doing the same work on the same server, a
throwaway cluster (scripts/pg-cluster.sh: a Unix socket in the scratch folder, fsync off)
started by the first of these cases and stopped at the end:
  pg_seeds  (pg_writes.py) 100,000 and 200,000 pipelined objects.insert of the seeds' Task in
          one transaction, vs psql running the same rows as INSERT statements in one
          transaction into the server's own tables and into hand-written ones
  pg_concurrent  (pg_writes.py) two servers on one store at once, K objects.insert each (a
          transaction each), vs one server sending all 2K and two psql sessions at once
  pg_copy  (pg_reads.py) `modelstore copy` of the Q-object store, SQLite to PostgreSQL and back:
          time and peak memory at Q/10 and Q objects
  pg_fetch, pg_full, pg_export  (pg_reads.py) (e), (f) and (g) on that store in PostgreSQL, vs
          psql running the same SELECT (unaligned output to a file)

Every compared case runs --runs rounds (default 3), each timing both sides back to back;
the table shows the medians, the ratio being the median of the rounds' ratios, and
results.json records every round. A case is a function `case(ctx: benchlib.Context) ->
benchlib.Outcome` in its own module: to add one, add its module and a line to CASES.

Usage: python3 Benchmarks/run.py [--binary PATH] [--quick] [--runs N] [--only CASES] [--out DIR]
Prints a Markdown table; writes OUT/results.json (with --only, the cases run replace theirs
in an existing results.json and the others are kept).
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import counters
import files
import latency
import live
import pg_reads
import pg_writes
import pgcluster
import reads
import roundtrip
import save_memory
import schema_change
import seeds
import tomany
import writes
from benchlib import ROOT, TIME, Context, Outcome

# (name for --only, the case function), in the order of the printed table.
CASES = [
    ("a", writes.pipelined), ("b", writes.save), ("c", latency.roundtrips), ("d", latency.startup),
    ("e", reads.indexed_fetch), ("f", reads.full_fetch), ("g", files.export), ("h", files.export_memory),
    ("i", files.import_), ("k", writes.no_history), ("l", live.latency_case), ("n", live.idle_case),
    ("j", files.migrate), ("m", counters.case),
    ("seeds", seeds.case), ("save_memory", save_memory.case), ("tomany", tomany.case),
    ("schema_change", schema_change.case), ("roundtrip", roundtrip.case),
    ("pg_seeds", pg_writes.seeds_case), ("pg_concurrent", pg_writes.concurrent_case), ("pg_copy", pg_reads.copy_case),
    ("pg_fetch", pg_reads.fetch_case), ("pg_full", pg_reads.full_case), ("pg_export", pg_reads.export_case),
]
NAMES = [name for name, _ in CASES]


def selected(only: str | None) -> list[str]:
    if only is None:
        return NAMES
    names = [n.strip() for n in only.split(",") if n.strip()]
    unknown = [n for n in names if n not in NAMES]
    if unknown or not names:
        sys.exit(f"--only: unknown case {', '.join(unknown) or '(none given)'}; the cases are {', '.join(NAMES)}")
    return [n for n in NAMES if n in names]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=str(ROOT / ".build" / "release" / "modelstore"))
    ap.add_argument("--quick", action="store_true", help="smaller sizes (for smoke runs)")
    ap.add_argument("--runs", type=int, default=3, help="side-by-side rounds of each compared case (default 3)")
    ap.add_argument("--only", metavar="CASES", help="comma-separated case names, e.g. a,seeds,tomany (default: all): "
                    + ",".join(NAMES))
    ap.add_argument("--out", default=str(ROOT / "bench-out"))
    args = ap.parse_args()
    if args.runs < 1:
        sys.exit("--runs must be at least 1")
    names = selected(args.only)
    if not shutil.which("sqlite3"):
        sys.exit("the sqlite3 CLI is needed: apt-get install sqlite3")
    if not os.access(TIME, os.X_OK):
        sys.exit("GNU time is needed for peak memory: apt-get install time")
    if not os.access(args.binary, os.X_OK):
        sys.exit(f"no modelstore binary at {args.binary}: run 'swift build -c release' first")
    out = Path(args.out).resolve()
    functions = dict(CASES)
    results_file = out / "results.json"
    results: dict = json.loads(results_file.read_text()) if args.only and results_file.exists() else {}
    sqlite_version = subprocess.run(["sqlite3", "--version"], capture_output=True, text=True).stdout.split()[0]
    failures = []
    print("| benchmark | modelstore | beside it (sqlite3 CLI unless named) | ratio | target |")
    print("|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="modelstore-bench-") as tmp:
        ctx = Context(binary=args.binary, work=Path(tmp), out=out, quick=args.quick, runs=args.runs)
        try:
            run_cases(ctx, names, functions, results, failures, args, sqlite_version)
        finally:
            pgcluster.stop()
    out.mkdir(parents=True, exist_ok=True)
    results_file.write_text(json.dumps(results, indent=2) + "\n")
    if failures:
        sys.exit("\n".join(failures))


def run_cases(ctx: Context, names: list[str], functions: dict, results: dict, failures: list, args, sqlite_version: str) -> None:
    """Runs the cases asked for, printing their rows as they come."""
    for name in names:
        load = os.getloadavg()[0]
        outcome: Outcome = functions[name](ctx)
        for row in outcome.rows:
            print(f"| {row.benchmark} | {row.modelstore} | {row.reference} | {row.ratio} | {row.target} |", flush=True)
        outcome.results["measured"] = {"at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                                       "binary": args.binary, "quick": args.quick, "runs": args.runs, "sqlite3": sqlite_version,
                                       "load_average_1min": [load, os.getloadavg()[0]]}
        results[name] = outcome.results
        if outcome.failure:
            failures.append(f"({name}) failed: {outcome.failure}")

if __name__ == "__main__":
    main()
