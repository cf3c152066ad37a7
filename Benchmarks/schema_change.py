#!/usr/bin/env python3
"""Lightweight schema changes through `model.define` on a store of N Task objects.

The store holds the seeds' model (Category 1-to-many Task; Task has a unique uuid `id`,
`title`, `isCompleted`, `createdAt`, `priority` and the to-one `category`), with N tasks
spread over 10 categories, written through `context.save` by `modelstore serve`. On a
copy of that store, one `serve --store FILE` process then receives three `model.define`
requests, one at a time, each timed from the request written to the reply read:

  (1) add an optional attribute `notes`
  (2) rename it to `memo` (`originalName`)
  (3) add `rank: int = 7`, a required attribute with a constant default

Before the first step the process has answered `initialize` and made one write (an
`objects.insert` of a Category): neither the process start nor the sync of a fresh -wal
file's header, which the first write after opening a file pays whatever it is, is timed.
The store file's size (with its -wal, after the checkpoint at exit) after step k is read in
a separate run that stops after step k. Each run starts from a fresh copy of the store;
the times are the median of --runs runs.

As run.py's case `schema_change`: N = 200,000 and 20,000, to show that the cost does not
grow with N (20,000 and 2,000 with --quick), --runs runs.

Usage: python3 Benchmarks/schema_change.py [--binary PATH] [--objects N] [--runs R] [--work DIR]
Prints a Markdown table; --json prints the figures as JSON instead.
"""
from __future__ import annotations

import argparse
import copy
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import seedmodel
from benchlib import ROOT, Context, Outcome, Row

# The seeds' model (seedmodel.py), but Category's `name` unique and without a default, as the
# README's figures were measured.
BASE = copy.deepcopy(seedmodel.SCHEMA)
BASE["version"] = "1"
BASE["entities"][0]["attributes"] = [{"name": "name", "type": "string", "unique": True}]


def versions():
    """The schema after each step, in order, with a label for each step."""
    v2 = copy.deepcopy(BASE)
    v2["version"] = "2"
    v2["entities"][1]["attributes"].append({"name": "notes", "type": "string", "optional": True})
    v3 = copy.deepcopy(v2)
    v3["version"] = "3"
    v3["entities"][1]["attributes"][-1] = {"name": "memo", "type": "string", "optional": True, "originalName": "notes"}
    v4 = copy.deepcopy(v3)
    v4["version"] = "4"
    v4["entities"][1]["attributes"][-1].pop("originalName")
    v4["entities"][1]["attributes"].append({"name": "rank", "type": "int", "default": 7})
    return [("add optional attribute", v2), ("rename it (originalName)", v3), ("add attribute with a constant default", v4)]


def rpc(id_, method, params=None) -> bytes:
    m = {"jsonrpc": "2.0", "id": id_, "method": method}
    if params is not None:
        m["params"] = params
    return (json.dumps(m, separators=(",", ":")) + "\n").encode()


def file_size(db: Path) -> int:
    return sum(p.stat().st_size for p in (db, Path(str(db) + "-wal")) if p.exists())


def build_store(binary: str, db: Path, n: int) -> None:
    req = db.with_suffix(".jsonl")
    with open(req, "wb") as f:
        f.write(rpc(0, "model.define", {"schema": BASE}))
        f.write(rpc(1, "context.save", {"changes": [
            {"op": "insert", "entity": "Category", "ref": f"$c{i}", "values": {"name": f"category {i}"}} for i in range(10)]}))
        batch = []
        for i in range(n):
            u = str(uuid.UUID(int=(i * 0x9E3779B97F4A7C15 + 0x1234567) % (1 << 128), version=4)).upper()
            batch.append({"op": "insert", "entity": "Task", "values": {
                "id": u, "title": f"task number {i}", "isCompleted": i % 3 == 0,
                "createdAt": time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(1767225600 + i)), "priority": i % 5, "category": f"Category/{i % 10 + 1}"}})
            if len(batch) == 50_000 or i == n - 1:
                f.write(rpc(2 + i, "context.save", {"changes": batch}))
                batch = []
    with open(req, "rb") as fin:
        p = subprocess.run([binary, "serve", "--store", str(db), "--max-message-bytes", str(1 << 28)],
                           stdin=fin, capture_output=True)
    req.unlink()
    if p.returncode != 0 or b'"error"' in p.stdout:
        sys.exit(f"building the store failed: {p.stdout[-500:]!r} {p.stderr[-500:]!r}")


