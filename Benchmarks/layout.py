"""The one-entity Task model of cases (a) to (k), its rows, and the sqlite3 CLI's side of
them written into ModelStore's own table layout (format 1), so those cases measure the
server's overhead over the layout, not the layout itself (the seeds case does that).
"""
from __future__ import annotations

import copy
import subprocess
import time
import uuid
from pathlib import Path
from typing import Callable

from benchlib import check_replies, fresh, rpc, run_measured, run_timed

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

# The same entity with `priority` indexed, for the query cases (e) and (f).
QUERY_SCHEMA = copy.deepcopy(SCHEMA)
next(a for a in QUERY_SCHEMA["entities"][0]["attributes"] if a["name"] == "priority")["indexed"] = True

# The table ModelStore creates for that schema (StorageLayout, storage format 2: a
# hierarchy of one entity has no `_ent` column, a table none of whose rows was updated no
# `_opt`; a uuid is a 16-byte BLOB), and its unique index.
CLI_DDL = (
    'CREATE TABLE "Task" ("_pk" INTEGER PRIMARY KEY, "id" BLOB, "title" TEXT, "isCompleted" INTEGER, '
    '"createdAt" REAL, "priority" INTEGER);\n'
    'CREATE UNIQUE INDEX "_ux_Task_1" ON "Task" ("id");\n'
)
# What the CLI reads for "id": the canonical text ModelStore answers with, from the blob.
CLI_ID_TEXT = ("substr(hex(\"id\"), 1, 8) || '-' || substr(hex(\"id\"), 9, 4) || '-' || substr(hex(\"id\"), 13, 4) || '-' || "
               "substr(hex(\"id\"), 17, 4) || '-' || substr(hex(\"id\"), 21, 12) AS \"id\"")
CLI_COLUMNS = f'"_pk", 1 AS "_ent", {CLI_ID_TEXT}, "title", "isCompleted", "createdAt", "priority"'
PRAGMAS = "PRAGMA journal_mode=WAL;\nPRAGMA synchronous=NORMAL;\n"
EPOCH_2026 = 1767225600  # 2026-01-01T00:00:00Z


def rows(n: int):
    """Deterministic row values: (uuid, title, completed, seconds, iso, priority)."""
    for i in range(n):
        u = str(uuid.UUID(int=(i * 0x9E3779B97F4A7C15 + 0x1234567) % (1 << 128), version=4)).upper()
        secs = EPOCH_2026 + i
        iso = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(secs))
        yield u, f"task number {i}", i % 3 == 0, secs, iso, i % 5


def values(r):
    u, title, done, _, iso, prio = r
    return {"id": u, "title": title, "isCompleted": done, "createdAt": iso, "priority": prio}


def cli_insert(r) -> str:
    u, title, done, secs, _, prio = r
    return (
        'INSERT INTO "Task" ("id", "title", "isCompleted", "createdAt", "priority") '
        f"VALUES (X'{u.replace('-', '')}', '{title}', {1 if done else 0}, {float(secs)!r}, {prio});\n"
    )


def write_insert_script(sql: Path, n: int, ddl: str = CLI_DDL, insert: Callable[[tuple], str] = cli_insert) -> None:
    """The CLI's side of the write cases: n INSERT statements (`insert` of each row, into
    the table `ddl` creates) in one transaction."""
    with open(sql, "w") as f:
        f.write(PRAGMAS + ddl + "BEGIN;\n")
        for r in rows(n):
            f.write(insert(r))
        f.write("COMMIT;\n")


def count_rows(db: Path) -> int:
    out = subprocess.run(["sqlite3", str(db), 'SELECT count(*) FROM "Task"'], capture_output=True, text=True, check=True)
    return int(out.stdout.strip())


def serve_measured(binary: str, work: Path, req: Path, replies: int, rows_expected: int, extra=()) -> dict:
    """`serve` on a fresh store fed `req`; checks the replies and the rows, returns
    run_measured's figures."""
    db = fresh(work, "ours.store")
    out = work / "replies.jsonl"
    m = run_measured([binary, "serve", "--store", str(db), *extra, "--max-message-bytes", str(1 << 28)], req, out)
    check_replies(out, replies)
    assert count_rows(db) == rows_expected
    return m


def serve_requests(binary: str, work: Path, req: Path, replies: int, rows_expected: int, extra=()):
    """serve_measured's (s, KiB)."""
    m = serve_measured(binary, work, req, replies, rows_expected, extra)
    return m["seconds"], m["peak_rss_kib"]


def cli_measured(db: Path, sql: Path, rows_expected: int) -> dict:
    """The sqlite3 CLI running `sql` on `db`; checks the rows, returns run_measured's figures."""
    m = run_measured(["sqlite3", str(db)], sql)
    assert count_rows(db) == rows_expected
    return m


def cli_script(db: Path, sql: Path, rows_expected: int):
    """cli_measured's (s, KiB)."""
    m = cli_measured(db, sql, rows_expected)
    return m["seconds"], m["peak_rss_kib"]


def pipelined_requests(work: Path, n: int) -> Path:
    """model.define, then n objects.insert in one transaction (n + 3 replies); written once."""
    req = work / f"a{n}.jsonl"
    if not req.exists():
        with open(req, "w") as f:
            f.write(rpc(0, "model.define", {"schema": SCHEMA}) + "\n")
            f.write(rpc("begin", "transaction.begin") + "\n")
            for i, r in enumerate(rows(n)):
                f.write(rpc(i + 1, "objects.insert", {"entity": "Task", "values": values(r)}) + "\n")
            f.write(rpc("commit", "transaction.commit") + "\n")
    return req


def query_objects(quick: bool) -> int:
    """Q, the size of the store the read cases (e) to (j) share."""
    return 100_000 if quick else 1_000_000


def query_store(binary: str, work: Path, q: int) -> Path:
    """A store with q Tasks (and priority indexed), built through context.save; built once
    per invocation and shared by the cases that read it."""
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
