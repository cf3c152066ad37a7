"""End-to-end tests of ``import.coreData`` and ``store.open(format="coredata")`` against the
real binary, on a small Core Data-layout store written here with ``sqlite3`` (stdlib)."""

from __future__ import annotations

import datetime
import uuid

import hashlib
import os
import plistlib
import sqlite3
import sys
import tempfile
import unittest
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
if SRC.is_dir() and str(SRC) not in sys.path:
    sys.path.insert(0, str(SRC))

from modelstore_client import Client, ReadOnlyError, ValidationError  # noqa: E402

from test_e2e import server_binary  # noqa: E402


def write_core_data_store(path: str, bad_uuid: bool = False) -> None:
    """Category (1) and Task (2) in Core Data's tables: Z_PK/Z_ENT/Z_OPT, a to-one key with
    its index, dates since 2001, 16-byte UUIDs, a Z_METADATA binary plist."""
    c = sqlite3.connect(path)
    c.executescript(
        """
        CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
        CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB);
        CREATE TABLE ZCATEGORY ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR );
        CREATE UNIQUE INDEX Z_Category_UNIQUE_name ON ZCATEGORY (ZNAME COLLATE BINARY ASC);
        CREATE TABLE ZTASK ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZDONE INTEGER,
          ZPRIORITY INTEGER, ZCATEGORY INTEGER, ZDUE TIMESTAMP, ZTITLE VARCHAR, ZTASKID BLOB );
        CREATE INDEX ZTASK_ZCATEGORY_INDEX ON ZTASK (ZCATEGORY);
        INSERT INTO Z_PRIMARYKEY VALUES (1, 'Category', 0, 2), (2, 'Task', 0, 3);
        INSERT INTO ZCATEGORY VALUES (1, 1, 1, 'Home'), (2, 1, 1, 'Work');
        """
    )
    plist = plistlib.dumps(
        {"NSStoreType": "SQLite", "NSStoreModelVersionHashes": {"Category": b"\1" * 32, "Task": b"\2" * 32}},
        fmt=plistlib.FMT_BINARY,
    )
    c.execute("INSERT INTO Z_METADATA VALUES (1, ?, ?)", ("0B5C7D2E-9A41-4C3B-8E6F-112233445566", plist))
    uuid = bytes(range(16))
    c.executemany(
        "INSERT INTO ZTASK VALUES (?, 2, 1, ?, ?, ?, ?, ?, ?)",
        [
            (1, 0, 2, 2, 700000000.0, "Write report", uuid),
            (2, 1, 1, 1, None, "Buy milk", None),
            (3, 0, 3, 1, 700086400.5, "Call Bob", uuid[:15] if bad_uuid else uuid[::-1]),
        ],
    )
    c.commit()
    c.close()


class CoreDataStoreTests(unittest.TestCase):
    def setUp(self) -> None:
        binary = server_binary()
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)
        self.source = os.path.join(self.dir.name, "Tasks.sqlite")
        write_core_data_store(self.source)
        self.store = Client(binary, timeout=30.0)
        self.addCleanup(self.store.close)
        self.store.initialize()

    def test_import_core_data_copies_every_row(self) -> None:
        result = self.store.import_core_data(self.source, progress_token="cd")
        self.assertEqual(result["counts"], {"Category": 2, "Task": 3})
        self.assertTrue(result["schemaDefined"])
        self.assertEqual(result["source"]["storeUUID"], "0B5C7D2E-9A41-4C3B-8E6F-112233445566")
        home = self.store.fetch("Task", where="category.name == %@", args=["Home"],
                                sort=[{"key": "priority", "ascending": False}])["objects"]
        self.assertEqual([t["_id"] for t in home], ["Task/3", "Task/2"])
        self.assertEqual(home[0]["due"], datetime.datetime(2023, 3, 9, 20, 26, 40, 500000, tzinfo=datetime.timezone.utc))
        self.assertEqual(home[0]["taskid"], uuid.UUID("0F0E0D0C-0B0A-0908-0706-050403020100"))

    def test_a_bad_row_imports_nothing_and_is_named(self) -> None:
        bad = os.path.join(self.dir.name, "Bad.sqlite")
        write_core_data_store(bad, bad_uuid=True)
        with self.assertRaises(ValidationError) as caught:
            self.store.import_core_data(bad)
        self.assertEqual(caught.exception.data["entity"], "Task")
        self.assertEqual(caught.exception.data["zpk"], 3)
        self.assertEqual(caught.exception.data["column"], "ZTASKID")
        self.assertIsNone(self.store.store_info()["schemaHash"])

    def test_open_in_place_read_only_and_query(self) -> None:
        digest = hashlib.sha256(Path(self.source).read_bytes()).hexdigest()
        info = self.store.store_open(self.source, read_only=True, format="coredata")
        self.assertEqual(info["format"], "coredata")
        self.assertEqual(info["counts"], {"Category": 2, "Task": 3})
        self.assertEqual(int(self.store.count("Task", where="done == 0")["count"]), 2)
        groups = self.store.aggregate(
            "Task", [{"fn": "sum", "key": "priority", "as": "total"}], group_by=["category.name"])["groups"]
        self.assertEqual({g["key"]["category.name"]: g["values"]["total"] for g in groups}, {"Home": 4, "Work": 2})
        self.assertEqual(self.store.get("Task/1")["title"], "Write report")
        with self.assertRaises(ReadOnlyError):
            self.store.insert("Category", {"name": "Errands"})
        self.assertEqual(hashlib.sha256(Path(self.source).read_bytes()).hexdigest(), digest)
        self.assertEqual(sorted(os.listdir(self.dir.name)), ["Tasks.sqlite"])


if __name__ == "__main__":
    unittest.main()
