#!/usr/bin/env python3
"""ModelStore benchmarks, each run side by side with the sqlite3 CLI doing the same work.

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
  (k) the cost of history: (a) again with `serve --no-history`; the ratio is (a) / (k)
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

Usage: python3 Benchmarks/run.py [--binary PATH] [--quick] [--out DIR]
Prints a Markdown table of times and ratios; writes results.json to --out.
"""
from __future__ import annotations

import argparse
import counters  # Benchmarks/counters.py: case (m)
import live  # Benchmarks/live.py: cases (l) and (n)
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

ROOT = Path(__file__).resolve().parent.parent
TIME = "/usr/bin/time"  # GNU time (Debian package `time`), for peak memory

# The seed's Task entity, with every value given explicitly so both sides insert the
# same bytes: a unique uuid (so both maintain the same unique index), a title, a flag,
# a date and an integer.
SCHEMA = {
    "version": "1.0.0",
    "entities": [
        {
            "name": "Task",
            "attributes": [
                {"name": "id", "type": "uuid", "unique": True},
                {"name": "title", "type": "string"},
                {"name": "isCompleted", "type": "bool"},
                {"name": "createdAt", "type": "date"},
                {"name": "priority", "type": "int"},
            ],
        }
    ],
}

# The table ModelStore creates for that schema (StorageLayout, storage format 2: `_ent`
# is the entity's code, Task's is 1; a uuid is a 16-byte BLOB), and its unique index.
CLI_DDL = (
    'CREATE TABLE "Task" ("_pk" INTEGER PRIMARY KEY, "_ent" INTEGER NOT NULL, '
    '"_opt" INTEGER NOT NULL DEFAULT 1, "id" BLOB, "title" TEXT, "isCompleted" INTEGER, '
    '"createdAt" REAL, "priority" INTEGER);\n'
    'CREATE UNIQUE INDEX "_ux_Task_1" ON "Task" ("id");\n'
)
# What the CLI reads for "id": the canonical text ModelStore answers with, from the blob.
CLI_ID_TEXT = ("substr(hex(\"id\"), 1, 8) || '-' || substr(hex(\"id\"), 9, 4) || '-' || substr(hex(\"id\"), 13, 4) || '-' || "
               "substr(hex(\"id\"), 17, 4) || '-' || substr(hex(\"id\"), 21, 12) AS \"id\"")
CLI_COLUMNS = f'"_pk", "_ent", {CLI_ID_TEXT}, "title", "isCompleted", "createdAt", "priority"'
PRAGMAS = "PRAGMA journal_mode=WAL;\nPRAGMA synchronous=NORMAL;\n"
EPOCH_2026 = 1767225600  # 2026-01-01T00:00:00Z


def rows(n: int):
    """Deterministic row values: (uuid, title, completed, seconds, iso, priority)."""
    for i in range(n):
        u = str(uuid.UUID(int=(i * 0x9E3779B97F4A7C15 + 0x1234567) % (1 << 128), version=4)).upper()
        secs = EPOCH_2026 + i
        iso = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(secs))
        yield u, f"task number {i}", i % 3 == 0, secs, iso, i % 5


def rpc(id_, method, params=None) -> str:
    m = {"jsonrpc": "2.0", "id": id_, "method": method}
    if params is not None:
        m["params"] = params
    return json.dumps(m, separators=(",", ":"))


def values(r):
    u, title, done, _, iso, prio = r
    return {"id": u, "title": title, "isCompleted": done, "createdAt": iso, "priority": prio}


def cli_insert(r) -> str:
    u, title, done, secs, _, prio = r
    return (
        'INSERT INTO "Task" ("_ent", "id", "title", "isCompleted", "createdAt", "priority") '
        f"VALUES (1, X'{u.replace('-', '')}', '{title}', {1 if done else 0}, {float(secs)!r}, {prio});\n"
    )


def run_timed(argv, stdin_path: Path, stdout_path: Path | None = None):
    """Runs a process with a file on stdin; returns (seconds, peak RSS in KiB).

    The peak is read by GNU time, not from this process's wait4: a child forked from a
    large Python process reports the parent's resident size until it execs.
    """
    with tempfile.NamedTemporaryFile("r", suffix=".rss") as rss, open(stdin_path, "rb") as fin, \
            open(stdout_path or os.devnull, "wb") as fout:
        start = time.perf_counter()
        p = subprocess.run([TIME, "-f", "%M", "-o", rss.name, *argv], stdin=fin, stdout=fout, stderr=subprocess.PIPE)
        elapsed = time.perf_counter() - start
        if p.returncode != 0:
            sys.exit(f"{argv[0]} failed ({p.returncode}): {p.stderr.decode()[-2000:]}")
        peak = int(rss.read().split()[-1])
    return elapsed, peak


