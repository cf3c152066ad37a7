"""Values convert both ways (README "Values"): round trips of each type through the server
(MODELSTORE_BIN), and the encoding rules without one."""

from __future__ import annotations

import datetime as dt
import json
import sys
import unittest
import uuid
from decimal import Decimal
from pathlib import Path
from typing import Any, Dict

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_e2e import server_binary  # noqa: E402

from modelstore_client import Client  # noqa: E402
from modelstore_client.values import SchemaTypes, encode  # noqa: E402

SCHEMA = {"version": "1", "entities": [
    {"name": "Item", "attributes": [
        {"name": "when", "type": "date", "optional": True},
        {"name": "amount", "type": "decimal", "optional": True},
        {"name": "ref", "type": "uuid", "optional": True},
        {"name": "blob", "type": "data", "optional": True},
        {"name": "label", "type": "string", "optional": True}],
     "relationships": [{"name": "parts", "destination": "Part", "toMany": True, "inverse": "item"}]},
    {"name": "Part", "attributes": [{"name": "made", "type": "date", "optional": True}],
     "relationships": [{"name": "item", "destination": "Item", "inverse": "parts"}]}]}

PARIS = dt.timezone(dt.timedelta(hours=1))
CASES: Dict[str, Any] = {
    "when": dt.datetime(2026, 3, 1, 9, 30, 0, 125000, tzinfo=dt.timezone.utc),
    "amount": Decimal("-1234567890.000000001"),
    "ref": uuid.UUID("0f0e0d0c-0b0a-0908-0706-050403020100"),
    "blob": bytes(range(256)),
}


class RoundTripTests(unittest.TestCase):
    def setUp(self) -> None:
        self.store = Client(server_binary())
        self.addCleanup(self.store.close)
        self.store.model_define(SCHEMA)

    def test_each_type_round_trips_through_insert_get_fetch_and_observe(self) -> None:
        for key, value in CASES.items():
            with self.subTest(key=key):
                inserted = self.store.insert("Item", {key: value})
                self.assertEqual(inserted[key], value)
                self.assertIs(type(inserted[key]), type(value))
                self.assertEqual(self.store.get(inserted["_id"])[key], value)
                where = self.store.fetch("Item", where=f"{key} == $v", variables={"v": value})["objects"]
                self.assertEqual([o["_id"] for o in where], [inserted["_id"]])
                self.assertEqual(self.store.fetch("Item", where=f"{key} == %@", args=[value])["objects"][0][key], value)
                updated = self.store.update(inserted["_id"], {key: None})
                self.assertIsNone(updated[key])

    def test_dates_are_aware_utc_and_keep_milliseconds(self) -> None:
        item = self.store.insert("Item", {"when": dt.datetime(2026, 3, 1, 9, 30, 0, 123456, tzinfo=PARIS)})
        self.assertEqual(item["when"], dt.datetime(2026, 3, 1, 8, 30, 0, 123000, tzinfo=dt.timezone.utc))
        self.assertEqual(item["when"].tzinfo, dt.timezone.utc)
        midnight = self.store.insert("Item", {"when": dt.date(2026, 3, 1)})
        self.assertEqual(midnight["when"], dt.datetime(2026, 3, 1, tzinfo=dt.timezone.utc))

    def test_naive_datetimes_are_refused_before_sending(self) -> None:
        with self.assertRaisesRegex(TypeError, "naive datetime"):
            self.store.insert("Item", {"when": dt.datetime(2026, 3, 1)})
        self.assertEqual(self.store.count("Item"), {"count": 0})

    def test_nested_objects_live_changes_and_upsert_convert(self) -> None:
        item = self.store.insert("Item", {"label": "a"})
        made = CASES["when"]
        live = self.store.observe("Part", include=["item"])
        self.addCleanup(live.close)
        part = self.store.insert("Part", {"made": made, "item": item["_id"]})
        self.assertEqual(part["made"], made)
        fetched = self.store.fetch("Part", include=["item"])["objects"][0]
        self.assertEqual(fetched["made"], made)
        self.assertEqual(fetched["item"]["_entity"], "Item")
        self.assertTrue(live.wait_for(self.store.history(limit=1)["lastToken"], 10))
        self.assertEqual(live.objects[0]["made"], made)
        change = live.next_change(0)
        assert change is not None
        self.assertEqual(change["inserted"][0]["object"]["made"], made)
        many = self.store.get_many([part["_id"]])["objects"]
        self.assertEqual(many[0]["made"], made)

    def test_another_processes_schema_is_read_when_an_unknown_entity_comes_back(self) -> None:
        self.store.insert("Item", {"label": "x"})  # the client has read the schema now
        grown = json.loads(json.dumps(SCHEMA))
        grown["version"] = "2"
        grown["entities"].append({"name": "Log", "attributes": [{"name": "at", "type": "date"}]})
        self.store.call("model.define", {"schema": grown})  # behind the wrappers' back
        log = self.store.insert("Log", {"at": CASES["when"]})
        self.assertEqual(log["at"], CASES["when"])

    def test_convert_values_false_returns_the_wire_form(self) -> None:
        with Client(server_binary(), convert_values=False) as raw:
            raw.model_define(SCHEMA)
            item = raw.insert("Item", {key: value for key, value in CASES.items()})
            self.assertEqual(item["when"], "2026-03-01T09:30:00.125Z")
            self.assertEqual(item["amount"], "-1234567890.000000001")
            self.assertEqual(item["ref"], "0F0E0D0C-0B0A-0908-0706-050403020100")
            self.assertIsInstance(item["blob"], str)


class EncodingTests(unittest.TestCase):
    def test_wire_forms(self) -> None:
        self.assertEqual(encode(dt.datetime(2026, 3, 1, 9, 30, tzinfo=PARIS)), "2026-03-01T08:30:00Z")
        self.assertEqual(encode(dt.date(2026, 3, 1)), "2026-03-01")
        self.assertEqual(encode(Decimal("1E+3")), "1000")
        self.assertEqual(encode(uuid.UUID(int=1)), "00000000-0000-0000-0000-000000000001")
        self.assertEqual(encode(b"\x00\xff"), "AP8=")
        with self.assertRaises(TypeError):
            encode(object())

    def test_a_value_not_in_wire_form_stays_as_sent(self) -> None:
        types = SchemaTypes(SCHEMA)
        odd = {"_id": "Item/1", "_entity": "Item", "when": 1e300, "amount": "x", "ref": "nope", "blob": "!!", "label": "s"}
        self.assertEqual(types.object(odd), odd)
        self.assertEqual(types.object({"_id": "Other/1", "_entity": "Other", "when": "2026-01-01"})["when"], "2026-01-01")


if __name__ == "__main__":
    unittest.main()
