#!/usr/bin/env python3
"""Paging a table of 1,000,000 objects through `modelstore studio`, as its page does it.

The page pages with query.fetch, a sort, a limit, and for the next page a keyset predicate
on the sort key and the object's key (`title >= $v AND (title > $v OR SELF > $id)`; for
a descending sort `<=`, `<` and, as ties always follow the key ascending, `SELF > $id`),
never `offset`. This measures, over HTTP exactly as the page talks (a session opened with
GET /events, each message a POST /rpc on a kept-alive connection):

  first     the first page (limit 50) of the table sorted by an indexed attribute
  next      a next page by keyset from a position spread over the whole table
  desc      the same two, sorted descending
  key       first and next page in key order (no sort; keyset `SELF > $id`)
  unindexed first and next page sorted by an attribute without an index
  offset    the page at the same positions by `offset` instead (what keyset avoids)
  count     query.count of the entity (the page's row count)
  session   GET /events to its first event: a new page's session opening the store

each the median (and p95) of --runs requests, wall time from sending the request to the
whole reply read. The store is built once (by `modelstore import` of a generated ndjson
file) and kept in OUT for later runs. Beside the figures it prints SQLite's plan of the
keyset statement (EXPLAIN QUERY PLAN through the sqlite3 CLI, on the statement the
engine runs: see KEYSET_SQL).

Usage: python3 Benchmarks/studio_paging.py [--binary PATH] [--objects N] [--runs R] [--out DIR]
"""
from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = {
    "version": "1",
    "entities": [
        {
            "name": "Item",
            "attributes": [
                {"name": "title", "type": "string", "indexed": True},
                {"name": "rank", "type": "int"},
                {"name": "createdAt", "type": "date", "indexed": True},
            ],
        }
    ],
}
PAGE = 50
# The statement query.fetch runs for a keyset page sorted by title (as the engine builds it:
# the columns it reads, its WHERE from the predicate, ORDER BY the sort then the key).
KEYSET_SQL = (
    'SELECT t."_pk", 1, t."title", t."rank", t."createdAt" FROM "Item" t '
    'WHERE (t."title" >= ?1 AND (t."title" > ?2 OR t."_pk" > ?3)) ORDER BY t."title" ASC, t."_pk" ASC LIMIT 50'
)