def check_replies(path: Path, expected: int):
    n = 0
    with open(path, "rb") as f:
        for line in f:
            n += 1
            if b'"error"' in line:
                sys.exit(f"benchmark request failed: {line[:300]!r}")
    if n != expected:
        sys.exit(f"expected {expected} replies, got {n}")


def count_rows(db: Path) -> int:
    out = subprocess.run(["sqlite3", str(db), 'SELECT count(*) FROM "Task"'], capture_output=True, text=True, check=True)
    return int(out.stdout.strip())


def median_of(runs, fn):
    results = [fn() for _ in range(runs)]
    times = sorted(r[0] for r in results)
    return statistics.median(times), max(r[1] for r in results)


def write_insert_script(sql: Path, n: int) -> None:
    """The CLI's side of (a) and (b): n INSERT statements in one transaction."""
    with open(sql, "w") as f:
        f.write(PRAGMAS + CLI_DDL + "BEGIN;\n")
        for r in rows(n):
            f.write(cli_insert(r))
        f.write("COMMIT;\n")


def fresh(work: Path, name: str) -> Path:
    """A store path with no file (or WAL/SHM side files) left from an earlier run."""
    for p in work.glob(name + "*"):
        p.unlink()
    return work / name


def serve_requests(binary: str, work: Path, req: Path, replies: int, rows_expected: int, extra=()):
    """`serve` on a fresh store fed `req`; checks the replies and the rows, returns (s, KiB)."""
    db = fresh(work, "ours.store")
    out = work / "replies.jsonl"
    t, rss = run_timed([binary, "serve", "--store", str(db), *extra, "--max-message-bytes", str(1 << 28)], req, out)
    check_replies(out, replies)
    assert count_rows(db) == rows_expected
    return t, rss


def cli_script(db: Path, sql: Path, rows_expected: int):
    """The sqlite3 CLI running `sql` on `db`; checks the rows, returns (s, KiB)."""
    t, rss = run_timed(["sqlite3", str(db)], sql)
    assert count_rows(db) == rows_expected
    return t, rss


def insert_pair(binary: str, work: Path, req: Path, sql: Path, rows_expected: int, replies: int, runs: int):
    """Times the server on `req` and the CLI on `sql`, each into a fresh database, and
    checks that both hold the same number of rows."""

    def ours():
        return serve_requests(binary, work, req, replies, rows_expected)

    def cli():
        return cli_script(fresh(work, "cli.db"), sql, rows_expected)

    return median_of(runs, ours), median_of(runs, cli)


def bench_pipelined(binary: str, work: Path, n: int, runs: int):
    req = work / f"a{n}.jsonl"
    sql = work / f"a{n}.sql"
    with open(req, "w") as f:
        f.write(rpc(0, "model.define", {"schema": SCHEMA}) + "\n")
        f.write(rpc("begin", "transaction.begin") + "\n")
        for i, r in enumerate(rows(n)):
            f.write(rpc(i + 1, "objects.insert", {"entity": "Task", "values": values(r)}) + "\n")
        f.write(rpc("commit", "transaction.commit") + "\n")
    write_insert_script(sql, n)
    return insert_pair(binary, work, req, sql, n, n + 3, runs)


def bench_save(binary: str, work: Path, m: int, runs: int):
    req = work / f"b{m}.jsonl"
    sql = work / f"b{m}.sql"
    changes = [{"op": "insert", "entity": "Task", "values": values(r)} for r in rows(m)]
    with open(req, "w") as f:
        f.write(rpc(0, "model.define", {"schema": SCHEMA}) + "\n")
        f.write(rpc(1, "context.save", {"changes": changes}) + "\n")
    write_insert_script(sql, m)
    return insert_pair(binary, work, req, sql, m, 2, runs)


