"""Migrations through the Python client against the real binary (MODELSTORE_BIN)."""

from __future__ import annotations

import os
import tempfile
import unittest
from typing import Any, Dict, List

from modelstore_client import Client, ModelStoreError

from test_e2e import server_binary


def schema(version: str, task_attributes: List[Dict[str, Any]]) -> Dict[str, Any]:
    return {"version": version, "entities": [{"name": "Task", "attributes": task_attributes}]}


V1 = schema("1", [{"name": "title", "type": "string"}, {"name": "done", "type": "bool", "default": False}])
V2 = schema(
    "2",
    [
        {"name": "title", "type": "string"},
        {"name": "isCompleted", "type": "bool", "default": False, "originalName": "done"},
        {"name": "priority", "type": "int", "default": 0},
    ],
)


class MigrationTests(unittest.TestCase):
    def setUp(self) -> None:
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)
        self.path = os.path.join(self.dir.name, "tasks.store")
        self.store = Client(server_binary(), store=self.path, timeout=30.0)
        self.addCleanup(self.store.close)
        self.store.initialize(capabilities={"migrationHooks": True})
        self.store.model_define(V1)
        self.store.insert("Task", {"title": "urgent: taxes", "done": True})
        self.store.insert("Task", {"title": "laundry"})

    def tasks(self) -> List[Dict[str, Any]]:
        return list(self.store.fetch("Task", sort=[{"key": "title"}])["objects"])

    def test_diff_status_and_plan_change_nothing(self) -> None:
        diff = self.store.model_diff(V2)
        self.assertEqual([c["kind"] for c in diff["changes"]], ["renameAttribute", "addAttribute"])
        self.assertEqual(self.store.migration_status(V2)["status"], "lightweight")
        plan = self.store.migration_plan([V1, V2])
        self.assertEqual(plan["stages"][0]["status"], "planned")
        self.assertIn({"action": "rename column Task.done to isCompleted"}, plan["stages"][0]["steps"])
        self.assertEqual(self.store.model_get()["version"], "1")

    def test_did_migrate_hook_uses_ordinary_calls(self) -> None:
        seen: List[Any] = []

        def did_migrate(params: Any) -> None:
            seen.append(params["schema"]["version"])
            self.store.update_where("Task", "title BEGINSWITH 'urgent'", {"priority": 5})

        result = self.store.migration_apply(
            [V1, V2],
            stages=[{"custom": {"from": "1", "to": "2", "didMigrate": True}}],
            did_migrate=did_migrate,
        )
        self.assertEqual(seen, ["2"])
        self.assertTrue(result["backup"].endswith(".before-1-to-2.backup"))
        self.assertEqual([(t["isCompleted"], t["priority"]) for t in self.tasks()], [(False, 0), (True, 5)])

    def test_a_failing_hook_rolls_the_stage_back(self) -> None:
        def refuse(params: Any) -> None:
            raise ValueError("not today")

        with self.assertRaises(ModelStoreError) as caught:
            self.store.migration_apply(
                [V1, V2], stages=[{"custom": {"from": "1", "to": "2", "willMigrate": True}}], will_migrate=refuse
            )
        self.assertEqual(caught.exception.kind, "hookFailed")
        self.assertEqual(self.store.model_get()["version"], "1")
        self.assertEqual([t["done"] for t in self.tasks()], [False, True])

    def test_data_loss_needs_permission(self) -> None:
        v3 = schema("3", [{"name": "title", "type": "string"}])
        with self.assertRaises(ModelStoreError) as caught:
            self.store.migration_apply([V1, v3], backup=False)
        self.assertEqual(caught.exception.kind, "migrationRequired")
        self.assertEqual(caught.exception.data["dataLoss"][0]["attribute"], "done")
        result = self.store.migration_apply([V1, v3], backup=False, allow_data_loss=True)
        self.assertTrue(result["dataLoss"])



class ExportWithRelatedTests(unittest.TestCase):
    def test_the_export_is_closed_under_relationships(self) -> None:
        schema = {
            "version": "1",
            "entities": [
                {"name": "Task", "attributes": [{"name": "title", "type": "string"}],
                 "relationships": [{"name": "category", "destination": "Category", "inverse": "tasks"}]},
                {"name": "Category", "attributes": [{"name": "name", "type": "string"}],
                 "relationships": [{"name": "tasks", "destination": "Task", "inverse": "category", "toMany": True}]},
            ],
        }
        with Client(server_binary(), timeout=30.0) as store:
            store.model_define(schema)
            home = store.insert("Category", {"name": "home"})["_id"]
            store.insert("Task", {"title": "a", "category": home})
            store.insert("Task", {"title": "b", "category": home})
            store.insert("Category", {"name": "empty"})
            result = store.export_json(entities=["Task"], where="title == 'a'", with_related=True)
            self.assertEqual(result["counts"], {"Task": 2, "Category": 1})


if __name__ == "__main__":
    unittest.main()
