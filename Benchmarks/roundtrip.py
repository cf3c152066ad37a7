#!/usr/bin/env python3
"""Round-trip overhead above the pipe floor, measured on raw JSON-RPC pipes.

One Python loop sends sequential `objects.get` requests for one small object to
`modelstore serve` and reads each reply before sending the next. The same loop, over the
same kind of pipes, drives `cat`: it writes the exact request bytes the server gets,
padded with trailing spaces (JSON whitespace) to the length of the server's reply, and
reads back the line `cat` echoes, which is exactly as long as the server's reply. So both
sides do the same Python work, the same system calls and move at least the same bytes; the
difference is the server's own cost per request (reading, parsing, handling, encoding,
writing, and the thread wake-ups in between).

The two loops run alternately in rounds (server, cat, server, cat, ...) so that drift in
the machine's load touches both alike. Each timed sample is one write plus one line read.

Where the processes run decides much of a round trip on a virtual machine, so it is set
for both loops alike (`--placement`):

  same   the Python loop and the child (server or cat) on one CPU: each message costs a
         context switch, and the difference is the server's own work;
  split  the child on another CPU than the loop: each message wakes the other CPU (tens of
         microseconds when it sleeps), for the server and for cat alike;
  free   wherever the scheduler puts them. Measured on the 2-core machine this is
         bimodal: cat, which works for a microsecond per line, stays on the loop's CPU,
         while a child that works for about 10 us per message is often moved to the
         other CPU and stays there, so the difference then holds two wake-ups of a
         sleeping CPU that cat does not pay.

As run.py's case `roundtrip`: K = 20,000 (2,000 with --quick) for the placements same and
split, `measure` run --runs times; each figure is the median of the runs'.

Usage: python3 Benchmarks/roundtrip.py [--binary PATH] [--count K] [--rounds R]
       [--placement same,split,free] [--json]
Prints, for each placement (default same,split), median and p99 of both loops and their
difference.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchlib import ROOT, Context, Outcome, Row

# One small object: the seed's Task with a few attributes.
SCHEMA = {
    "version": "1",
    "entities": [
        {
            "name": "Task",
            "attributes": [
                {"name": "title", "type": "string"},
                {"name": "isCompleted", "type": "bool"},
                {"name": "priority", "type": "int"},
            ],
        }
    ],
}
VALUES = {"title": "Buy milk", "isCompleted": False, "priority": 2}
# Request ids of one width, so every request (and so every reply) has the same length.
FIRST_ID = 1_000_000


def request_line(i: int, object_id: str) -> bytes:
    return (
        '{"jsonrpc":"2.0","id":%d,"method":"objects.get","params":{"id":"%s"}}\n' % (FIRST_ID + i, object_id)
    ).encode()


def placement_cpus(placement: str) -> tuple[set[int] | None, set[int] | None]:
    """The CPUs of the Python loop and of the child for a placement (None: any)."""
    cpus = sorted(os.sched_getaffinity(0))
    if placement == "same":
        return {cpus[0]}, {cpus[0]}
    if placement == "split":
        if len(cpus) < 2:
            sys.exit("--placement split needs two CPUs")
        return {cpus[0]}, {cpus[1]}
    if placement == "free":
        return None, None
    sys.exit(f"unknown placement {placement!r} (same, split, free)")


class Pipes:
    """A child process on pipes: unbuffered writes, buffered line reads. `cpus` pins the
    child, and every thread it starts, before it runs."""

    def __init__(self, argv: list[str], cpus: set[int] | None = None):
        pin = (lambda: os.sched_setaffinity(0, cpus)) if cpus else None
        self.p = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, bufsize=0, preexec_fn=pin
        )
        self.fd = self.p.stdin.fileno()
        self.reader = open(self.p.stdout.fileno(), "rb", buffering=1 << 16, closefd=False)

    def call(self, line: bytes) -> bytes:
        os.write(self.fd, line)
        return self.reader.readline()

    def close(self) -> None:
        self.p.stdin.close()
        self.p.wait()
        self.reader.close()
        self.p.stdout.close()


def timed_loop(pipes: Pipes, lines: list[bytes], expect: int) -> list[float]:
    """Sends each line and reads one line back; the time of each round trip."""
    samples = []
    write, readline, clock = os.write, pipes.reader.readline, time.perf_counter
    fd = pipes.fd
    for line in lines:
        start = clock()
        write(fd, line)
        reply = readline()
        samples.append(clock() - start)
        if len(reply) != expect or b'"error"' in reply:
            sys.exit(f"unexpected reply ({len(reply)} bytes, expected {expect}): {reply[:200]!r}")
    return samples


def start_server(binary: str, store: Path, cpus: set[int] | None = None) -> tuple[Pipes, str]:
    server = Pipes([binary, "serve", "--store", str(store)], cpus)
    for line in (
        json.dumps({"jsonrpc": "2.0", "id": 1, "method": "model.define", "params": {"schema": SCHEMA}}),
        json.dumps({"jsonrpc": "2.0", "id": 2, "method": "objects.insert", "params": {"entity": "Task", "values": VALUES}}),
    ):
        reply = json.loads(server.call((line + "\n").encode()))
        if "error" in reply:
            sys.exit(f"set-up failed: {reply['error']}")
    return server, reply["result"]["_id"]


def percentile(samples: list[float], q: float) -> float:
    s = sorted(samples)
    return s[min(len(s) - 1, int(len(s) * q))]


def measure(binary: str, count: int, rounds: int = 5, warmup: int = 200, placement: str = "same") -> dict:
    """Median and p99 (seconds) of `count` server round trips and of `count` cat echoes,
    with the processes placed as `placement` says."""
    loop_cpus, child_cpus = placement_cpus(placement)
    saved = os.sched_getaffinity(0)
    with tempfile.TemporaryDirectory(prefix="ms-roundtrip-") as tmp:
        server, object_id = start_server(binary, Path(tmp) / "rt.store", child_cpus)
        cat = Pipes(["cat"], child_cpus)
        try:
            if loop_cpus:
                os.sched_setaffinity(0, loop_cpus)
            requests = [request_line(i, object_id) for i in range(count + warmup)]
            reply_length = len(server.call(requests[0]))
            if any(len(r) > reply_length for r in requests):
                sys.exit("the reply is shorter than the request: cannot pad the request to it")
            echoes = [r[:-1] + b" " * (reply_length - len(r)) + b"\n" for r in requests]
            timed_loop(server, requests[:warmup], reply_length)
            timed_loop(cat, echoes[:warmup], reply_length)
            ours: list[float] = []
            floor: list[float] = []
            per_round = max(1, count // rounds)
            for start in range(warmup, warmup + count, per_round):
                end = min(start + per_round, warmup + count)
                ours += timed_loop(server, requests[start:end], reply_length)
                floor += timed_loop(cat, echoes[start:end], reply_length)
        finally:
            os.sched_setaffinity(0, saved)
            server.close()
            cat.close()
    result = {
        "placement": placement,
        "count": count,
        "request_bytes": len(requests[0]),
        "reply_bytes": reply_length,
        "server_median": statistics.median(ours),
        "server_p99": percentile(ours, 0.99),
        "cat_median": statistics.median(floor),
        "cat_p99": percentile(floor, 0.99),
    }
    result["overhead_median"] = result["server_median"] - result["cat_median"]
    result["overhead_p99"] = result["server_p99"] - result["cat_p99"]
    return result


PLACEMENTS = {
    "same": "the loop and the child on one CPU",
    "split": "the child on another CPU than the loop",
    "free": "placed by the scheduler",
}


def report(r: dict) -> str:
    def us(seconds: float) -> str:
        return f"{seconds * 1e6:.1f} us"

    return (
        f"{r['count']:,} sequential objects.get round trips ({r['request_bytes']} B request, {r['reply_bytes']} B reply), "
        f"{r['placement']}: {PLACEMENTS[r['placement']]}\n"
        f"  server     median {us(r['server_median'])}, p99 {us(r['server_p99'])}\n"
        f"  cat floor  median {us(r['cat_median'])}, p99 {us(r['cat_p99'])}\n"
        f"  overhead   median {r['overhead_median'] * 1e6:+.1f} us, p99 {r['overhead_p99'] * 1e6:+.1f} us"
    )


# Short labels of the placements for the table of run.py.
CASE_PLACEMENTS = {"same": "loop and child on one CPU", "split": "child on the other CPU"}
FIGURES = ("server_median", "server_p99", "cat_median", "cat_p99", "overhead_median", "overhead_p99")


def case(ctx: Context) -> Outcome:
    count = 2_000 if ctx.quick else 20_000
    results: dict = {"count": count, "target_overhead_us": 10}
    rows = []
    for placement, label in CASE_PLACEMENTS.items():
        runs = [measure(ctx.binary, count, placement=placement) for _ in range(ctx.runs)]
        r = {k: statistics.median(run[k] for run in runs) for k in FIGURES}
        results[placement] = {**r, "request_bytes": runs[0]["request_bytes"], "reply_bytes": runs[0]["reply_bytes"], "runs": runs}
        us = lambda k: f"{r[k] * 1e6:.1f} µs"
        rows.append(Row(f"(roundtrip) {count:,} sequential objects.get round trips from a Python loop, beside a `cat` echo "
                        f"of the same bytes ({label})", f"median {us('server_median')} (p99 {us('server_p99')})",
                        f"median {us('cat_median')} (p99 {us('cat_p99')}) (`cat`)", f"{r['overhead_median'] * 1e6:+.1f} µs",
                        "<= +10 µs above the floor"))
    return Outcome(results, rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=str(ROOT / ".build" / "release" / "modelstore"))
    ap.add_argument("--count", type=int, default=20_000)
    ap.add_argument("--rounds", type=int, default=5, help="alternations between the server and cat (default 5)")
    ap.add_argument("--placement", default="same,split", help="same, split and/or free, comma-separated (default same,split)")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON (seconds)")
    args = ap.parse_args()
    if not os.access(args.binary, os.X_OK):
        sys.exit(f"no binary at {args.binary} (swift build -c release, or --binary PATH)")
    results = [measure(args.binary, args.count, args.rounds, placement=p) for p in args.placement.split(",")]
    print(json.dumps(results, indent=2) if args.json else "\n".join(report(r) for r in results))


if __name__ == "__main__":
    main()
