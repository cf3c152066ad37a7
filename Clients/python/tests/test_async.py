"""AsyncClient against the server (MODELSTORE_BIN): the README example, live queries read
with ``async for``, value conversion, errors, async hooks; and that async_methods.py is the
current output of scripts/generate_async.py with every sync method mirrored."""

from __future__ import annotations

import asyncio
import inspect
import subprocess
import sys
import tempfile
import unittest
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, List

sys.path.insert(0, str(Path(__file__).resolve().parent))
from readme_blocks import run  # noqa: E402
from test_e2e import server_binary  # noqa: E402

from modelstore_client import AsyncClient, Client, ValidationError  # noqa: E402
from modelstore_client.async_methods import AsyncStoreMethods  # noqa: E402
from modelstore_client.methods import StoreMethods  # noqa: E402

PACKAGE = Path(__file__).resolve().parents[1]
SCHEMA = {"version": "1", "entities": [{"name": "Task", "attributes": [
    {"name": "title", "type": "string"}, {"name": "rank", "type": "int", "default": 0},
    {"name": "due", "type": "date", "optional": True}]}]}


class MirrorTests(unittest.TestCase):
    def test_the_generated_file_is_current(self) -> None:
        done = subprocess.run([sys.executable, str(PACKAGE / "scripts" / "generate_async.py"), "--check"],
                              capture_output=True, text=True)
        self.assertEqual(done.returncode, 0, done.stderr)

    def test_every_sync_method_has_an_awaitable_twin_with_the_same_params(self) -> None:
        for name, fn in vars(StoreMethods).items():
            if name.startswith("_") or not inspect.isfunction(fn) or name in ("call", "on_request"):
                continue
            with self.subTest(method=name):
                twin = getattr(AsyncClient, name)
                self.assertTrue(inspect.iscoroutinefunction(twin) or name == "transaction", name)
                self.assertEqual(list(inspect.signature(twin).parameters), list(inspect.signature(fn).parameters))


class AsyncClientTests(unittest.IsolatedAsyncioTestCase):
    async def asyncSetUp(self) -> None:
        self.dir = tempfile.TemporaryDirectory()
        self.path = str(Path(self.dir.name) / "t.store")
        self.store = await AsyncClient(server_binary(), store=self.path).start()
        await self.store.model_define(SCHEMA)

    async def asyncTearDown(self) -> None:
        await self.store.close()
        self.dir.cleanup()

    async def test_live_changes_from_another_process_in_order(self) -> None:
        live = await self.store.observe("Task", sort=["rank"])
        seen: List[int] = []
        live._callback = lambda q, change: seen.append(change["token"])
        due = datetime(2026, 1, 2, tzinfo=timezone.utc)

        def write() -> int:
            with Client(server_binary(), store=self.path) as other:
                for rank in (3, 1, 2):
                    other.insert("Task", {"title": f"t{rank}", "rank": rank, "due": due})
                return int(other.history(limit=1)["lastToken"])

        token = await asyncio.get_running_loop().run_in_executor(None, write)
        self.assertTrue(await live.wait_for(token, 60))  # a bound for failures only
        self.assertEqual([t["title"] for t in live.objects], ["t1", "t2", "t3"])
        self.assertEqual(live.objects[0]["due"], due)
        read: List[int] = []
        async for change in live:
            read.append(change["token"])
            if change["token"] == token:
                break
        self.assertEqual(read, seen)
        self.assertEqual(read, sorted(read))
        await live.close()

    async def test_errors_and_transactions(self) -> None:
        with self.assertRaises(ValidationError):
            await self.store.insert("Task", {"title": 42})
        with self.assertRaises(RuntimeError):
            async with self.store.transaction():
                await self.store.insert("Task", {"title": "rolled back"})
                raise RuntimeError("undo")
        self.assertEqual(await self.store.count("Task"), {"count": 0})

    async def test_concurrent_requests_are_routed_by_id(self) -> None:
        inserted = await asyncio.gather(*(self.store.insert("Task", {"title": f"t{i}", "rank": i}) for i in range(20)))
        self.assertEqual([t["rank"] for t in inserted], list(range(20)))
        upserted: Any = await self.store.get(inserted[0]["_id"])
        self.assertEqual(upserted["title"], "t0")

    async def test_async_hooks_answer_the_server(self) -> None:
        await self.store.initialize(capabilities={"migrationHooks": True})
        calls: List[Any] = []

        async def will(params: Any) -> None:
            calls.append(params["to"])
            await self.store.count("Task")  # the hook may call the server

        v2 = {**SCHEMA, "version": "2"}
        await self.store.migration_apply(
            [SCHEMA, v2], stages=[{"custom": {"from": "1", "to": "2", "willMigrate": True}}], will_migrate=will)
        self.assertEqual(calls, ["2"])


class ReadmeAsyncExampleTests(unittest.TestCase):
    def test_the_async_example_runs(self) -> None:
        with tempfile.TemporaryDirectory() as directory:
            printed = run("async-example", server_binary(), directory)
        self.assertEqual(len(printed.splitlines()), 2, printed)


if __name__ == "__main__":
    unittest.main()
