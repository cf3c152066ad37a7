"""Live queries and history through the Python client, with a second server process
writing the same file (MODELSTORE_BIN)."""

from __future__ import annotations

import io
import os
import random
import re
import tempfile
import unittest
from contextlib import redirect_stdout
from pathlib import Path
from unittest import mock
from typing import Any, List

from modelstore_client import Client, ConflictError

from test_e2e import server_binary

WAIT = 60.0  # wall-clock bound on waiting for a change (for failures only: a loaded machine must not trip it)

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

    def last_token(self) -> int:
        """The token of the script's last commit (it is the only writer)."""
        return int(self.script.history(limit=1)["lastToken"])

    def test_the_observed_list_follows_another_process(self) -> None:
        seen: List[int] = []
        live = self.editor.observe("Task", where="done == NO", sort=[{"key": "rank"}], select=["title", "rank"],
                                   callback=lambda live, change: seen.append(change["token"]))
        self.addCleanup(live.close)
        for i, rank in enumerate([5, 1, 3]):
            self.script.insert("Task", {"title": f"t{i}", "rank": rank})
        token = self.last_token()
        self.assertTrue(live.wait_for(token, WAIT), f"tokens seen: {seen}")
        self.assertEqual([o["title"] for o in live.objects], ["t1", "t2", "t0"])
        self.assertEqual(seen, sorted(seen))  # callbacks ran in stream order, up to the last commit
        self.assertEqual(seen[-1], token)

    def test_random_writes_keep_the_list_equal_to_a_fresh_fetch(self) -> None:
        query = {"where": "done == NO", "sort": [{"key": "rank"}, {"key": "title"}]}
        live = self.editor.observe("Task", **query)
        self.addCleanup(live.close)
        rng = random.Random(7)
        ids: List[str] = []
        expected: List[Any] = []
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
            previous, expected = expected, self.script.fetch("Task", **query)["objects"]
            if expected != previous:  # the commit changed the result: a change must carry its token
                self.assertTrue(live.wait_for(self.last_token(), WAIT), f"step {step}: token {live.token}")
            self.assertEqual(live.objects, expected, f"after step {step}")
        self.assertIsNone(live.error)

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


class ReadmeExampleTests(unittest.TestCase):
    def test_the_live_query_example_runs(self) -> None:
        readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
        block = re.search(r"<!-- live-example -->\n```python\n(.*?)```", readme, re.S)
        self.assertIsNotNone(block, "README.md has no live-example block")
        assert block is not None
        directory = tempfile.TemporaryDirectory()
        self.addCleanup(directory.cleanup)
        self.addCleanup(os.chdir, os.getcwd())
        os.chdir(directory.name)
        out = io.StringIO()
        with mock.patch.dict(os.environ, {"MODELSTORE_BIN": server_binary()}), redirect_stdout(out):
            exec(compile(block.group(1), "README.md live-example", "exec"), {})
        self.assertIn("2 tasks", out.getvalue())


if __name__ == "__main__":
    unittest.main()