def build_store(binary: str, store: Path, objects: int) -> None:
    if store.exists():
        return
    rng = random.Random(1)
    words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"]
    data = store.with_suffix(".ndjson")
    with open(data, "w") as f:
        header = {"format": "modelstore-export", "version": 1, "schema": SCHEMA, "entities": ["Item"]}
        f.write(json.dumps(header) + "\n")
        for i in range(1, objects + 1):
            title = f"{rng.choice(words)} {rng.choice(words)} {rng.randrange(100000):05d}"
            created = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(1_700_000_000 + rng.randrange(50_000_000)))
            f.write(json.dumps({"_id": f"Item/{i}", "_entity": "Item", "title": title, "rank": rng.randrange(1000),
                                "createdAt": created}) + "\n")
    started = time.perf_counter()
    subprocess.run([binary, "import", "--store", str(store), str(data), "--mode", "replace"], check=True)
    print(f"built {store} with {objects} objects in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    data.unlink()


class Studio:
    """A `modelstore studio` process, one page session and a kept-alive HTTP connection."""

    def __init__(self, binary: str, store: Path):
        self.process = subprocess.Popen([binary, "studio", "--store", str(store), "--read-only"],
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        url = self.process.stdout.readline().strip()
        rest = url[len("http://127.0.0.1:"):]
        self.port = int(rest.split("/")[0])
        self.token = url.split("token=")[1]
        self.events = http.client.HTTPConnection("127.0.0.1", self.port)
        self.events.request("GET", f"/events?token={self.token}")
        self.stream = self.events.getresponse()
        self.session = None
        while self.session is None:
            line = self.stream.readline().decode()
            if line.startswith("data: "):
                self.session = json.loads(line[6:])["session"]
        self.rpc_connection = http.client.HTTPConnection("127.0.0.1", self.port)
        self.next_id = 0

    def session_start(self) -> float:
        """Seconds from GET /events to its `session` event: a page's session opening the store."""
        started = time.perf_counter()
        connection = http.client.HTTPConnection("127.0.0.1", self.port)
        connection.request("GET", f"/events?token={self.token}")
        stream = connection.getresponse()
        while not stream.readline().startswith(b"data: "):
            pass
        elapsed = time.perf_counter() - started
        connection.close()
        return elapsed

    def rpc(self, method: str, params: dict) -> tuple[float, dict]:
        """The reply to one request and the seconds it took."""
        self.next_id += 1
        body = json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        headers = {"Content-Type": "application/json", "ModelStore-Session": self.session}
        started = time.perf_counter()
        self.rpc_connection.request("POST", f"/rpc?token={self.token}", body=body, headers=headers)
        reply = self.rpc_connection.getresponse().read()
        elapsed = time.perf_counter() - started
        message = json.loads(reply)
        if "error" in message:
            raise RuntimeError(f"{method} {params}: {message['error']}")
        return elapsed, message["result"]

    def close(self) -> None:
        self.events.close()
        self.rpc_connection.close()
        self.process.terminate()
        self.process.wait(timeout=60)


def keyset(key: str, descending: bool, last: dict) -> dict:
    """query.fetch params of the page after `last` (the previous page's last object)."""
    if key == "_pk":
        return {"where": "SELF > %@", "args": [last["_id"]]}
    strict, wide = ("<", "<=") if descending else (">", ">=")
    return {"where": f"{key} {wide} %@ AND ({key} {strict} %@ OR SELF > %@)",
            "args": [last[key], last[key], last["_id"]]}


def summary(seconds: list[float]) -> str:
    ms = sorted(s * 1000 for s in seconds)
    p95 = ms[min(len(ms) - 1, int(len(ms) * 0.95))]
    return f"median {statistics.median(ms):7.2f} ms   p95 {p95:7.2f} ms"


def measure(studio: Studio, objects: int, runs: int) -> dict:
    rng = random.Random(2)
    results: dict[str, list[float]] = {"session start (GET /events to its first event)": [studio.session_start() for _ in range(runs)]}
    cases = [("title", False, "first/next by title (indexed)"), ("title", True, "first/next by title descending"),
             ("_pk", False, "first/next in key order"), ("rank", False, "first/next by rank (no index)")]
    for key, descending, label in cases:
        sort = [] if key == "_pk" else [{"key": key, "ascending": not descending}]
        firsts, nexts, offsets = [], [], []
        for r in range(runs):
            t, first = studio.rpc("query.fetch", {"entity": "Item", "sort": sort, "limit": PAGE})
            assert len(first["objects"]) == PAGE
            firsts.append(t)
            position = rng.randrange(PAGE, objects - PAGE)
            # The page ending just before `position`, as the page would hold it.
            _, before = studio.rpc("query.fetch", {"entity": "Item", "sort": sort, "offset": position - 1, "limit": 1})
            last = before["objects"][0]
            t, page = studio.rpc("query.fetch", {"entity": "Item", "sort": sort, "limit": PAGE, **keyset(key, descending, last)})
            nexts.append(t)
            t, by_offset = studio.rpc("query.fetch", {"entity": "Item", "sort": sort, "offset": position, "limit": PAGE})
            offsets.append(t)
            assert [o["_id"] for o in page["objects"]] == [o["_id"] for o in by_offset["objects"]], (key, descending, position)
        results[f"{label}: first page"] = firsts
        results[f"{label}: next page (keyset)"] = nexts
        results[f"{label}: same page by offset"] = offsets
    counts = [studio.rpc("query.count", {"entity": "Item"})[0] for _ in range(runs)]
    results["query.count"] = counts
    return results


def plan(store: Path) -> list[str]:
    out = subprocess.run(["sqlite3", "-readonly", str(store), "EXPLAIN QUERY PLAN " + KEYSET_SQL.replace("?1", "'m'").replace("?2", "'m'").replace("?3", "500000")],
                         capture_output=True, text=True, check=True).stdout
    return [line for line in out.splitlines() if line.strip() and line.strip() != "QUERY PLAN"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--binary", default=str(ROOT / ".build/release/modelstore"))
    parser.add_argument("--objects", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--out", default=str(ROOT / "bench-out" / "studio-paging"))
    a = parser.parse_args()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    store = out / f"items-{a.objects}.store"
    build_store(a.binary, store, a.objects)
    print(f"plan of the keyset statement: {' / '.join(plan(store))}")
    studio = Studio(a.binary, store)
    load_before = os.getloadavg()
    try:
        results = measure(studio, a.objects, a.runs)
    finally:
        studio.close()
    load_after = os.getloadavg()
    print(f"{a.objects} objects, page of {PAGE}, {a.runs} runs each, over HTTP (POST /rpc, kept-alive connection); "
          f"load average (1 min) {load_before[0]:.2f} before, {load_after[0]:.2f} after, on {os.cpu_count()} cores:")
    for name, seconds in results.items():
        print(f"  {name:58} {summary(seconds)}")
    (out / "results.json").write_text(json.dumps({"loadavg": [load_before, load_after], **results}, indent=1))


if __name__ == "__main__":
    main()