def run_steps(binary: str, base: Path, work: Path, steps: int):
    """A fresh copy of the store; `steps` defines, each timed. Returns (seconds, size after)."""
    db = work / "run.store"
    for p in work.glob("run.store*"):
        p.unlink()
    shutil.copyfile(base, db)
    p = subprocess.Popen([binary, "serve", "--store", str(db)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    # Not timed: the process start, and the first write after opening the file (SQLite
    # syncs the header of a fresh -wal once, whatever the request).
    for i, (method, params) in enumerate([("initialize", {}), ("objects.insert", {"entity": "Category", "values": {"name": "first write"}})]):
        p.stdin.write(rpc(f"w{i}", method, params))
        if "error" in json.loads(p.stdout.readline()):
            sys.exit(f"{method} failed")
    times = []
    for i, (_, schema) in enumerate(versions()[:steps]):
        start = time.perf_counter()
        p.stdin.write(rpc(i, "model.define", {"schema": schema}))
        line = p.stdout.readline()
        times.append(time.perf_counter() - start)
        reply = json.loads(line)
        if "error" in reply:
            sys.exit(f"step {i + 1} failed: {line[:500]!r}")
    p.stdin.close()
    p.wait()
    return times, file_size(db)


def measure(binary: str, n: int, runs: int, work: Path):
    base = work / f"base{n}.store"
    if not base.exists():
        partial = work / f"building{n}.store"
        for p in work.glob(partial.name + "*"):
            p.unlink()
        build_store(binary, partial, n)
        partial.rename(base)
    labels = [label for label, _ in versions()]
    samples = [run_steps(binary, base, work, len(labels))[0] for _ in range(runs)]
    sizes = [run_steps(binary, base, work, k + 1)[1] for k in range(len(labels))]
    return {
        "objects": n,
        "sizeBefore": file_size(base),
        "steps": [
            {"step": label, "seconds": statistics.median(s[k] for s in samples), "runs": [s[k] for s in samples], "sizeAfter": sizes[k]}
            for k, label in enumerate(labels)
        ],
    }


def case(ctx: Context) -> Outcome:
    sizes = (20_000, 2_000) if ctx.quick else (200_000, 20_000)
    work = ctx.work / "schema_change"
    work.mkdir(exist_ok=True)
    results = {str(n): measure(ctx.binary, n, ctx.runs, work) for n in sizes}
    results.update(target_ms=50, target_size="unchanged")
    rows = []
    for n in sizes:
        r = results[str(n)]
        for s in r["steps"]:
            growth = s["sizeAfter"] - r["sizeBefore"]
            rows.append(Row(f"(schema_change) model.define on {n:,} Tasks: {s['step']}", f"{s['seconds'] * 1e3:.1f} ms, "
                            f"file {r['sizeBefore'] / 1e6:.2f} MB before, {s['sizeAfter'] / 1e6:.2f} MB after ({growth / 1e3:+.0f} KB)",
                            "", "", "<= 50 ms, file size unchanged"))
    return Outcome(results, rows)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=str(ROOT / ".build/release/modelstore"))
    ap.add_argument("--objects", type=int, default=200_000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--work", help="directory for the stores (default: a temporary one, removed after)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    work = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="ms-schema-change-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        r = measure(args.binary, args.objects, args.runs, work)
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)
    if args.json:
        print(json.dumps(r, indent=2))
        return
    mb = lambda b: f"{b / 1e6:.1f} MB"
    print(f"{r['objects']:,} Task objects, store {mb(r['sizeBefore'])}; median of {args.runs} runs")
    print("| step | time | file after |\n|---|---|---|")
    for s in r["steps"]:
        print(f"| {s['step']} | {s['seconds'] * 1000:.1f} ms | {mb(s['sizeAfter'])} |")


if __name__ == "__main__":
    main()
