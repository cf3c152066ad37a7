"""End-to-end tests against the real ``modelstore`` binary.

Set MODELSTORE_BIN to the built server (e.g. ``.build/debug/modelstore``);
without it every test here is skipped, so the unit suite still runs on a
machine that has not built the Swift code.
"""

from __future__ import annotations

import uuid

import os
import re
import sys
import time
import unittest
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional

SRC = Path(__file__).resolve().parents[1] / "src"
if SRC.is_dir() and str(SRC) not in sys.path:
    sys.path.insert(0, str(SRC))

from modelstore_client import (  # noqa: E402
    Client,
    ConstraintError,
    NotFoundError,
    ValidationError,
)
from modelstore_client import golden  # noqa: E402

REPO_ROOT = Path(__file__).resolve().parents[3]
GOLDEN_DIR = REPO_ROOT / "Tests" / "Golden"

TASKS_SCHEMA: Dict[str, Any] = {
    "version": "1.0.0",
    "entities": [
        {
            "name": "Category",
            "attributes": [
                {"name": "id", "type": "uuid", "unique": True, "default": {"generate": "uuid"}},
                {"name": "name", "type": "string"},
                {"name": "color", "type": "string", "default": "blue"},
            ],
            "relationships": [
                {"name": "tasks", "destination": "Task", "inverse": "category",
                 "toMany": True, "deleteRule": "cascade"},
            ],
        },
        {
            "name": "Task",
            "attributes": [
                {"name": "id", "type": "uuid", "unique": True, "default": {"generate": "uuid"}},
                {"name": "title", "type": "string"},
                {"name": "isCompleted", "type": "bool", "default": False},
                {"name": "createdAt", "type": "date", "default": {"generate": "now"}},
                {"name": "priority", "type": "int", "default": 0},
            ],
            "relationships": [
                {"name": "category", "destination": "Category", "inverse": "tasks",
                 "deleteRule": "nullify"},
            ],
        },
    ],
}


def server_binary() -> str:
    """The binary under test, or SkipTest saying why there is none."""
    binary = os.environ.get("MODELSTORE_BIN")
    if not binary:
        raise unittest.SkipTest("MODELSTORE_BIN is not set (point it at the built modelstore)")
    if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
        raise unittest.SkipTest(f"MODELSTORE_BIN={binary!r} is not an executable file")
    return binary


