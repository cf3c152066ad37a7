"""The seeds' model (the first seed document's Task and Category, as SwiftData declares
them), its rows, and the table a developer would write by hand for it in SQLite.

Task: `id` UUID (unique, as Core Data uniqueness constraints become `@Attribute(.unique)`),
`title`, `isCompleted`, `createdAt`, `priority`, a to-one `category`; Category: `name` and
the to-many `tasks`, the inverse of `category`, with the cascade delete rule. Every row is
generated once (UUIDs from a seeded generator) and sent to both sides: as canonical text on
the wire, as 16-byte X'..' blobs to the sqlite3 CLI.
"""
from __future__ import annotations

import json
import random
import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from benchlib import rpc

SCHEMA = {
    "version": "1.0.0",
    "entities": [
        {
            "name": "Category",
            "attributes": [{"name": "name", "type": "string", "default": ""}],
            "relationships": [
                {"name": "tasks", "destination": "Task", "inverse": "category", "toMany": True, "deleteRule": "cascade"}
            ],
        },
        {
            "name": "Task",
            "attributes": [
                {"name": "id", "type": "uuid", "unique": True, "default": {"generate": "uuid"}},
                {"name": "title", "type": "string", "default": ""},
                {"name": "isCompleted", "type": "bool", "default": False},
                {"name": "createdAt", "type": "date", "default": {"generate": "now"}},
                {"name": "priority", "type": "int", "default": 0},
            ],
            "relationships": [{"name": "category", "destination": "Category", "inverse": "tasks"}],
        },
    ],
}

# The hand-written tables: an integer primary key, the UUID as a 16-byte blob with a unique
# index, the date as REAL seconds since 1970, the to-one as an integer reference (foreign
# keys are off in SQLite unless asked, so REFERENCES costs nothing). No other index.
HAND_DDL = (
    'CREATE TABLE "Category" ("pk" INTEGER PRIMARY KEY, "name" TEXT);\n'
    'CREATE TABLE "Task" ("pk" INTEGER PRIMARY KEY, "id" BLOB, "title" TEXT, "isCompleted" INTEGER, '
    '"createdAt" REAL, "priority" INTEGER, "category" INTEGER REFERENCES "Category" ("pk"));\n'
    'CREATE UNIQUE INDEX "Task_id" ON "Task" ("id");\n'
)
PRAGMAS = "PRAGMA journal_mode=WAL;\nPRAGMA synchronous=NORMAL;\n"
EPOCH_2026_MS = 1767225600 * 1000  # 2026-01-01T00:00:00Z


@dataclass(frozen=True)
class Task:
    uuid: uuid.UUID
    title: str
    done: bool
    ms: int  # createdAt, milliseconds since 1970 (what the wire carries; the server rounds to it)
    priority: int
    category: int  # 1 ... categories

    @property
    def iso(self) -> str:
        return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(self.ms // 1000)) + f".{self.ms % 1000:03d}Z"

    @property
    def seconds(self) -> float:
        return self.ms / 1000


def tasks(n: int, categories: int, all_done_category: int | None = None, seed: int = 2026) -> list[Task]:
    """n tasks spread round-robin over the categories, a third of them completed (all of
    them in `all_done_category`), with random v4 UUIDs and millisecond creation dates."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        c = i % categories + 1
        out.append(Task(uuid.UUID(int=rng.getrandbits(128), version=4), f"task number {i}",
                        c == all_done_category or i % 3 == 0, EPOCH_2026_MS + i * 1000 + (i * 7919) % 1000, i % 5, c))
    return out


def category_names(categories: int) -> list[str]:
    return [f"Category {c}" for c in range(1, categories + 1)]


def wire_values(t: Task) -> dict:
    return {"id": str(t.uuid).upper(), "title": t.title, "isCompleted": t.done, "createdAt": t.iso,
            "priority": t.priority, "category": f"Category/{t.category}"}


def write_requests(path: Path, rows: list[Task], categories: int) -> int:
    """model.define, then in one transaction the categories and the tasks, each its own
    pipelined objects.insert; returns the number of replies. Category c is inserted
    c-th into an empty store, so it is `Category/c` (check_category verifies it)."""
    with open(path, "w") as f:
        f.write(rpc(0, "model.define", {"schema": SCHEMA}) + "\n")
        f.write(rpc("begin", "transaction.begin") + "\n")
        for c, name in enumerate(category_names(categories), 1):
            f.write(rpc(f"category{c}", "objects.insert", {"entity": "Category", "values": {"name": name}}) + "\n")
        for i, t in enumerate(rows):
            f.write(rpc(i, "objects.insert", {"entity": "Task", "values": wire_values(t)}) + "\n")
        f.write(rpc("commit", "transaction.commit") + "\n")
    return len(rows) + categories + 3


def check_category(reply: bytes) -> None:
    """A benchlib.check_replies callback: category c was created as Category/c."""
    if reply.startswith(b'{"jsonrpc":"2.0","id":"category'):
        m = json.loads(reply)
        if m["result"]["_id"] != "Category/" + m["id"][len("category"):]:
            sys.exit(f"category {m['id']} became {m['result']['_id']}")


def sql_insert(t: Task) -> str:
    return (
        'INSERT INTO "Task" ("id", "title", "isCompleted", "createdAt", "priority", "category") '
        f"VALUES (X'{t.uuid.hex}', '{t.title}', {int(t.done)}, {t.seconds!r}, {t.priority}, {t.category});\n"
    )


# The same with an index on the to-one's column, as a developer adds for the cascade delete
# (each deleted category finds its tasks through it) and Core Data creates for every to-one.
FK_INDEX_DDL = 'CREATE INDEX "Task_category" ON "Task" ("category");\n'


def write_script(path: Path, rows: list[Task], categories: int, ddl: str = HAND_DDL) -> None:
    """The CLI's side: the hand-written tables, then the same rows in one transaction."""
    with open(path, "w") as f:
        f.write(PRAGMAS + ddl + "BEGIN;\n")
        for name in category_names(categories):
            f.write(f"INSERT INTO \"Category\" (\"name\") VALUES ('{name}');\n")
        for t in rows:
            f.write(sql_insert(t))
        f.write("COMMIT;\n")
