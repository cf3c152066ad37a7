"""Case `seeds`: the seeds' model (seedmodel.py) written by the server beside the sqlite3 CLI
writing the same rows into the table a developer would write by hand.

For 100,000 and 200,000 tasks (10,000 and 20,000 with --quick): 10 categories and the tasks,
each its own pipelined `objects.insert`, in one transaction, on a fresh store; beside the
CLI running the same rows as INSERT statements in one transaction on a fresh database with
the same pragmas (WAL, synchronous=NORMAL). Each round times both sides back to back (spawn
to exit, as (a)) and then measures both files: `PRAGMA wal_checkpoint(TRUNCATE)` by the CLI,
then the database file plus whatever -wal remains (none after the truncating checkpoint).
The ratios printed are the medians of the per-round ratios; results.json also has each
side's CPU time (user + system, from GNU time), whose ratio is printed beside (other load
on the machine disturbs it less than the wall clock). Both files are checked to hold the
same values; results.json also has each file's bytes per table and index (dbstat).
"""
from __future__ import annotations

import sys
from pathlib import Path

import seedmodel
from benchlib import Context, Outcome, Row, check_replies, fresh, median, run_measured, sql_value

CATEGORIES = 10

# The same digest of the Task rows from either layout: a uuid column of text or 16-byte blobs.
DIGEST = ('SELECT count(*), count(DISTINCT "id"), '
          "min(CASE typeof(\"id\") WHEN 'blob' THEN hex(\"id\") ELSE replace(upper(\"id\"), '-', '') END), "
          "max(CASE typeof(\"id\") WHEN 'blob' THEN hex(\"id\") ELSE replace(upper(\"id\"), '-', '') END), "
          'sum("isCompleted"), sum("createdAt"), sum("priority"), sum("category"), max("title"), '
          '(SELECT group_concat("name") FROM "Category") FROM "Task"')


def file_bytes(db: Path) -> int:
    """The database's size with its WAL folded in: a truncating checkpoint, then the main
    file plus any -wal left."""
    sql_value(db, "PRAGMA wal_checkpoint(TRUNCATE);", readonly=False)
    wal = db.with_name(db.name + "-wal")
    return db.stat().st_size + (wal.stat().st_size if wal.exists() else 0)


def space(db: Path) -> dict:
    """Bytes of each table and index (SQLite's dbstat), largest first."""
    out = sql_value(db, "SELECT name, sum(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC, 1")
    return {name: int(size) for name, size in (line.rsplit("|", 1) for line in out.splitlines())}


