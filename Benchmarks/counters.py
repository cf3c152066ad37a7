#!/usr/bin/env python3
"""Optimistic locking under load: P server processes on one file store, each adding 1 to
one counter for S seconds with the documented recipe (objects.get {withVersion: true},
then objects.update {ifVersion}, again from the read on `conflict` or `busy`).

Reports increments per second and checks that nothing was lost: the final value equals
the number of successful updates, every update returned its own `_version`, and no read
paired a value with another state's version (a new object is at version 1 with value 0
and each increment raises both by one, so every state has value == version - 1).

Usage: python3 Benchmarks/counters.py [--binary PATH] [--processes 4] [--seconds 600]
(MODELSTORE_BENCH_COUNTER_SECONDS sets the default duration). Exits 1 when an increment
was lost or a check failed. `make bench` runs it as case (m) through run.py (`case`).
"""
from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import tempfile
import time
from pathlib import Path

from benchlib import Context, Outcome, Row

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "Clients" / "python" / "src"))
from modelstore_client import Client  # noqa: E402 (the client ships in this repository)
from modelstore_client.errors import BusyError, ConflictError  # noqa: E402

SCHEMA = {"version": "1.0.0", "entities": [{"name": "Counter", "attributes": [{"name": "value", "type": "int64", "default": 0}]}]}
DEFAULT_SECONDS = float(os.environ.get("MODELSTORE_BENCH_COUNTER_SECONDS", "600"))


def worker(binary: str, store: str, oid: str, seconds: float, out) -> None:
    """Increments until the time is up; sends back what it saw."""
    versions: list[int] = []
    conflicts = busy = 0
    problems: list[str] = []
    with Client(binary, store=store) as c:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and len(problems) < 20:
            try:
                o = c.get(oid, with_version=True)
                value, version = o["value"], o["_version"]
                if value != version - 1:
                    problems.append(f"read value {value} with version {version}")
                u = c.update(oid, {"value": value + 1}, if_version=version)
            except ConflictError:
                conflicts += 1
                continue
            except BusyError:
                busy += 1
                continue
            if u["value"] != value + 1 or u["_version"] != version + 1:
                problems.append(f"update from ({value}, {version}) returned ({u['value']}, {u['_version']})")
            versions.append(u["_version"])
    out.put({"versions": versions, "conflicts": conflicts, "busy": busy, "problems": problems})


def run(binary: str, work: Path, processes: int, seconds: float) -> dict:
    """Runs the workers on a fresh store in `work`; returns the figures and the checks."""
    store = str(work / "counter.store")
    for suffix in ("", "-wal", "-shm"):
        Path(store + suffix).unlink(missing_ok=True)
    with Client(binary, store=store) as c:
        c.model_define(SCHEMA)
        oid = c.insert("Counter", {})["_id"]
    ctx = multiprocessing.get_context("spawn")
    out = ctx.Queue()
    procs = [ctx.Process(target=worker, args=(binary, store, oid, seconds, out)) for _ in range(processes)]
    started = time.perf_counter()
    for p in procs:
        p.start()
    results = [out.get(timeout=seconds + 120) for _ in procs]
    elapsed = time.perf_counter() - started
    for p in procs:
        p.join()
    with Client(binary, store=store) as c:
        final = c.get(oid, with_version=True)
    versions = [v for r in results for v in r["versions"]]
    done = len(versions)
    return {
        "processes": processes,
        "seconds": elapsed,
        "increments": done,
        "final_value": final["value"],
        "final_version": final["_version"],
        "lost": done - final["value"],
        "duplicate_versions": done - len(set(versions)),
        "conflicts": sum(r["conflicts"] for r in results),
        "busy": sum(r["busy"] for r in results),
        "problems": [p for r in results for p in r["problems"]][:20],
        "increments_per_second": done / elapsed,
    }


def ok(r: dict) -> bool:
    """Nothing lost, each update its own version, every read consistent."""
    return r["lost"] == 0 and r["duplicate_versions"] == 0 and not r["problems"] and r["final_version"] == r["increments"] + 1


def report(r: dict) -> str:
    return (f"{r['processes']} processes, {r['seconds']:.0f} s: {r['increments']:,} increments "
            f"({r['increments_per_second']:.0f}/s), lost {r['lost']}, duplicate versions {r['duplicate_versions']}, "
            f"conflicts retried {r['conflicts']:,}, busy retried {r['busy']:,}, inconsistent reads {len(r['problems'])}")


def case(ctx: Context) -> Outcome:
    """(m): 4 processes for MODELSTORE_BENCH_COUNTER_SECONDS (600 s; 30 s with --quick)."""
    r = run(ctx.binary, ctx.work, 4, float(os.environ.get("MODELSTORE_BENCH_COUNTER_SECONDS", "30" if ctx.quick else "600")))
    row = Row(f"(m) 4 processes incrementing one counter with ifVersion, {r['seconds']:.0f} s",
              f"{r['increments']:,} increments, {r['increments_per_second']:.0f}/s, {r['conflicts']:,} conflicts retried",
              "", "", f"lost {r['lost']} (must be 0)")
    failure = None if ok(r) else report(r) + "".join("\n  " + p for p in r["problems"])
    return Outcome(r, [row], failure)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=str(ROOT / ".build" / "release" / "modelstore"))
    ap.add_argument("--processes", type=int, default=4)
    ap.add_argument("--seconds", type=float, default=DEFAULT_SECONDS)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="modelstore-counters-") as tmp:
        r = run(args.binary, Path(tmp), args.processes, args.seconds)
    print(report(r))
    for p in r["problems"]:
        print("  " + p)
    sys.exit(0 if ok(r) else 1)


if __name__ == "__main__":
    main()
