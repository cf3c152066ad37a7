"""Latency cases on raw JSON-RPC pipes:

  (c) K sequential objects.get round trips from a Python loop (median and p99 round trip)
  (d) start-up: spawn to the initialize reply (median of R), beside spawning the CLI
"""
from __future__ import annotations

import statistics
import subprocess
import sys
import time

from benchlib import Context, Outcome, Row, fresh, rpc
from layout import SCHEMA, rows, values


def roundtrips(ctx: Context) -> Outcome:
    k = 1_000 if ctx.quick else 10_000
    db = fresh(ctx.work, "rt.store")
    p = subprocess.Popen([ctx.binary, "serve", "--store", str(db)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    reader = p.stdout

    def call(i, method, params):
        p.stdin.write((rpc(i, method, params) + "\n").encode())
        line = reader.readline()
        if b'"error"' in line:
            sys.exit(f"round-trip benchmark failed: {line[:200]!r}")
        return line

    call(0, "model.define", {"schema": SCHEMA})
    call(1, "context.save", {"changes": [{"op": "insert", "entity": "Task", "values": values(r)} for r in rows(1000)]})
    samples = []
    for i in range(k):
        start = time.perf_counter()
        call(i + 2, "objects.get", {"id": f"Task/{i % 1000 + 1}"})
        samples.append(time.perf_counter() - start)
    p.stdin.close()
    p.wait()
    samples.sort()
    med, p99 = statistics.median(samples), samples[int(len(samples) * 0.99)]
    r = {"median_us": med * 1e6, "p99_us": p99 * 1e6, "round_trips": k}
    return Outcome(r, [Row(f"(c) {k:,} sequential objects.get round trips", f"median {med * 1e6:.0f} us, p99 {p99 * 1e6:.0f} us",
                           "", "", "report")])


def startup(ctx: Context) -> Outcome:
    starts = 10 if ctx.quick else 50
    init = (rpc(1, "initialize", {}) + "\n").encode()
    ours, cli = [], []
    for _ in range(starts):
        start = time.perf_counter()
        p = subprocess.Popen([ctx.binary, "serve", "--memory"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
        p.stdin.write(init)
        p.stdout.readline()
        ours.append(time.perf_counter() - start)
        p.stdin.close()
        p.wait()
        start = time.perf_counter()
        subprocess.run(["sqlite3", ":memory:", "SELECT 1;"], stdout=subprocess.DEVNULL, check=True)
        cli.append(time.perf_counter() - start)
    r = {"median_ms": statistics.median(ours) * 1e3, "cli_median_ms": statistics.median(cli) * 1e3, "starts": starts,
         "target_ms": 15, "runs_ms": [t * 1e3 for t in ours], "cli_runs_ms": [t * 1e3 for t in cli]}
    return Outcome(r, [Row(f"(d) start-up to initialize reply (median of {starts})", f"{r['median_ms']:.1f} ms",
                           f"{r['cli_median_ms']:.1f} ms (spawn, SELECT 1)", "", "<= 15 ms")])
