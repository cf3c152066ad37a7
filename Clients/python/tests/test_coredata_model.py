"""End-to-end tests of the Core Data model wrappers (model_import_xcdatamodel,
model_audit, model_generate) against the real ``modelstore`` binary and the
fixture models in Tests/Fixtures/CoreDataModels. Skipped without MODELSTORE_BIN.
"""

from __future__ import annotations

import sys
import unittest
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
if SRC.is_dir() and str(SRC) not in sys.path:
    sys.path.insert(0, str(SRC))

from modelstore_client import Client, InvalidParamsError  # noqa: E402

from test_e2e import REPO_ROOT, server_binary  # noqa: E402

FIXTURES = REPO_ROOT / "Tests" / "Fixtures" / "CoreDataModels"


class CoreDataModelTests(unittest.TestCase):
    def setUp(self) -> None:
        self.store = Client(server_binary(), timeout=30.0)
        self.addCleanup(self.store.close)

    def test_import_bundle(self) -> None:
        result = self.store.model_import_xcdatamodel(path=str(FIXTURES / "Tasks.xcdatamodeld"))
        self.assertEqual(result["kind"], "bundle")
        self.assertEqual(result["current"], "Tasks 3")
        self.assertTrue(result["ok"])
        self.assertEqual([v["name"] for v in result["versions"]], ["Tasks", "Tasks 2", "Tasks 3"])
        task = next(e for e in result["schema"]["entities"] if e["name"] == "CDTask")
        is_done = next(a for a in task["attributes"] if a["name"] == "isDone")
        self.assertEqual(is_done["originalName"], "done")
        # The imported schema installs as it is.
        self.assertTrue(self.store.model_define(result["schema"])["changed"])

    def test_import_inline_xml_reports_the_place(self) -> None:
        xml = '<model>\n  <entity name="note"/>\n</model>'
        result = self.store.model_import_xcdatamodel(xml=xml, name="Notes")
        self.assertFalse(result["ok"])
        [error] = result["versions"][0]["errors"]
        self.assertEqual((error["code"], error["line"], error["column"]), ("invalidName", 2, 3))

    def test_audit_with_coexistence(self) -> None:
        report = self.store.model_audit(
            path=str(FIXTURES / "Tasks.xcdatamodeld"),
            cloud_kit=True,
            compare_with=str(FIXTURES / "Tasks.xcdatamodeld" / "Tasks 2.xcdatamodel"),
        )
        self.assertTrue(report["cloudKit"])
        codes = {f["code"] for f in report["needsAttention"]}
        self.assertIn("integerWidth", codes)
        self.assertIn("cloudKitUnique", codes)
        self.assertFalse(report["coexistence"]["compatible"])
        self.assertIn(
            "'CDTask.isDone' is only in model",
            [d["message"] for d in report["coexistence"]["differences"]],
        )

    def test_generate_each_target(self) -> None:
        path = str(FIXTURES / "Features.xcdatamodel")
        names = {
            target: [f["name"] for f in self.store.model_generate(target, path=path)["files"]]
            for target in ("swiftdata", "coredata", "typescript", "python")
        }
        self.assertEqual(names["swiftdata"], ["Item.swift", "Document.swift", "Page.swift", "Person.swift"])
        self.assertEqual(names["coredata"], ["Item.swift", "DocumentMO.swift", "Page.swift", "Person.swift"])
        self.assertEqual(names["typescript"], ["models.ts"])
        self.assertEqual(names["python"], ["models.py"])
        versioned = self.store.model_generate("swiftdata", path=str(FIXTURES / "Tasks.xcdatamodeld"), base_name="Todo")
        self.assertEqual(versioned["files"][-1]["name"], "TodoMigrationPlan.swift")

    def test_generate_refuses_an_unknown_target(self) -> None:
        with self.assertRaises(InvalidParamsError) as caught:
            self.store.model_generate("kotlin", schema={"entities": []})
        self.assertEqual(caught.exception.code, -32602)


if __name__ == "__main__":
    unittest.main()