def bench_roundtrips(binary: str, work: Path, k: int):
    db = fresh(work, "rt.store")
    p = subprocess.Popen([binary, "serve", "--store", str(db)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
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
    return statistics.median(samples), samples[int(len(samples) * 0.99)]


def bench_startup(binary: str, runs: int):
    init = (rpc(1, "initialize", {}) + "\n").encode()
    ours, cli = [], []
    for _ in range(runs):
        start = time.perf_counter()
        p = subprocess.Popen([binary, "serve", "--memory"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
        p.stdin.write(init)
        p.stdout.readline()
        ours.append(time.perf_counter() - start)
        p.stdin.close()
        p.wait()
        start = time.perf_counter()
        subprocess.run(["sqlite3", ":memory:", "SELECT 1;"], stdout=subprocess.DEVNULL, check=True)
        cli.append(time.perf_counter() - start)
    return statistics.median(ours), statistics.median(cli)


# The same entity with `priority` indexed, for the query cases (e) and (f).
QUERY_SCHEMA = copy.deepcopy(SCHEMA)
next(a for a in QUERY_SCHEMA["entities"][0]["attributes"] if a["name"] == "priority")["indexed"] = True


def query_store(binary: str, work: Path, q: int) -> Path:
    """A store with q Tasks (and priority indexed), built through context.save."""
    db = work / f"q{q}.store"
    if db.exists():
        return db
    req = work / f"q{q}.jsonl"
    with open(req, "w") as f:
        f.write(rpc(0, "model.define", {"schema": QUERY_SCHEMA}) + "\n")
        batch, n = [], 0
        for r in rows(q):
            batch.append({"op": "insert", "entity": "Task", "values": values(r)})
            if len(batch) == 50_000:
                n += 1
                f.write(rpc(n, "context.save", {"changes": batch}) + "\n")
                batch = []
        if batch:
            f.write(rpc(n + 1, "context.save", {"changes": batch}) + "\n")
    run_timed([binary, "serve", "--store", str(db), "--max-message-bytes", str(1 << 28)], req)
    assert count_rows(db) == q
    return db


def bench_indexed_fetch(binary: str, work: Path, q: int, repeats: int):
    db = query_store(binary, work, q)
    fetch = {"entity": "Task", "where": "priority == 2 AND isCompleted == NO",
             "sort": [{"key": "createdAt", "ascending": True}], "limit": 100}
    req = work / "e.jsonl"
    with open(req, "w") as f:
        for i in range(repeats):
            f.write(rpc(i, "query.fetch", fetch) + "\n")
    sql = work / "e.sql"
    one = (f'SELECT {CLI_COLUMNS} FROM "Task" '
           'WHERE "priority" = 2 AND "isCompleted" = 0 ORDER BY "createdAt" ASC, "_pk" ASC LIMIT 100;\n')
    sql.write_text(".mode json\n" + one * repeats)
    out = work / "e.out"
    ours = median_of(3, lambda: run_timed([binary, "serve", "--store", str(db), "--read-only"], req, out))
    check_replies(out, repeats)
    cli = median_of(3, lambda: run_timed(["sqlite3", "-readonly", str(db)], sql, work / "e.cli"))
    return ours, cli


def bench_full_fetch(binary: str, work: Path, q: int, f_count: int):
    db = query_store(binary, work, q)
    req = work / "f.jsonl"
    req.write_text(rpc(1, "query.fetch", {"entity": "Task", "limit": f_count}) + "\n")
    sql = work / "f.sql"
    sql.write_text(f'.mode json\nSELECT {CLI_COLUMNS} FROM "Task" ORDER BY "_pk" LIMIT {f_count};\n')
    out = work / "f.out"
    ours = median_of(3, lambda: run_timed([binary, "serve", "--store", str(db), "--read-only"], req, out))
    check_replies(out, 1)
    cli = median_of(3, lambda: run_timed(["sqlite3", "-readonly", str(db)], sql, work / "f.cli"))
    return ours, cli


def export_file(binary: str, work: Path, db: Path, name: str):
    """`modelstore export` of the whole store to a new file; (seconds, peak KiB), path."""
    out = fresh(work, name)
    t, rss = run_timed([binary, "export", "--store", str(db), "--out", str(out), "--format", "ndjson"], Path(os.devnull))
    return (t, rss), out


def bench_export(binary: str, work: Path, q: int, runs: int):
    db = query_store(binary, work, q)
    results = [export_file(binary, work, db, f"g{q}.ndjson") for _ in range(runs)]
    out = results[-1][1]
    with open(out, "rb") as f:
        lines = sum(1 for _ in f)
    if lines != q + 1:
        sys.exit(f"the export of {q} objects has {lines} lines, expected {q + 1}")
    ours = (statistics.median(sorted(r[0][0] for r in results)), max(r[0][1] for r in results))
    sql = work / "g.sql"
    sql.write_text(f'.mode json\nSELECT {CLI_COLUMNS} FROM "Task" ORDER BY "_pk";\n')
    cli = median_of(runs, lambda: run_timed(["sqlite3", "-readonly", str(db)], sql, work / "g.cli"))
    return ours, cli, out


def bench_export_memory(binary: str, work: Path, q_small: int):
    """Peak RSS of exporting a store of q_small objects (beside (g)'s for Q)."""
    db = query_store(binary, work, q_small)
    (_, rss), out = export_file(binary, work, db, f"h{q_small}.ndjson")
    out.unlink()
    return rss


def bench_import(binary: str, work: Path, ndjson: Path, q: int, source: Path, runs: int):
    # The CLI's side: the tables and indexes of the store the file came from, then one
    # INSERT per row of the same values, in one transaction.
    ddl = subprocess.run(["sqlite3", "-readonly", str(source),
                          "SELECT sql || ';' FROM sqlite_master WHERE tbl_name = 'Task' AND sql IS NOT NULL "
                          "ORDER BY type DESC, name"], capture_output=True, text=True, check=True).stdout
    sql = work / f"i{q}.sql"
    with open(sql, "w") as f:
        f.write(PRAGMAS + ddl + "BEGIN;\n")
        for r in rows(q):
            f.write(cli_insert(r))
        f.write("COMMIT;\n")

    def ours():
        db = fresh(work, "imported.store")
        t, rss = run_timed([binary, "import", "--store", str(db), str(ndjson)], Path(os.devnull))
        assert count_rows(db) == q
        return t, rss

    def cli():
        return cli_script(fresh(work, "imported.db"), sql, q)

    return median_of(runs, ours), median_of(runs, cli)


def bench_no_history(binary: str, work: Path, n: int, runs: int):
    """(a) with `--no-history`: the same requests, no history written."""
    req = work / f"a{n}.jsonl"  # written by bench_pipelined
    return median_of(runs, lambda: serve_requests(binary, work, req, n + 3, n, extra=("--no-history",)))


def bench_migrate(binary: str, work: Path, source: Path, q: int, runs: int):
    """(j): one lightweight stage on a copy of the q-object store, beside the CLI."""
    v2 = copy.deepcopy(QUERY_SCHEMA)
    v2["version"] = "2.0.0"
    attrs = v2["entities"][0]["attributes"]
    next(a for a in attrs if a["name"] == "title").update(name="name", originalName="title")
    attrs.append({"name": "notes", "type": "string", "default": ""})
    schema_file = work / "v2.json"
    schema_file.write_text(json.dumps(v2))
    sql = work / "migrate.sql"
    sql.write_text(PRAGMAS + 'BEGIN;\nALTER TABLE "Task" RENAME COLUMN "title" TO "name";\n'
                   'ALTER TABLE "Task" ADD COLUMN "notes" TEXT;\nUPDATE "Task" SET "notes" = \'\' WHERE "notes" IS NULL;\nCOMMIT;\n')

    def copy_of(name: str) -> Path:
        db = fresh(work, name)
        shutil.copyfile(source, db)
        return db

    def ours():
        db = copy_of("migrated.store")
        t, rss = run_timed([binary, "migrate", "--store", str(db), "--to", str(schema_file), "--no-backup"], Path(os.devnull))
        assert count_rows(db) == q
        return t, rss

    def cli():
        return cli_script(copy_of("migrated.db"), sql, q)

    return median_of(runs, ours), median_of(runs, cli)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=str(ROOT / ".build" / "release" / "modelstore"))
    ap.add_argument("--quick", action="store_true", help="smaller sizes (for CI smoke runs)")
    ap.add_argument("--out", default=str(ROOT / "bench-out"))
    args = ap.parse_args()
    if not shutil.which("sqlite3"):
        sys.exit("the sqlite3 CLI is needed: apt-get install sqlite3")
    if not os.access(TIME, os.X_OK):
        sys.exit("GNU time is needed for peak memory: apt-get install time")
    if not os.access(args.binary, os.X_OK):
        sys.exit(f"no modelstore binary at {args.binary}: run 'swift build -c release' first")
    n, n_small, m, k, starts, runs = (20_000, 5_000, 10_000, 1_000, 10, 1) if args.quick else (200_000, 50_000, 100_000, 10_000, 50, 3)
    q, q_repeats, f_count = (100_000, 50, 20_000) if args.quick else (1_000_000, 100, 100_000)
    m_seconds = float(os.environ.get("MODELSTORE_BENCH_COUNTER_SECONDS", "30" if args.quick else "600"))

    results: dict = {"sizes": {"a": n, "a_small": n_small, "b": m, "c": k, "d": starts}}
    with tempfile.TemporaryDirectory(prefix="modelstore-bench-") as tmp:
        work = Path(tmp)
        (a_t, a_rss), (a_cli, a_cli_rss) = bench_pipelined(args.binary, work, n, runs)
        (s_t, s_rss), _ = bench_pipelined(args.binary, work, n_small, 1)
        (b_t, b_rss), (b_cli, _) = bench_save(args.binary, work, m, runs)
        c_med, c_p99 = bench_roundtrips(args.binary, work, k)
        d_ours, d_cli = bench_startup(args.binary, starts)
        (e_t, _), (e_cli, _) = bench_indexed_fetch(args.binary, work, q, q_repeats)
        (f_t, f_rss), (f_cli, f_cli_rss) = bench_full_fetch(args.binary, work, q, f_count)
        (g_t, g_rss), (g_cli, g_cli_rss), g_file = bench_export(args.binary, work, q, runs)
        g_bytes = g_file.stat().st_size
        h_rss_small = bench_export_memory(args.binary, work, q // 10)
        (i_t, i_rss), (i_cli, i_cli_rss) = bench_import(args.binary, work, g_file, q, query_store(args.binary, work, q), runs)
        k_t, _ = bench_no_history(args.binary, work, n, runs)
        l_med, l_p99 = live.latency(args.binary, work, 200 if args.quick else 500)
        n_pct, n_cpu = live.idle_cpu(args.binary, work, 10, 10 if args.quick else 60)
        (j_t, j_rss), (j_cli, _) = bench_migrate(args.binary, work, query_store(args.binary, work, q), q, runs)
        counter = counters.run(args.binary, work, 4, m_seconds)

    results.update(
        a={"seconds": a_t, "cli_seconds": a_cli, "ratio": a_t / a_cli, "peak_rss_kib": a_rss, "peak_rss_kib_small": s_rss,
           "cli_peak_rss_kib": a_cli_rss, "target_ratio": 1.5},
        b={"seconds": b_t, "cli_seconds": b_cli, "ratio": b_t / b_cli, "peak_rss_kib": b_rss, "target_ratio": 1.0},
        c={"median_us": c_med * 1e6, "p99_us": c_p99 * 1e6},
        d={"median_ms": d_ours * 1e3, "cli_median_ms": d_cli * 1e3, "target_ms": 15},
        e={"seconds": e_t, "cli_seconds": e_cli, "ratio": e_t / e_cli, "objects": q, "repeats": q_repeats, "target_ratio": 1.5},
        f={"seconds": f_t, "cli_seconds": f_cli, "ratio": f_t / f_cli, "objects": f_count, "peak_rss_kib": f_rss,
           "cli_peak_rss_kib": f_cli_rss, "target_ratio": 1.5},
        g={"seconds": g_t, "cli_seconds": g_cli, "ratio": g_t / g_cli, "objects": q, "bytes": g_bytes, "peak_rss_kib": g_rss,
           "cli_peak_rss_kib": g_cli_rss, "target_ratio": 1.5},
        h={"objects_small": q // 10, "objects": q, "peak_rss_kib_small": h_rss_small, "peak_rss_kib": g_rss,
           "ratio": g_rss / max(h_rss_small, 1), "target_ratio": 1.1, "target_peak_mib": 64},
        i={"seconds": i_t, "cli_seconds": i_cli, "ratio": i_t / i_cli, "objects": q, "peak_rss_kib": i_rss,
           "cli_peak_rss_kib": i_cli_rss, "target_ratio": 2.0},
        k={"seconds_with_history": a_t, "seconds_without": k_t, "ratio": a_t / k_t, "target_ratio": 1.15},
        l={"median_ms": l_med * 1e3, "p99_ms": l_p99 * 1e3, "target_median_ms": 2, "target_p99_ms": 10},
        n={"percent_of_one_core": n_pct, "cpu_seconds": n_cpu, "servers": 10, "target_percent": 0.1},
        j={"seconds": j_t, "cli_seconds": j_cli, "ratio": j_t / j_cli, "objects": q, "peak_rss_kib": j_rss},
        m=counter,
    )
    print(f"| benchmark | modelstore | sqlite3 CLI | ratio | target |")
    print(f"|---|---|---|---|---|")
    print(f"| (a) {n:,} pipelined objects.insert, one transaction | {a_t:.3f} s | {a_cli:.3f} s | {a_t / a_cli:.2f}x | <= 1.5x |")
    print(f"| (a) peak RSS, {n_small:,} vs {n:,} requests | {s_rss / 1024:.1f} MiB vs {a_rss / 1024:.1f} MiB | {a_cli_rss / 1024:.1f} MiB | {a_rss / max(s_rss, 1):.2f}x | flat |")
    print(f"| (b) one context.save of {m:,} inserts | {b_t:.3f} s | {b_cli:.3f} s | {b_t / b_cli:.2f}x | <= 1.0x |")
    print(f"| (c) {k:,} sequential objects.get round trips | median {c_med * 1e6:.0f} us, p99 {c_p99 * 1e6:.0f} us | | | report |")
    print(f"| (d) start-up to initialize reply (median of {starts}) | {d_ours * 1e3:.1f} ms | {d_cli * 1e3:.1f} ms (spawn, SELECT 1) | | <= 15 ms |")
    print(f"| (e) indexed fetch, limit 100, x{q_repeats} on {q:,} objects | {e_t:.3f} s | {e_cli:.3f} s (-json) | {e_t / e_cli:.2f}x | <= 1.5x |")
    print(f"| (f) full fetch of {f_count:,} objects serialized | {f_t:.3f} s, {f_rss / 1024:.0f} MiB | {f_cli:.3f} s, {f_cli_rss / 1024:.0f} MiB (-json) | {f_t / f_cli:.2f}x | <= 1.5x |")
    print(f"| (g) export of {q:,} objects as ndjson to a file | {g_t:.3f} s, {g_rss / 1024:.1f} MiB | {g_cli:.3f} s, {g_cli_rss / 1024:.1f} MiB (-json) | {g_t / g_cli:.2f}x | <= 1.5x |")
    print(f"| (h) export peak RSS, {q // 10:,} vs {q:,} objects | {h_rss_small / 1024:.1f} MiB vs {g_rss / 1024:.1f} MiB | | {g_rss / max(h_rss_small, 1):.2f}x | <= 1.1x, < 64 MiB |")
    print(f"| (i) import of that file ({q:,} objects) into an empty store | {i_t:.3f} s, {i_rss / 1024:.1f} MiB | {i_cli:.3f} s, {i_cli_rss / 1024:.1f} MiB (INSERT script) | {i_t / i_cli:.2f}x | <= 2.0x |")
    print(f"| (k) (a) with history vs --no-history | {a_t:.3f} s vs {k_t:.3f} s | | {a_t / k_t:.2f}x | <= 1.15x |")
    print(f"| (l) commit -> query/changed in another process | median {l_med * 1e3:.1f} ms, p99 {l_p99 * 1e3:.1f} ms | | | <= 2 ms, <= 10 ms |")
    print(f"| (n) 10 idle servers with one subscription each | {n_pct:.3f}% of one core ({n_cpu * 1e3:.1f} ms CPU) | | | < 0.1% |")
    print(f"| (j) lightweight migration of {q:,} objects (rename + defaulted column) | {j_t:.3f} s, {j_rss / 1024:.1f} MiB | {j_cli:.3f} s (same ALTER/UPDATE) | {j_t / j_cli:.2f}x | report |")
    print(f"| (m) 4 processes incrementing one counter with ifVersion, {counter['seconds']:.0f} s | {counter['increments']:,} increments, "
          f"{counter['increments_per_second']:.0f}/s, {counter['conflicts']:,} conflicts retried | | | lost {counter['lost']} (must be 0) |")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(results, indent=2) + "\n")
    if not counters.ok(counter):
        sys.exit("(m) failed: " + counters.report(counter) + "".join("\n  " + p for p in counter["problems"]))


if __name__ == "__main__":
    main()