class TaskScenarioTests(unittest.TestCase):
    def setUp(self) -> None:
        self.store = Client(server_binary(), timeout=30.0)
        self.addCleanup(self.store.close)
        self.store.initialize()
        self.store.model_define(TASKS_SCHEMA)

    def count(self, entity: str, where: Optional[str] = None) -> int:
        return int(self.store.count(entity, where=where)["count"])

    def test_insert_then_get_by_id(self) -> None:
        task = self.store.insert("Task", {"title": "Write docs"})
        self.assertEqual(task["_entity"], "Task")
        self.assertTrue(task["_id"].startswith("Task/"), task["_id"])
        self.assertEqual(task["title"], "Write docs")
        self.assertIs(task["isCompleted"], False)
        self.assertEqual(task["priority"], 0)
        self.assertIsNone(task["category"])
        self.assertIsInstance(task["id"], uuid.UUID)  # a uuid attribute comes back as a UUID
        self.assertEqual(self.store.get(task["_id"]), task)

    def test_history_retention_keeps_the_newest_transactions(self) -> None:
        self.store.store_open(memory=True, history_retention="2")
        self.store.model_define(TASKS_SCHEMA)
        for i in range(10):
            self.store.insert("Task", {"title": f"t{i}"})
        tokens = [t["token"] for t in self.store.history()["transactions"]]
        self.assertEqual(tokens[-1], 10)
        self.assertLessEqual(len(tokens), 3)

    def test_to_one_update_sets_the_inverse(self) -> None:
        task = self.store.insert("Task", {"title": "File taxes"})
        category = self.store.insert("Category", {"name": "Home"})
        self.assertEqual(category["color"], "blue")
        self.assertNotIn("tasks", category, "to-many relationships are left out unless asked")
        self.assertEqual(self.store.insert("Category", {"name": "Work"}, to_many="ids")["tasks"], [])

        self.store.update(task["_id"], {"category": category["_id"]})
        self.assertEqual(self.store.get(category["_id"], to_many="ids")["tasks"], [task["_id"]])
        self.assertEqual(self.store.get(task["_id"])["category"], category["_id"])

    def test_to_many_relationships_as_ids_or_counts(self) -> None:
        home = self.store.insert("Category", {"name": "Home"})["_id"]
        work = self.store.insert("Category", {"name": "Work"})["_id"]
        tasks = [self.store.insert("Task", {"title": f"t{n}", "category": home})["_id"] for n in range(3)]
        self.assertEqual(self.store.get(home, to_many="count")["tasks"], 3)
        self.assertEqual([o["tasks"] for o in self.store.get_many([home, work], to_many="count")["objects"]], [3, 0])
        fetched = self.store.fetch("Category", sort=[{"key": "name"}], to_many="ids")["objects"]
        self.assertEqual([o["tasks"] for o in fetched], [tasks, []])
        self.assertNotIn("tasks", self.store.fetch("Category")["objects"][0])
        selected = self.store.fetch("Category", select=["tasks"], to_many="count")["objects"][0]
        self.assertEqual(selected["tasks"], tasks, "a to-many in select comes as ids")
        moved = self.store.update(tasks[0], {"category": work}, to_many="count")
        self.assertEqual(moved["category"], work)
        upserted = self.store.upsert("Category", {"id": self.store.get(work)["id"], "name": "Work"}, to_many="count")
        self.assertEqual(upserted["object"]["tasks"], 1)
        with self.store.observe("Category", sort=[{"key": "name"}], to_many="count") as live:
            self.assertEqual([o["tasks"] for o in live.objects], [2, 1])

    def test_fetch_pending_newest_first(self) -> None:
        ids: List[str] = []
        for title, done in (("first", False), ("done", True), ("third", False)):
            ids.append(self.store.insert("Task", {"title": title, "isCompleted": done})["_id"])
            time.sleep(0.02)  # createdAt has millisecond resolution

        result = self.store.fetch(
            "Task",
            where="isCompleted == NO",
            sort=[{"key": "createdAt", "ascending": False}],
        )
        fetched = result["objects"]
        self.assertEqual([o["_id"] for o in fetched], [ids[2], ids[0]])
        stamps = [o["createdAt"] for o in fetched]
        self.assertEqual(stamps, sorted(stamps, reverse=True))
        self.assertEqual(self.count("Task", "isCompleted == NO"), 2)
        self.assertEqual(self.count("Task"), 3)

    def test_deleting_a_category_cascades_to_its_tasks(self) -> None:
        category = self.store.insert("Category", {"name": "Work"})
        linked = [self.store.insert("Task", {"title": f"job {n}"})["_id"] for n in range(2)]
        for task_id in linked:
            self.store.update(task_id, {"category": category["_id"]})
        loose = self.store.insert("Task", {"title": "unfiled"})["_id"]

        result = self.store.delete(category["_id"])
        self.assertEqual(sorted(result["deleted"]), sorted([category["_id"], *linked]))
        for gone in [category["_id"], *linked]:
            with self.assertRaises(NotFoundError):
                self.store.get(gone)
        self.assertEqual(self.store.get(loose)["title"], "unfiled")
        self.assertEqual(self.count("Task"), 1)

    def test_get_many(self) -> None:
        a = self.store.insert("Task", {"title": "a"})["_id"]
        b = self.store.insert("Task", {"title": "b"})["_id"]
        objects = self.store.get_many([a, b])["objects"]
        self.assertEqual(sorted(o["_id"] for o in objects), sorted([a, b]))

    def test_wrong_type_is_a_validation_error(self) -> None:
        with self.assertRaises(ValidationError) as caught:
            self.store.insert("Task", {"title": 42})
        self.assertEqual(caught.exception.kind, "validation")
        self.assertEqual(self.count("Task"), 0)

    def test_duplicate_unique_value_is_a_constraint_error(self) -> None:
        first = self.store.insert("Category", {"name": "One"})
        with self.assertRaises(ConstraintError):
            self.store.insert("Category", {"name": "Two", "id": first["id"]})
        self.assertEqual(self.count("Category"), 1)

    def test_rolled_back_transaction_leaves_nothing(self) -> None:
        with self.assertRaises(RuntimeError):
            with self.store.transaction():
                self.store.insert("Task", {"title": "ghost"})
                self.store.insert("Category", {"name": "ghost"})
                raise RuntimeError("abort on purpose")
        self.assertEqual(self.count("Task"), 0)
        self.assertEqual(self.count("Category"), 0)

        with self.store.transaction():
            self.store.insert("Task", {"title": "kept"})
        self.assertEqual(self.count("Task"), 1)


class GoldenTranscriptTests(unittest.TestCase):
    """One test per ``Tests/Golden/*/transcript.jsonl`` (added below)."""


def _golden_test(transcript: Path) -> Callable[[GoldenTranscriptTests], None]:
    def test(self: GoldenTranscriptTests) -> None:
        golden.replay(transcript, server_binary())

    test.__doc__ = f"golden transcript {transcript.parent.name}"
    return test


def _no_golden_test(self: GoldenTranscriptTests) -> None:
    self.skipTest(f"no golden transcripts under {GOLDEN_DIR}")


_TRANSCRIPTS = golden.find_transcripts(REPO_ROOT)
for _path in _TRANSCRIPTS:
    _name = "test_golden_" + re.sub(r"\W", "_", _path.parent.name)
    setattr(GoldenTranscriptTests, _name, _golden_test(_path))
if not _TRANSCRIPTS:
    GoldenTranscriptTests.test_golden_transcripts = _no_golden_test  # type: ignore[attr-defined]


if __name__ == "__main__":
    unittest.main()
