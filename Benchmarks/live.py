#!/usr/bin/env python3
"""Live query cost, measured on raw JSON-RPC pipes (no client library in between):

  (l) latency: one server commits an insert (its reply marks the commit), another observes
      the entity; time until the observer's `query/changed` arrives (median and p99)
  (n) idle cost: N servers on one file with one subscription each and no traffic; CPU time
      they use together over S seconds (all threads, from /proc/PID/task/*/schedstat), as
      a percentage of one core

Usage: python3 Benchmarks/live.py [--binary PATH] [--commits L] [--servers N] [--seconds S]
(run.py runs both as cases (l) and (n), through latency_case and idle_case).
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from benchlib import Context, Outcome, Row, process_cpu_seconds

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = {"version": "1", "entities": [{"name": "Task", "attributes": [{"name": "title", "type": "string"}]}]}


class Server:
    """`modelstore serve` on pipes; a thread reads its output, stamping notifications."""

    def __init__(self, binary: str, store: Path, extra=()):
        self.p = subprocess.Popen([binary, "serve", "--store", str(store), *extra], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.next_id = 0
        self.replies: dict = {}
        self.changes: list = []
        self.cond = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.p.stdout:
            now = time.perf_counter()
            m = json.loads(line)
            with self.cond:
                if m.get("method") == "query/changed":
                    self.changes.append(now)
                elif "id" in m:
                    self.replies[m["id"]] = (now, m)
                self.cond.notify_all()

    def call(self, method: str, params: dict, timeout: float = 30):
        self.next_id += 1
        rid = self.next_id
        self.p.stdin.write((json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params}) + "\n").encode())
        self.p.stdin.flush()
        with self.cond:
            if not self.cond.wait_for(lambda: rid in self.replies, timeout):
                sys.exit(f"no reply to {method} within {timeout} s")
            at, m = self.replies.pop(rid)
        if "error" in m:
            sys.exit(f"{method} failed: {m['error']}")
        return at, m["result"]

    def wait_changes(self, count: int, timeout: float):
        with self.cond:
            if not self.cond.wait_for(lambda: len(self.changes) >= count, timeout):
                sys.exit(f"no query/changed within {timeout} s")
            return self.changes[count - 1]

    def cpu_seconds(self) -> float:
        return process_cpu_seconds(self.p.pid)

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=30)


def latency(binary: str, work: Path, commits: int):
    """(l): median and p99 seconds from a commit in one server to query/changed in another."""
    store = work / "live-latency.store"
    observer = Server(binary, store)
    observer.call("model.define", {"schema": SCHEMA})
    writer = Server(binary, store)
    observer.call("query.observe", {"entity": "Task"})
    samples = []
    try:
        for i in range(commits):
            committed, _ = writer.call("objects.insert", {"entity": "Task", "values": {"title": f"t{i}"}})
            arrived = observer.wait_changes(i + 1, 5)
            samples.append(max(arrived - committed, 0.0))
    finally:
        writer.close()
        observer.close()
    samples.sort()
    return statistics.median(samples), samples[min(len(samples) - 1, int(len(samples) * 0.99))]


def idle_cpu(binary: str, work: Path, servers: int, seconds: float):
    """(n): percent of one core used by `servers` idle observers together over `seconds`."""
    store = work / "live-idle.store"
    procs = [Server(binary, store)]
    procs[0].call("model.define", {"schema": SCHEMA})
    procs += [Server(binary, store) for _ in range(servers - 1)]
    try:
        for s in procs:
            s.call("query.observe", {"entity": "Task"})
        time.sleep(0.5)  # start-up done
        before = sum(s.cpu_seconds() for s in procs)
        start = time.monotonic()
        time.sleep(seconds)
        used = sum(s.cpu_seconds() for s in procs) - before
        elapsed = time.monotonic() - start
    finally:
        for s in procs:
            s.close()
    return 100.0 * used / elapsed, used


def latency_case(ctx: Context) -> Outcome:
    commits = 200 if ctx.quick else 500
    med, p99 = latency(ctx.binary, ctx.work, commits)
    r = {"median_ms": med * 1e3, "p99_ms": p99 * 1e3, "commits": commits, "target_median_ms": 2, "target_p99_ms": 10}
    return Outcome(r, [Row("(l) commit -> query/changed in another process", f"median {med * 1e3:.1f} ms, p99 {p99 * 1e3:.1f} ms",
                           "", "", "<= 2 ms, <= 10 ms")])


def idle_case(ctx: Context) -> Outcome:
    servers = 10
    pct, used = idle_cpu(ctx.binary, ctx.work, servers, 10 if ctx.quick else 60)
    r = {"percent_of_one_core": pct, "cpu_seconds": used, "servers": servers, "target_percent": 0.1}
    return Outcome(r, [Row(f"(n) {servers} idle servers with one subscription each", f"{pct:.3f}% of one core ({used * 1e3:.1f} ms CPU)",
                           "", "", "< 0.1%")])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=str(ROOT / ".build" / "release" / "modelstore"))
    ap.add_argument("--commits", type=int, default=500)
    ap.add_argument("--servers", type=int, default=10)
    ap.add_argument("--seconds", type=float, default=60)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="modelstore-live-") as tmp:
        med, p99 = latency(args.binary, Path(tmp), args.commits)
        print(f"(l) commit -> query/changed over {args.commits} commits: median {med * 1e3:.2f} ms, p99 {p99 * 1e3:.2f} ms")
        pct, used = idle_cpu(args.binary, Path(tmp), args.servers, args.seconds)
        print(f"(n) {args.servers} idle observers over {args.seconds:.0f} s: {used * 1e3:.1f} ms of CPU, {pct:.3f}% of one core")


if __name__ == "__main__":
    main()
