"""The whole-store commands on the store of Q Task objects, beside the sqlite3 CLI:

  (g) `modelstore export` of the Q objects as ndjson to a file, vs the CLI's `-json` of the
      same rows and columns to a file
  (h) peak memory of that export for a tenth of Q vs Q objects (streaming: flat)
  (i) `modelstore import` of (g)'s file into an empty store, vs the CLI running the
      equivalent INSERT script (same rows, same table and indexes) in one transaction
  (j) `modelstore migrate` of a copy of the store through one lightweight stage (rename
      title -> name through originalName, add notes with a default), vs the CLI running
      the same ALTER TABLE / UPDATE statements in one transaction
"""
from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from benchlib import Context, Outcome, Row, fresh, mib, run_timed, side_by_side, summary
from layout import CLI_COLUMNS, PRAGMAS, QUERY_SCHEMA, cli_insert, cli_script, count_rows, query_objects, query_store, rows


def export_file(ctx: Context, db: Path, name: str):
    """`modelstore export` of the whole store to a new file; (seconds, peak KiB), path."""
    out = fresh(ctx.work, name)
    t, rss = run_timed([ctx.binary, "export", "--store", str(db), "--out", str(out), "--format", "ndjson"], Path(os.devnull))
    return (t, rss), out


def exported(ctx: Context, q: int) -> Path:
    """(g)'s file: the export of the Q-object store, made once per invocation."""
    out = ctx.work / f"g{q}.ndjson"
    if not out.exists():
        export_file(ctx, query_store(ctx.binary, ctx.work, q), out.name)
    with open(out, "rb") as f:
        lines = sum(1 for _ in f)
    if lines != q + 1:
        sys.exit(f"the export of {q} objects has {lines} lines, expected {q + 1}")
    return out


def export(ctx: Context) -> Outcome:
    q = query_objects(ctx.quick)
    db = query_store(ctx.binary, ctx.work, q)
    sql = ctx.work / "g.sql"
    sql.write_text(f'.mode json\nSELECT {CLI_COLUMNS} FROM "Task" ORDER BY "_pk";\n')
    r = summary(side_by_side(ctx.runs, lambda: export_file(ctx, db, f"g{q}.ndjson")[0],
                             lambda: run_timed(["sqlite3", "-readonly", str(db)], sql, ctx.work / "g.cli")))
    r.update(objects=q, bytes=exported(ctx, q).stat().st_size, target_ratio=1.5)
    return Outcome(r, [Row(f"(g) export of {q:,} objects as ndjson to a file", f"{r['seconds']:.3f} s, {mib(r['peak_rss_kib'])}",
                           f"{r['cli_seconds']:.3f} s, {mib(r['cli_peak_rss_kib'])} (-json)", f"{r['ratio']:.2f}x", "<= 1.5x")])


def export_memory(ctx: Context) -> Outcome:
    """Peak RSS of exporting a store of Q/10 objects beside one of Q."""
    q = query_objects(ctx.quick)
    (_, small), out = export_file(ctx, query_store(ctx.binary, ctx.work, q // 10), f"h{q // 10}.ndjson")
    out.unlink()
    (_, large), _ = export_file(ctx, query_store(ctx.binary, ctx.work, q), f"g{q}.ndjson")
    r = {"objects_small": q // 10, "objects": q, "peak_rss_kib_small": small, "peak_rss_kib": large,
         "ratio": large / max(small, 1), "target_ratio": 1.1, "target_peak_mib": 64}
    return Outcome(r, [Row(f"(h) export peak RSS, {q // 10:,} vs {q:,} objects", f"{mib(small)} vs {mib(large)}", "",
                           f"{r['ratio']:.2f}x", "<= 1.1x, < 64 MiB")])


def import_(ctx: Context) -> Outcome:
    q = query_objects(ctx.quick)
    source = query_store(ctx.binary, ctx.work, q)
    ndjson = exported(ctx, q)
    # The CLI's side: the tables and indexes of the store the file came from, then one
    # INSERT per row of the same values, in one transaction.
    ddl = subprocess.run(["sqlite3", "-readonly", str(source),
                          "SELECT sql || ';' FROM sqlite_master WHERE tbl_name = 'Task' AND sql IS NOT NULL "
                          "ORDER BY type DESC, name"], capture_output=True, text=True, check=True).stdout
    sql = ctx.work / f"i{q}.sql"
    with open(sql, "w") as f:
        f.write(PRAGMAS + ddl + "BEGIN;\n")
        for r in rows(q):
            f.write(cli_insert(r))
        f.write("COMMIT;\n")

    def ours():
        db = fresh(ctx.work, "imported.store")
        t, rss = run_timed([ctx.binary, "import", "--store", str(db), str(ndjson)], Path(os.devnull))
        assert count_rows(db) == q
        return t, rss

    r = summary(side_by_side(ctx.runs, ours, lambda: cli_script(fresh(ctx.work, "imported.db"), sql, q)))
    r.update(objects=q, target_ratio=2.0)
    return Outcome(r, [Row(f"(i) import of that file ({q:,} objects) into an empty store", f"{r['seconds']:.3f} s, {mib(r['peak_rss_kib'])}",
                           f"{r['cli_seconds']:.3f} s, {mib(r['cli_peak_rss_kib'])} (INSERT script)", f"{r['ratio']:.2f}x", "<= 2.0x")])


def migrate(ctx: Context) -> Outcome:
    """One lightweight stage on a copy of the Q-object store, beside the CLI."""
    q = query_objects(ctx.quick)
    source = query_store(ctx.binary, ctx.work, q)
    v2 = copy.deepcopy(QUERY_SCHEMA)
    v2["version"] = "2.0.0"
    attrs = v2["entities"][0]["attributes"]
    next(a for a in attrs if a["name"] == "title").update(name="name", originalName="title")
    attrs.append({"name": "notes", "type": "string", "default": ""})
    schema_file = ctx.work / "v2.json"
    schema_file.write_text(json.dumps(v2))
    sql = ctx.work / "migrate.sql"
    sql.write_text(PRAGMAS + 'BEGIN;\nALTER TABLE "Task" RENAME COLUMN "title" TO "name";\n'
                   'ALTER TABLE "Task" ADD COLUMN "notes" TEXT;\nUPDATE "Task" SET "notes" = \'\' WHERE "notes" IS NULL;\nCOMMIT;\n')

    def copy_of(name: str) -> Path:
        db = fresh(ctx.work, name)
        shutil.copyfile(source, db)
        return db

    def ours():
        db = copy_of("migrated.store")
        t, rss = run_timed([ctx.binary, "migrate", "--store", str(db), "--to", str(schema_file), "--no-backup"], Path(os.devnull))
        assert count_rows(db) == q
        return t, rss

    r = summary(side_by_side(ctx.runs, ours, lambda: cli_script(copy_of("migrated.db"), sql, q)))
    r.update(objects=q)
    return Outcome(r, [Row(f"(j) lightweight migration of {q:,} objects (rename + defaulted column)",
                           f"{r['seconds']:.3f} s, {mib(r['peak_rss_kib'])}", f"{r['cli_seconds']:.3f} s (same ALTER/UPDATE)",
                           f"{r['ratio']:.2f}x", "report")])
