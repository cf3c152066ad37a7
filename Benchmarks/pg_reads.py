"""The read cases and `modelstore copy` on a PostgreSQL store (pgcluster.py's throwaway
server), beside psql running the same SQL on the same server:

  pg_copy   `modelstore copy` of the Q-object store (layout.py's, with priority indexed)
            from its SQLite file into a PostgreSQL schema and back into a new file: time and
            peak memory, at Q/10 and Q objects (streamed: the peak stays flat). The
            schema it makes is the store of the next cases.
  pg_fetch  (e) on that store: `priority == 2 AND isCompleted == NO` sorted by createdAt,
            limit 100, x100 over one server, beside psql running the same SELECT 100 times
            (unaligned output to a file)
  pg_full   (f) a full fetch of F objects serialized, beside psql's unaligned output of the
            same rows
  pg_export (g) `modelstore export` of the Q objects as ndjson to a file, beside psql's
            unaligned output of the same rows and columns to a file
"""
from __future__ import annotations

import sys
from pathlib import Path

import pgcluster
from benchlib import Context, Outcome, Row, check_replies, fresh, median, mib, rpc, run_measured, run_timed, side_by_side, summary
from layout import query_objects, query_store

SCHEMA = "bench_query"
# The columns (e) and (f) read, as the SQLite cases' CLI_COLUMNS: the uuid as its text.
COLUMNS = '"_pk", 1 AS "_ent", "id", "title", "isCompleted", "createdAt", "priority"'


def copy_once(ctx: Context, source: str, target: str) -> dict:
    """`modelstore copy` (its whole process: time, CPU, peak RSS)."""
    return run_measured([ctx.binary, "copy", "--from", source, "--to", target], Path("/dev/null"))


def pg_store(ctx: Context) -> str:
    """The Q-object store in PostgreSQL (copied from the SQLite one once per invocation)."""
    q = query_objects(ctx.quick)
    url = pgcluster.store_url(ctx, SCHEMA)
    if pgcluster.psql(ctx, f"SELECT count(*) FROM pg_namespace WHERE nspname = '{SCHEMA}'") == "0":
        pgcluster.fresh_schema(ctx, SCHEMA)
        copy_once(ctx, str(query_store(ctx.binary, ctx.work, q)), url)
        pgcluster.psql(ctx, f'ANALYZE "{SCHEMA}"."Task"')
    return url


