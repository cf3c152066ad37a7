"""The time-out rule (README "Time limits", policy.py) against the fake server: a read-only
request is cancelled, a write never is and its outcome still arrives; long operations have
no default limit. The fake server holds a reply until told (``hold``/``release``), so no
test depends on timing except that a held reply does not come within the short limit."""

from __future__ import annotations

import asyncio
import sys
import unittest
from pathlib import Path

from modelstore_client import AsyncClient, Client, RequestTimeout
from modelstore_client.policy import LONG, READ_ONLY, time_limit

FAKE_SERVER = str(Path(__file__).resolve().parent / "fake_server.py")
PROTOCOL_MD = Path(__file__).resolve().parents[3] / "protocol.md"
SHORT = 0.2
# The fake server's own methods (hold, release, cancelled) are answered at once: their limit
# is a bound for failures only, not the short one under test.
CONTROL = 30.0


class PolicyTests(unittest.TestCase):
    def test_long_operations_have_no_default_limit(self) -> None:
        for method in ("import.json", "import.coreData", "export.json", "migration.apply"):
            self.assertIn(method, LONG)
            self.assertIsNone(time_limit(method, None, 30.0))
            self.assertEqual(time_limit(method, 5.0, 30.0), 5.0)
        self.assertEqual(time_limit("objects.insert", None, 30.0), 30.0)

    def test_no_method_that_can_fail_as_a_write_is_read_only(self) -> None:
        # protocol.md lists -32010 (a write on a read-only store) for every method that writes
        text = PROTOCOL_MD.read_text(encoding="utf-8")
        sections = text.split("\n### ")
        writers = {s.split("\n", 1)[0].strip() for s in sections if "-32010" in s.split("\n### ")[0]}
        self.assertIn("objects.insert", writers)
        self.assertFalse(READ_ONLY & writers, sorted(READ_ONLY & writers))


class SyncTimeoutTests(unittest.TestCase):
    def setUp(self) -> None:
        self.client = Client(sys.executable, [FAKE_SERVER], timeout=SHORT, convert_values=False)
        self.addCleanup(self.client.close)

    def test_a_read_only_request_is_cancelled(self) -> None:
        self.client.call("hold", {"method": "query.fetch"}, timeout=CONTROL)
        with self.assertRaises(RequestTimeout) as caught:
            self.client.fetch("Task")
        self.assertTrue(caught.exception.cancelled)
        self.assertIsNone(caught.exception.outcome)
        self.client.call("release", {"method": "query.fetch"}, timeout=CONTROL)
        self.assertIn(caught.exception.request_id, self.client.call("cancelled", timeout=CONTROL))

    def test_a_write_is_left_running_and_its_outcome_arrives(self) -> None:
        self.client.call("hold", {"method": "objects.insert"}, timeout=CONTROL)
        with self.assertRaises(RequestTimeout) as caught:
            self.client.insert("Task", {"title": "x"})
        error = caught.exception
        self.assertFalse(error.cancelled)
        self.client.call("release", {"method": "objects.insert"}, timeout=CONTROL)
        result = error.outcome.result(timeout=10)
        self.assertEqual(result["method"], "objects.insert")
        self.assertNotIn(error.request_id, self.client.call("cancelled", timeout=CONTROL))


class AsyncTimeoutTests(unittest.IsolatedAsyncioTestCase):
    async def asyncSetUp(self) -> None:
        self.client = await AsyncClient(sys.executable, [FAKE_SERVER], timeout=SHORT, convert_values=False).start()

    async def asyncTearDown(self) -> None:
        await self.client.close()

    async def test_a_read_only_request_is_cancelled(self) -> None:
        await self.client.call("hold", {"method": "query.count"}, timeout=CONTROL)
        with self.assertRaises(RequestTimeout) as caught:
            await self.client.count("Task")
        self.assertTrue(caught.exception.cancelled)
        await self.client.call("release", {"method": "query.count"}, timeout=CONTROL)
        self.assertIn(caught.exception.request_id, await self.client.call("cancelled", timeout=CONTROL))

    async def test_a_write_is_left_running_and_its_outcome_arrives(self) -> None:
        await self.client.call("hold", {"method": "objects.delete"}, timeout=CONTROL)
        with self.assertRaises(RequestTimeout) as caught:
            await self.client.delete("Task/1")
        self.assertFalse(caught.exception.cancelled)
        await self.client.call("release", {"method": "objects.delete"}, timeout=CONTROL)
        result = await asyncio.wait_for(caught.exception.outcome, 10)
        self.assertEqual(result["params"], {"id": "Task/1"})
        self.assertNotIn(caught.exception.request_id, await self.client.call("cancelled", timeout=CONTROL))

    async def test_cancelling_the_awaiting_task_cancels_reads_only(self) -> None:
        await self.client.call("hold", {"method": "objects.update"}, timeout=CONTROL)
        await self.client.call("hold", {"method": "query.ids"}, timeout=CONTROL)
        write = asyncio.ensure_future(self.client.call("objects.update", {"id": "Task/1"}, timeout=60))
        read = asyncio.ensure_future(self.client.call("query.ids", {"entity": "Task"}, timeout=60))
        while len(self.client._pending) < 2:  # both sent
            await asyncio.sleep(0)
        write.cancel()
        read.cancel()
        await asyncio.gather(write, read, return_exceptions=True)
        await self.client.call("release", {"method": "objects.update"}, timeout=CONTROL)
        await self.client.call("release", {"method": "query.ids"}, timeout=CONTROL)
        cancelled = await self.client.call("cancelled", timeout=CONTROL)
        self.assertEqual(len(cancelled), 1, cancelled)  # only the read


if __name__ == "__main__":
    unittest.main()
