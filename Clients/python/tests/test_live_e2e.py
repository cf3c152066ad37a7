"""Live queries and history through the Python client, with a second server process
writing the same file (MODELSTORE_BIN)."""

from __future__ import annotations

import os
import random
import tempfile
import threading
import unittest
from typing import Any, Dict, List

from modelstore_client import Client, ConflictError

from test_e2e import server_binary

SCHEMA = {
    "version": "1",
    "entities": [
        {
            "name": "Task",
            "attributes": [
                {"name": "title", "type": "string"},
                {"name": "rank", "type": "int", "default": 0},
                {"name": "done", "type": "bool", "default": False},
            ],
        }
    ],
}


class LiveQueryTests(unittest.TestCase):
    def setUp(self) -> None:
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)
        path = os.path.join(self.dir.name, "shared.store")
        self.editor = Client(server_binary(), store=path, timeout=30.0)
        self.addCleanup(self.editor.close)
        self.editor.initialize()
        self.editor.model_define(SCHEMA)
        self.script = Client(server_binary(), store=path, timeout=30.0)
        self.addCleanup(self.script.close)
        self.script.initialize()

    def test_the_observed_list_follows_another_process(self) -> None:
        seen: List[Dict[str, Any]] = []
        done = threading.Event()

        def on_change(live: Any, change: Dict[str, Any]) -> None:
            seen.append(change)
            if len(live.objects) == 3:
                done.set()

        live = self.editor.observe("Task", where="done == NO", sort=[{"key": "rank"}], select=["title", "rank"], callback=on_change)
        self.addCleanup(live.close)
        for i, rank in enumerate([5, 1, 3]):
            self.script.insert("Task", {"title": f"t{i}", "rank": rank})
        self.assertTrue(done.wait(10), f"changes seen: {seen}")
        self.assertEqual([o["title"] for o in live.objects], ["t1", "t2", "t0"])

    def test_random_writes_keep_the_list_equal_to_a_fresh_fetch(self) -> None:
        live = self.editor.observe("Task", where="done == NO", sort=[{"key": "rank"}, {"key": "title"}])
        self.addCleanup(live.close)
        rng = random.Random(7)
        ids: List[str] = []
        for step in range(40):
            roll = rng.random()
            if not ids or roll < 0.4:
                ids.append(self.script.insert("Task", {"title": f"t{step}", "rank": rng.randrange(5)})["_id"])
            elif roll < 0.75:
                self.script.update(rng.choice(ids), {"rank": rng.randrange(5)})
            elif roll < 0.85:
                self.script.update(rng.choice(ids), {"done": rng.random() < 0.5})
            else:
                self.script.delete(ids.pop(rng.randrange(len(ids))))
            expected = self.editor.fetch("Task", where="done == NO", sort=[{"key": "rank"}, {"key": "title"}])["objects"]
            for _ in range(20):
                if live.objects == expected:
                    break
                live.next_change(timeout=2)
            self.assertEqual(live.objects, expected, f"after step {step}")

    def test_optimistic_updates(self) -> None:
        task = self.script.insert("Task", {"title": "x"})
        version = self.editor.get(task["_id"], with_version=True)["_version"]
        self.script.update(task["_id"], {"rank": 1}, if_version=version)
        with self.assertRaises(ConflictError):
            self.editor.update(task["_id"], {"rank": 2}, if_version=version)

    def test_history_names_authors(self) -> None:
        self.script.save([{"op": "insert", "entity": "Task", "values": {"title": "x"}}], author="sync")
        history = self.editor.history(author="sync")
        self.assertEqual(len(history["transactions"]), 1)
        self.assertEqual(history["transactions"][0]["changes"][0]["op"], "insert")


if __name__ == "__main__":
    unittest.main()