def one_size(ctx: Context, rows: list, n: int) -> dict:
    req, sql = ctx.work / f"seeds{n}.jsonl", ctx.work / f"seeds{n}.sql"
    replies = seedmodel.write_requests(req, rows, CATEGORIES)
    seedmodel.write_script(sql, rows, CATEGORIES)
    sql_fk = ctx.work / f"seeds{n}-fk.sql"
    seedmodel.write_script(sql_fk, rows, CATEGORIES, seedmodel.HAND_DDL + seedmodel.FK_INDEX_DDL)
    rounds = []
    for _ in range(ctx.runs):
        ours, cli = fresh(ctx.work, "seeds.store"), fresh(ctx.work, "seeds.db")
        out = ctx.work / "seeds.replies"
        m = run_measured([ctx.binary, "serve", "--store", str(ours)], req, out)
        check_replies(out, replies, seedmodel.check_category)
        ref = run_measured(["sqlite3", str(cli)], sql)
        size, rsize = file_bytes(ours), file_bytes(cli)
        cli_fk = fresh(ctx.work, "seeds-fk.db")
        fk = run_measured(["sqlite3", str(cli_fk)], sql_fk)
        fsize = file_bytes(cli_fk)
        rounds.append({**m, **{"ref_" + k: v for k, v in ref.items()}, "ratio": m["seconds"] / ref["seconds"],
                       "cpu_ratio": m["cpu_seconds"] / ref["cpu_seconds"], "bytes": size, "ref_bytes": rsize,
                       "size_ratio": size / rsize, "fk_seconds": fk["seconds"], "fk_cpu_seconds": fk["cpu_seconds"],
                       "fk_ratio": m["seconds"] / fk["seconds"], "fk_cpu_ratio": m["cpu_seconds"] / fk["cpu_seconds"],
                       "fk_bytes": fsize, "fk_size_ratio": size / fsize})
    digest, ref_digest = sql_value(ours, DIGEST), sql_value(cli, DIGEST)
    if digest != ref_digest:
        sys.exit(f"seeds: the two files hold different rows:\n  store: {digest}\n  CLI:   {ref_digest}")
    return {"tasks": n, "categories": CATEGORIES, "seconds": median(rounds, "seconds"), "cli_seconds": median(rounds, "ref_seconds"),
            "ratio": median(rounds, "ratio"), "cpu_ratio": median(rounds, "cpu_ratio"), "bytes": median(rounds, "bytes"), "cli_bytes": median(rounds, "ref_bytes"),
            "size_ratio": median(rounds, "size_ratio"), "fk_seconds": median(rounds, "fk_seconds"), "fk_ratio": median(rounds, "fk_ratio"),
            "fk_cpu_ratio": median(rounds, "fk_cpu_ratio"), "fk_bytes": median(rounds, "fk_bytes"),
            "fk_size_ratio": median(rounds, "fk_size_ratio"), "space": space(ours), "cli_space": space(cli), "runs": rounds}


def case(ctx: Context) -> Outcome:
    sizes = (10_000, 20_000) if ctx.quick else (100_000, 200_000)
    rows = seedmodel.tasks(max(sizes), CATEGORIES)  # generated once: the smaller size is a prefix
    results = {str(n): one_size(ctx, rows[:n], n) for n in sizes}
    table = []
    for n in reversed(sizes):
        r = results[str(n)]
        table.append(Row(f"(seeds) {n:,} pipelined objects.insert of the seeds' Task (unique uuid, to-one), one transaction",
                         f"{r['seconds']:.3f} s", f"{r['cli_seconds']:.3f} s (hand-written table)",
                         f"{r['ratio']:.2f}x (CPU time {r['cpu_ratio']:.2f}x)",
                         "<= 1.5x (aim 1.25x)"))
        table.append(Row(f"(seeds) the same {n:,}, beside the hand-written table with an index on `category`",
                         f"{r['seconds']:.3f} s", f"{r['fk_seconds']:.3f} s",
                         f"{r['fk_ratio']:.2f}x (CPU time {r['fk_cpu_ratio']:.2f}x)", "<= 1.5x (aim 1.25x)"))
    table.append(Row("(seeds) store file size after those inserts, checkpointed, " + " / ".join(f"{n:,}" for n in sizes),
                     " / ".join(f"{results[str(n)]['bytes'] / 1e6:.1f} MB" for n in sizes),
                     " / ".join(f"{results[str(n)]['cli_bytes'] / 1e6:.1f} MB" for n in sizes),
                     " / ".join(f"{results[str(n)]['size_ratio']:.2f}x" for n in sizes), "<= 1.15x"))
    table.append(Row("(seeds) the same file sizes beside the hand-written table with an index on `category`",
                     " / ".join(f"{results[str(n)]['bytes'] / 1e6:.1f} MB" for n in sizes),
                     " / ".join(f"{results[str(n)]['fk_bytes'] / 1e6:.1f} MB" for n in sizes),
                     " / ".join(f"{results[str(n)]['fk_size_ratio']:.2f}x" for n in sizes), "<= 1.15x"))
    results.update(target_ratio=1.5, target_size_ratio=1.15, cli_ddl=seedmodel.HAND_DDL, schema=seedmodel.SCHEMA)
    return Outcome(results, table)