def copy_case(ctx: Context) -> Outcome:
    q = query_objects(ctx.quick)
    results = {}
    for n in (q // 10, q):
        source = str(query_store(ctx.binary, ctx.work, n))
        schema = SCHEMA if n == q else f"bench_query_{n}"
        rounds = []
        for _ in range(ctx.runs):
            url = pgcluster.fresh_schema(ctx, schema)
            up = copy_once(ctx, source, url)
            back = fresh(ctx.work, "pg-copy-back.store")
            down = copy_once(ctx, url, str(back))
            rounds.append({"up_seconds": up["seconds"], "up_peak_rss_kib": up["peak_rss_kib"], "up_cpu_seconds": up["cpu_seconds"],
                           "down_seconds": down["seconds"], "down_peak_rss_kib": down["peak_rss_kib"],
                           "down_cpu_seconds": down["cpu_seconds"]})
        pgcluster.psql(ctx, f'ANALYZE "{schema}"."Task"')
        results[str(n)] = {"objects": n, "up_seconds": median(rounds, "up_seconds"), "down_seconds": median(rounds, "down_seconds"),
                           "up_peak_rss_kib": max(r["up_peak_rss_kib"] for r in rounds),
                           "down_peak_rss_kib": max(r["down_peak_rss_kib"] for r in rounds), "runs": rounds}
        if n != q:
            pgcluster.drop_schema(ctx, schema)
    small, large = results[str(q // 10)], results[str(q)]
    rows = [
        Row(f"(pg_copy) `modelstore copy` of {q:,} objects, SQLite file to PostgreSQL schema",
            f"{large['up_seconds']:.3f} s, {mib(large['up_peak_rss_kib'])} ({q // 10:,}: {mib(small['up_peak_rss_kib'])})",
            "", f"{large['up_seconds'] / small['up_seconds']:.1f}x time for 10x objects", "peak flat"),
        Row(f"(pg_copy) the same {q:,} objects back, PostgreSQL schema to a new SQLite file",
            f"{large['down_seconds']:.3f} s, {mib(large['down_peak_rss_kib'])} ({q // 10:,}: {mib(small['down_peak_rss_kib'])})",
            "", f"{large['down_seconds'] / small['down_seconds']:.1f}x time for 10x objects", "peak flat"),
    ]
    return Outcome(results, rows)


def psql_rounds(ctx: Context, req: Path, replies: int, sql: Path, name: str) -> dict:
    """Rounds of the server (read-only) on `req` beside psql on `sql`, output to files."""
    url = pg_store(ctx)
    out = ctx.work / f"{name}.out"

    def ours():
        t = run_timed([ctx.binary, "serve", "--store", url, "--read-only"], req, out)
        check_replies(out, replies)
        return t

    return summary(side_by_side(ctx.runs, ours, lambda: run_timed(
        pgcluster.psql_argv(ctx, "-A", "-t", "-f", str(sql), "-o", str(ctx.work / f"{name}.psql")), Path("/dev/null"))))


def fetch_case(ctx: Context) -> Outcome:
    q, repeats = query_objects(ctx.quick), 50 if ctx.quick else 100
    fetch = {"entity": "Task", "where": "priority == 2 AND isCompleted == NO",
             "sort": [{"key": "createdAt", "ascending": True}], "limit": 100}
    req = ctx.work / "pg-e.jsonl"
    with open(req, "w") as f:
        for i in range(repeats):
            f.write(rpc(i, "query.fetch", fetch) + "\n")
    sql = ctx.work / "pg-e.sql"
    one = (f'SELECT {COLUMNS} FROM "Task" '
           'WHERE "priority" = 2 AND "isCompleted" = 0 ORDER BY "createdAt" ASC, "_pk" ASC LIMIT 100;\n')
    sql.write_text(f'SET search_path TO "{SCHEMA}";\n' + one * repeats)
    r = psql_rounds(ctx, req, repeats, sql, "pg-e")
    check_lines(ctx.work / "pg-e.psql", 100 * repeats)
    r.update(objects=q, repeats=repeats, target_ratio=1.5)
    return Outcome(r, [Row(f"(pg_fetch) (e) indexed fetch, limit 100, x{repeats} on {q:,} objects, PostgreSQL store",
                           f"{r['seconds']:.3f} s", f"{r['cli_seconds']:.3f} s (psql, unaligned)", f"{r['ratio']:.2f}x", "<= 1.5x")])


def full_case(ctx: Context) -> Outcome:
    f_count = 20_000 if ctx.quick else 100_000
    req = ctx.work / "pg-f.jsonl"
    req.write_text(rpc(1, "query.fetch", {"entity": "Task", "limit": f_count}) + "\n")
    sql = ctx.work / "pg-f.sql"
    sql.write_text(f'SET search_path TO "{SCHEMA}";\nSELECT {COLUMNS} FROM "Task" ORDER BY "_pk" LIMIT {f_count};\n')
    r = psql_rounds(ctx, req, 1, sql, "pg-f")
    check_lines(ctx.work / "pg-f.psql", f_count)
    r.update(objects=f_count)
    return Outcome(r, [Row(f"(pg_full) (f) full fetch of {f_count:,} objects serialized, PostgreSQL store",
                           f"{r['seconds']:.3f} s, {mib(r['peak_rss_kib'])}", f"{r['cli_seconds']:.3f} s, {mib(r['cli_peak_rss_kib'])} (psql)",
                           f"{r['ratio']:.2f}x", "")])


def export_case(ctx: Context) -> Outcome:
    q = query_objects(ctx.quick)
    url = pg_store(ctx)
    sql = ctx.work / "pg-g.sql"
    sql.write_text(f'SET search_path TO "{SCHEMA}";\nSELECT {COLUMNS} FROM "Task" ORDER BY "_pk";\n')

    def ours():
        out = fresh(ctx.work, "pg-g.ndjson")
        return run_timed([ctx.binary, "export", "--store", url, "--out", str(out), "--format", "ndjson"], Path("/dev/null"))

    r = summary(side_by_side(ctx.runs, ours, lambda: run_timed(
        pgcluster.psql_argv(ctx, "-A", "-t", "-f", str(sql), "-o", str(ctx.work / "pg-g.psql")), Path("/dev/null"))))
    check_lines(ctx.work / "pg-g.ndjson", q + 1)
    check_lines(ctx.work / "pg-g.psql", q)
    r.update(objects=q)
    return Outcome(r, [Row(f"(pg_export) (g) export of {q:,} objects as ndjson to a file, PostgreSQL store",
                           f"{r['seconds']:.3f} s, {mib(r['peak_rss_kib'])}", f"{r['cli_seconds']:.3f} s, {mib(r['cli_peak_rss_kib'])} (psql)",
                           f"{r['ratio']:.2f}x", "")])


def check_lines(path: Path, expected: int) -> None:
    with open(path, "rb") as f:
        n = sum(1 for line in f if line.strip())
    if n != expected:
        sys.exit(f"{path.name}: {n} lines, expected {expected}")
