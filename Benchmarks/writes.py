"""The write cases on ModelStore's own table layout, beside the sqlite3 CLI:

  (a) N objects.insert requests pipelined over stdio in one transaction, vs the CLI running
      N INSERT statements in one transaction; and the server's peak memory at N/4 vs N
  (b) one context.save of M inserts, vs the CLI running M INSERT statements in one transaction
  (k) the cost of history: (a)'s requests with and without `serve --no-history`
"""
from __future__ import annotations

from benchlib import Context, Outcome, Row, fresh, mib, repeat, rpc, side_by_side, summary
from layout import SCHEMA, cli_script, pipelined_requests, rows, serve_requests, values, write_insert_script


def sizes(ctx: Context):
    """(N, N small, M)."""
    return (20_000, 5_000, 10_000) if ctx.quick else (200_000, 50_000, 100_000)


def insert_rounds(ctx: Context, req, sql, rows_expected: int, replies: int):
    return side_by_side(
        ctx.runs,
        lambda: serve_requests(ctx.binary, ctx.work, req, replies, rows_expected),
        lambda: cli_script(fresh(ctx.work, "cli.db"), sql, rows_expected),
    )


def pipelined(ctx: Context) -> Outcome:
    n, n_small, _ = sizes(ctx)
    req = pipelined_requests(ctx.work, n)
    sql = ctx.work / f"a{n}.sql"
    write_insert_script(sql, n)
    r = summary(insert_rounds(ctx, req, sql, n, n + 3))
    small = repeat(1, lambda: serve_requests(ctx.binary, ctx.work, pipelined_requests(ctx.work, n_small), n_small + 3, n_small))
    r.update(objects=n, objects_small=n_small, peak_rss_kib_small=small["peak_rss_kib"], target_ratio=1.5)
    return Outcome(r, [
        Row(f"(a) {n:,} pipelined objects.insert, one transaction", f"{r['seconds']:.3f} s", f"{r['cli_seconds']:.3f} s",
            f"{r['ratio']:.2f}x", "<= 1.5x"),
        Row(f"(a) peak RSS, {n_small:,} vs {n:,} requests", f"{mib(small['peak_rss_kib'])} vs {mib(r['peak_rss_kib'])}",
            mib(r["cli_peak_rss_kib"]), f"{r['peak_rss_kib'] / max(small['peak_rss_kib'], 1):.2f}x", "flat"),
    ])


def save(ctx: Context) -> Outcome:
    _, _, m = sizes(ctx)
    req = ctx.work / f"b{m}.jsonl"
    sql = ctx.work / f"b{m}.sql"
    changes = [{"op": "insert", "entity": "Task", "values": values(r)} for r in rows(m)]
    with open(req, "w") as f:
        f.write(rpc(0, "model.define", {"schema": SCHEMA}) + "\n")
        f.write(rpc(1, "context.save", {"changes": changes}) + "\n")
    del changes
    write_insert_script(sql, m)
    r = summary(insert_rounds(ctx, req, sql, m, 2))
    r.update(objects=m, target_ratio=1.0)
    return Outcome(r, [Row(f"(b) one context.save of {m:,} inserts", f"{r['seconds']:.3f} s, {mib(r['peak_rss_kib'])}",
                           f"{r['cli_seconds']:.3f} s", f"{r['ratio']:.2f}x", "<= 1.0x")])


def no_history(ctx: Context) -> Outcome:
    """(a)'s requests with history (the default) beside `--no-history`, round by round."""
    n, _, _ = sizes(ctx)
    req = pipelined_requests(ctx.work, n)
    rounds = side_by_side(
        ctx.runs,
        lambda: serve_requests(ctx.binary, ctx.work, req, n + 3, n),
        lambda: serve_requests(ctx.binary, ctx.work, req, n + 3, n, extra=("--no-history",)),
    )
    r = summary(rounds)
    r = {"seconds_with_history": r["seconds"], "seconds_without": r["cli_seconds"], "ratio": r["ratio"],
         "objects": n, "target_ratio": 1.15, "runs": rounds}
    return Outcome(r, [Row("(k) (a) with history vs --no-history", f"{r['seconds_with_history']:.3f} s vs {r['seconds_without']:.3f} s",
                           "", f"{r['ratio']:.2f}x", "<= 1.15x")])
