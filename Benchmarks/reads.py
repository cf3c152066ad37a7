"""The fetch cases on a store of Q Task objects with an index on priority, beside the
sqlite3 CLI running the same SQL with `-json` output:

  (e) the fetch `priority == 2 AND isCompleted == NO` sorted by createdAt, limit 100,
      repeated, vs the CLI running the same SQL the same number of times
  (f) a full fetch of F objects serialized, vs the CLI's `-json` of the same rows
"""
from __future__ import annotations

from benchlib import Context, Outcome, Row, check_replies, mib, rpc, run_timed, side_by_side, summary
from layout import CLI_COLUMNS as COLUMNS, query_objects, query_store


def fetch_rounds(ctx: Context, req, replies: int, sql, name: str):
    """Rounds of the server (read-only) on `req` beside the CLI on `sql`; checks the replies."""
    db = query_store(ctx.binary, ctx.work, query_objects(ctx.quick))
    out = ctx.work / f"{name}.out"

    def ours():
        t = run_timed([ctx.binary, "serve", "--store", str(db), "--read-only"], req, out)
        check_replies(out, replies)
        return t

    return summary(side_by_side(ctx.runs, ours, lambda: run_timed(["sqlite3", "-readonly", str(db)], sql, ctx.work / f"{name}.cli")))


def indexed_fetch(ctx: Context) -> Outcome:
    q, repeats = query_objects(ctx.quick), 50 if ctx.quick else 100
    fetch = {"entity": "Task", "where": "priority == 2 AND isCompleted == NO",
             "sort": [{"key": "createdAt", "ascending": True}], "limit": 100}
    req = ctx.work / "e.jsonl"
    with open(req, "w") as f:
        for i in range(repeats):
            f.write(rpc(i, "query.fetch", fetch) + "\n")
    sql = ctx.work / "e.sql"
    one = (f'SELECT {COLUMNS} FROM "Task" '
           'WHERE "priority" = 2 AND "isCompleted" = 0 ORDER BY "createdAt" ASC, "_pk" ASC LIMIT 100;\n')
    sql.write_text(".mode json\n" + one * repeats)
    r = fetch_rounds(ctx, req, repeats, sql, "e")
    r.update(objects=q, repeats=repeats, target_ratio=1.5)
    return Outcome(r, [Row(f"(e) indexed fetch, limit 100, x{repeats} on {q:,} objects", f"{r['seconds']:.3f} s",
                           f"{r['cli_seconds']:.3f} s (-json)", f"{r['ratio']:.2f}x", "<= 1.5x")])


def full_fetch(ctx: Context) -> Outcome:
    f_count = 20_000 if ctx.quick else 100_000
    req = ctx.work / "f.jsonl"
    req.write_text(rpc(1, "query.fetch", {"entity": "Task", "limit": f_count}) + "\n")
    sql = ctx.work / "f.sql"
    sql.write_text(f'.mode json\nSELECT {COLUMNS} FROM "Task" ORDER BY "_pk" LIMIT {f_count};\n')
    r = fetch_rounds(ctx, req, 1, sql, "f")
    r.update(objects=f_count, target_ratio=1.5)
    return Outcome(r, [Row(f"(f) full fetch of {f_count:,} objects serialized", f"{r['seconds']:.3f} s, {mib(r['peak_rss_kib'])}",
                           f"{r['cli_seconds']:.3f} s, {mib(r['cli_peak_rss_kib'])} (-json)", f"{r['ratio']:.2f}x", "<= 1.5x")])
