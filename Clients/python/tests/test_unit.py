"""Transport and error-mapping tests against tests/fake_server.py.

They need no Swift binary: the fake server speaks the same line-delimited
JSON-RPC, so routing, timeouts, process death and shutdown are exercised
for real over pipes.
"""

from __future__ import annotations

import json

import os
import random
import stat
import sys
import tempfile
import threading
import time
import unittest
from pathlib import Path
from typing import Any, Dict, List
from unittest import mock

SRC = Path(__file__).resolve().parents[1] / "src"
if SRC.is_dir() and str(SRC) not in sys.path:
    sys.path.insert(0, str(SRC))

from modelstore_client import (  # noqa: E402
    BinaryNotFoundError,
    BusyError,
    CancelledError,
    Client,
    ConflictError,
    ConstraintError,
    DeleteDeniedError,
    InvalidModelError,
    InvalidParamsError,
    InvalidRequestError,
    MethodNotFoundError,
    MigrationRequiredError,
    ModelStoreError,
    NotFoundError,
    ParseError,
    ReadOnlyError,
    RequestTimeout,
    RPCError,
    SchemaMismatchError,
    ServerExited,
    TransactionError,
    ValidationError,
    error_from_response,
)
from modelstore_client.client import resolve_binary  # noqa: E402

FAKE_SERVER = str(Path(__file__).resolve().parent / "fake_server.py")

KIND_CASES = [
    ("validation", ValidationError),
    ("constraint", ConstraintError),
    ("notFound", NotFoundError),
    ("deleteDenied", DeleteDeniedError),
    ("invalidModel", InvalidModelError),
    ("schemaMismatch", SchemaMismatchError),
    ("migrationRequired", MigrationRequiredError),
    ("conflict", ConflictError),
    ("busy", BusyError),
    ("readOnly", ReadOnlyError),
    ("transaction", TransactionError),
]
CODE_CASES = [
    (-32800, CancelledError),
    (-32601, MethodNotFoundError),
    (-32602, InvalidParamsError),
    (-32600, InvalidRequestError),
    (-32700, ParseError),
]


def fake_client(*extra: str, timeout: float = 10.0) -> Client:
    return Client(sys.executable, [FAKE_SERVER, *extra], timeout=timeout)


class FakeServerCase(unittest.TestCase):
    def setUp(self) -> None:
        self.client = fake_client()
        self.addCleanup(self.client.close)


class RoutingTests(FakeServerCase):
    def test_echo_roundtrip(self) -> None:
        params = {"text": "héllo", "n": [1, 2.5, None, True]}
        self.assertEqual(self.client.call("echo", params), params)

    def test_concurrent_calls_from_many_threads_are_routed_by_id(self) -> None:
        errors: List[str] = []

        def worker(worker_id: int) -> None:
            rng = random.Random(worker_id)
            for n in range(10):
                params = {"worker": worker_id, "n": n, "delay": rng.random() * 0.02}
                got = self.client.call("echo", params)
                if got != params:
                    errors.append(f"worker {worker_id} sent {params}, got {got}")

        threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        self.assertEqual(errors, [])

    def test_out_of_order_replies_reach_the_right_future(self) -> None:
        slow, slow_id = self.client.call_async("echo", {"delay": 0.3, "tag": "slow"})
        fast, fast_id = self.client.call_async("echo", {"tag": "fast"})
        self.assertNotEqual(slow_id, fast_id)
        self.assertEqual(fast.result(5)["tag"], "fast")
        self.assertFalse(slow.done())
        self.assertEqual(slow.result(5)["tag"], "slow")

    def test_non_json_output_is_skipped(self) -> None:
        with self.assertLogs("modelstore_client", level="WARNING") as logs:
            self.assertIs(self.client.call("garbage"), True)
        self.assertIn("not json", "\n".join(logs.output))
        self.assertEqual(self.client.call("echo", {"a": 1}), {"a": 1})

    def test_notify_sends_no_id(self) -> None:
        self.client.notify("custom/ping", {"x": 1})
        self.assertIn("custom/ping", self.client.call("history"))


class ErrorMappingTests(unittest.TestCase):
    def test_each_kind_maps_to_its_subclass(self) -> None:
        for kind, cls in KIND_CASES:
            with self.subTest(kind=kind):
                error = error_from_response(
                    {"code": -32000, "message": "nope", "data": {"kind": kind, "x": 1}}
                )
                self.assertIs(type(error), cls)
                self.assertEqual((error.code, error.message, error.kind), (-32000, "nope", kind))
                self.assertEqual(error.data, {"kind": kind, "x": 1})

    def test_standard_codes_map_to_their_subclass(self) -> None:
        for code, cls in CODE_CASES:
            with self.subTest(code=code):
                error = error_from_response({"code": code, "message": "m"})
                self.assertIs(type(error), cls)
                self.assertIsNone(error.kind)

    def test_unknown_kind_is_plain_rpc_error(self) -> None:
        error = error_from_response({"code": -32000, "message": "m", "data": {"kind": "weird"}})
        self.assertIs(type(error), RPCError)
        self.assertEqual(error.kind, "weird")

    def test_non_object_or_non_string_kind_data(self) -> None:
        self.assertIsNone(error_from_response({"code": 1, "message": "m", "data": [1]}).kind)
        self.assertIsNone(error_from_response({"code": 1, "message": "m", "data": {"kind": 3}}).kind)

    def test_str_shows_code_message_and_kind(self) -> None:
        text = str(error_from_response({"code": -32001, "message": "bad title",
                                        "data": {"kind": "validation"}}))
        for part in ("-32001", "bad title", "validation"):
            self.assertIn(part, text)

    def test_hierarchy(self) -> None:
        for _, cls in KIND_CASES + CODE_CASES:
            self.assertTrue(issubclass(cls, RPCError))
        self.assertTrue(issubclass(RPCError, ModelStoreError))
        self.assertTrue(issubclass(RequestTimeout, TimeoutError))
        self.assertTrue(issubclass(ServerExited, ModelStoreError))


class ErrorsOverTheWireTests(FakeServerCase):
    def test_server_errors_raise_mapped_subclasses(self) -> None:
        for kind, cls in KIND_CASES:
            with self.subTest(kind=kind):
                with self.assertRaises(cls) as caught:
                    self.client.call("fail", {"code": -32000, "message": f"{kind}!",
                                              "data": {"kind": kind}})
                self.assertEqual(caught.exception.message, f"{kind}!")
        for code, cls in CODE_CASES:
            with self.subTest(code=code):
                with self.assertRaises(cls):
                    self.client.call("fail", {"code": code, "message": "x"})

    def test_unknown_method(self) -> None:
        with self.assertRaises(MethodNotFoundError):
            self.client.call("no.such.method")


class NotificationTests(FakeServerCase):
    def test_handler_receives_params_and_can_unsubscribe(self) -> None:
        received: List[Any] = []
        arrived = threading.Event()

        def handler(params: Any) -> None:
            received.append(params)
            arrived.set()

        remove = self.client.on_notification("$/progress", handler)
        self.client.call("notifyMe", {"method": "$/progress", "params": {"done": 3}})
        self.assertTrue(arrived.wait(5))
        self.assertEqual(received, [{"done": 3}])

        remove()
        # Handlers run in the order they were added, one notification at a time, on one
        # thread: once a handler added after the removed one has seen the next notification,
        # the removed one would have seen it too.
        witnessed = threading.Event()
        self.client.on_notification("$/progress", lambda params: witnessed.set())
        self.client.call("notifyMe", {"method": "$/progress", "params": {"done": 4}})
        self.assertTrue(witnessed.wait(5))
        self.assertEqual(received, [{"done": 3}])

    def test_handler_may_call_the_server(self) -> None:
        results: List[Any] = []
        done = threading.Event()

        def handler(params: Any) -> None:
            results.append(self.client.call("echo", {"from": "handler"}))
            done.set()

        self.client.on_notification("query/changed", handler)
        self.client.call("notifyMe", {"method": "query/changed"})
        self.assertTrue(done.wait(5))
        self.assertEqual(results, [{"from": "handler"}])

    def test_failing_handler_does_not_break_the_client(self) -> None:
        self.client.on_notification("boom", lambda params: 1 / 0)
        # Run after the failing handler (in the order they were added, on one thread).
        after = threading.Event()
        self.client.on_notification("boom", lambda params: after.set())
        with self.assertLogs("modelstore_client", level="ERROR"):
            self.client.call("notifyMe", {"method": "boom"})
            self.assertTrue(after.wait(5))
        self.assertEqual(self.client.call("echo", {"ok": 1}), {"ok": 1})


class ServerRequestTests(FakeServerCase):
    def test_handler_result_is_sent_back(self) -> None:
        self.client.on_request("client/double", lambda params: {"value": params["x"] * 2})
        reply = self.client.call("askClient", {"method": "client/double", "params": {"x": 21}})
        self.assertEqual(reply, {"result": {"value": 42}})

    def test_handler_exception_becomes_error(self) -> None:
        def broken(params: Any) -> Any:
            raise ValueError("cannot")

        self.client.on_request("client/broken", broken)
        reply = self.client.call("askClient", {"method": "client/broken"})
        self.assertEqual(reply["error"]["code"], -32603)
        self.assertIn("cannot", reply["error"]["message"])

    def test_handler_rpc_error_keeps_code_and_data(self) -> None:
        def refuse(params: Any) -> Any:
            raise RPCError(-32001, "refused", {"kind": "busy"})

        self.client.on_request("client/refuse", refuse)
        reply = self.client.call("askClient", {"method": "client/refuse"})
        self.assertEqual(reply["error"], {"code": -32001, "message": "refused",
                                          "data": {"kind": "busy"}})

    def test_unhandled_request_gets_method_not_found(self) -> None:
        reply = self.client.call("askClient", {"method": "client/unknown"})
        self.assertEqual(reply["error"]["code"], -32601)


class TimeoutAndCancelTests(FakeServerCase):
    def test_timeout_raises_request_timeout_and_client_stays_usable(self) -> None:
        # The server answers only after 60 s: a reply before that is the time-out's.
        with self.assertRaises(RequestTimeout) as caught:
            self.client.call("sleep", {"seconds": 60}, timeout=0.2)
        self.assertIsInstance(caught.exception, TimeoutError)
        self.assertEqual(self.client.call("echo", {"still": "alive"}), {"still": "alive"})

    def test_default_timeout_comes_from_constructor(self) -> None:
        client = fake_client(timeout=0.2)
        self.addCleanup(client.close)
        with self.assertRaises(RequestTimeout):
            client.call("sleep", {"seconds": 60})

    def test_cancel_by_id_yields_cancelled_error(self) -> None:
        future, request_id = self.client.call_async("sleep", {"seconds": 60})
        self.client.cancel(request_id)
        with self.assertRaises(CancelledError):
            future.result(5)
        self.assertIn(request_id, self.client.call("cancelled"))

    def test_cancelling_the_future_tells_the_server(self) -> None:
        future, request_id = self.client.call_async("sleep", {"seconds": 10})
        self.assertTrue(future.cancel())
        deadline = time.monotonic() + 30  # a bound for failures only
        while request_id not in self.client.call("cancelled"):
            self.assertLess(time.monotonic(), deadline, "server never saw $/cancelRequest")
            time.sleep(0.05)


class ProcessLifecycleTests(unittest.TestCase):
    def test_death_fails_calls_with_stderr_tail(self) -> None:
        client = fake_client()
        self.addCleanup(client.close)
        pending, _ = client.call_async("sleep", {"seconds": 30})
        with self.assertRaises(ServerExited) as caught:
            client.call("crash", {"code": 3, "stderr": "fatal: disk on fire"})
        self.assertIn("disk on fire", caught.exception.stderr_tail)
        self.assertIn("disk on fire", str(caught.exception))
        self.assertEqual(caught.exception.returncode, 3)
        with self.assertRaises(ServerExited):
            pending.result(5)
        with self.assertRaises(ServerExited):
            client.call("echo")
        self.assertEqual(client.returncode, 3)
        self.assertIn("fake server ready", client.stderr_tail)

    def test_close_is_idempotent_and_clean(self) -> None:
        client = fake_client()
        self.assertIsNone(client.returncode)
        self.assertEqual(client.close(), 0)
        self.assertEqual(client.close(), 0)
        self.assertEqual(client.returncode, 0)
        with self.assertRaises(ServerExited):
            client.call("echo")

    def test_close_sends_shutdown_then_exit(self) -> None:
        client = fake_client("--stubborn")
        client.call("echo")
        history: List[str] = []
        original_write = client._write

        def spy(data: bytes) -> None:
            history.append(json.loads(data).get("method", ""))
            original_write(data)

        client._write = spy  # type: ignore[method-assign]
        with self.assertLogs("modelstore_client", level="WARNING"):
            client.close(timeout=0.5)  # stubborn: killed after the handshake
        self.assertEqual(history[:2], ["shutdown", "exit"])

    def test_close_kills_a_server_that_will_not_exit(self) -> None:
        client = fake_client("--stubborn")
        started = time.monotonic()
        with self.assertLogs("modelstore_client", level="WARNING") as logs:
            code = client.close(timeout=0.5)
        self.assertIn("killing", "\n".join(logs.output))
        self.assertLess(time.monotonic() - started, 30)  # it did not hang (a bound for failures only)
        self.assertIsNotNone(code)
        self.assertNotEqual(code, 0)

    def test_close_without_shutdown_method_still_exits_cleanly(self) -> None:
        client = fake_client("--no-shutdown")
        client.call("echo")  # started: the bound below is for the shutdown alone
        self.assertEqual(client.close(timeout=10), 0)

    def test_close_after_crash(self) -> None:
        client = fake_client()
        with self.assertRaises(ServerExited):
            client.call("crash", {"code": 0})
        self.assertEqual(client.close(), 0)

    def test_context_manager_closes(self) -> None:
        with fake_client() as client:
            self.assertEqual(client.call("echo", {"a": 1}), {"a": 1})
        self.assertEqual(client.returncode, 0)

    def test_context_manager_closes_on_error(self) -> None:
        with self.assertRaises(KeyError):
            with fake_client() as client:
                raise KeyError("boom")
        self.assertEqual(client.returncode, 0)


@unittest.skipIf(os.name != "posix", "needs a shell-script wrapper")
class BinaryLookupTests(unittest.TestCase):
    def setUp(self) -> None:
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        self.folder = Path(folder.name)
        self.wrapper = self.folder / "modelstore"
        self.wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{FAKE_SERVER}" "$@"\n')
        self.wrapper.chmod(self.wrapper.stat().st_mode | stat.S_IEXEC)

    def test_explicit_binary_wins(self) -> None:
        with mock.patch.dict(os.environ, {"MODELSTORE_BIN": "/nowhere"}):
            self.assertEqual(resolve_binary("/explicit"), "/explicit")

    def test_env_var_then_path(self) -> None:
        with mock.patch.dict(os.environ, {"MODELSTORE_BIN": str(self.wrapper)}):
            self.assertEqual(resolve_binary(), str(self.wrapper))
        env = {k: v for k, v in os.environ.items() if k != "MODELSTORE_BIN"}
        env["PATH"] = str(self.folder)
        with mock.patch.dict(os.environ, env, clear=True):
            self.assertEqual(resolve_binary(), str(self.wrapper))

    def test_missing_binary_is_an_error(self) -> None:
        env = {k: v for k, v in os.environ.items() if k != "MODELSTORE_BIN"}
        env["PATH"] = str(self.folder / "empty")
        with mock.patch.dict(os.environ, env, clear=True):
            with self.assertRaises(BinaryNotFoundError):
                Client()

    def test_default_and_store_arguments(self) -> None:
        with Client(str(self.wrapper)) as client:
            self.assertEqual(client.call("argv"), ["serve", "--memory"])
        with Client(str(self.wrapper), store="/tmp/x.store") as client:
            self.assertEqual(client.call("argv"), ["serve", "--store", "/tmp/x.store"])


class ConvenienceMethodTests(FakeServerCase):
    def sent(self, result: Dict[str, Any]) -> Any:
        return result["method"], result["params"]

    def test_object_methods(self) -> None:
        c = self.client
        self.assertEqual(self.sent(c.insert("Task", {"title": "t"})),
                         ("objects.insert", {"entity": "Task", "values": {"title": "t"}}))
        self.assertEqual(self.sent(c.update("Task/1", {"title": "u"})),
                         ("objects.update", {"id": "Task/1", "values": {"title": "u"}}))
        self.assertEqual(self.sent(c.upsert("Task", {"id": "x"})),
                         ("objects.upsert", {"entity": "Task", "values": {"id": "x"}}))
        self.assertEqual(self.sent(c.upsert("Task", {"id": "x"}, on=("id",))),
                         ("objects.upsert", {"entity": "Task", "values": {"id": "x"}, "on": ["id"]}))
        self.assertEqual(self.sent(c.delete("Task/1")), ("objects.delete", {"id": "Task/1"}))
        self.assertEqual(self.sent(c.get("Task/1")), ("objects.get", {"id": "Task/1"}))
        self.assertEqual(self.sent(c.get("Task/1", include=["category"])),
                         ("objects.get", {"id": "Task/1", "include": ["category"]}))
        self.assertEqual(self.sent(c.get_many(["Task/1", "Task/2"])),
                         ("objects.get", {"ids": ["Task/1", "Task/2"]}))
        self.assertEqual(self.sent(c.update_where("Task", "priority > %@", {"p": 1}, [2])),
                         ("objects.updateWhere", {"entity": "Task", "where": "priority > %@",
                                                  "values": {"p": 1}, "args": [2]}))
        self.assertEqual(self.sent(c.delete_where("Task", "isCompleted == YES")),
                         ("objects.deleteWhere", {"entity": "Task", "where": "isCompleted == YES"}))
        self.assertEqual(self.sent(c.save([{"insert": "Task"}], author="me")),
                         ("context.save", {"changes": [{"insert": "Task"}], "author": "me"}))

    def test_query_methods_omit_none_and_use_camel_case(self) -> None:
        c = self.client
        self.assertEqual(self.sent(c.fetch("Task")), ("query.fetch", {"entity": "Task"}))
        sort = [{"key": "createdAt", "ascending": False}]
        self.assertEqual(
            self.sent(c.fetch("Task", where="a == %@", args=[1], sort=sort, limit=5, offset=0,
                              include=["category"], select=["title"], include_subentities=False)),
            ("query.fetch", {"entity": "Task", "where": "a == %@", "args": [1], "sort": sort,
                             "limit": 5, "offset": 0, "include": ["category"],
                             "select": ["title"], "includeSubentities": False}))
        self.assertEqual(self.sent(c.count("Task", where="x")),
                         ("query.count", {"entity": "Task", "where": "x"}))

    def test_store_model_and_session_methods(self) -> None:
        c = self.client
        self.assertEqual(self.sent(c.initialize(client_info={"name": "t"})),
                         ("initialize", {"clientInfo": {"name": "t"}}))
        method, params = self.sent(c.initialize(capabilities={"progress": True}))
        self.assertEqual(params["clientInfo"]["name"], "modelstore-client-python")
        self.assertEqual(params["capabilities"], {"progress": True})
        self.assertEqual(self.sent(c.store_open(path="/tmp/s", read_only=True)),
                         ("store.open", {"path": "/tmp/s", "memory": False,
                                         "readOnly": True, "create": True}))
        self.assertEqual(self.sent(c.store_info())[0], "store.info")
        self.assertEqual(self.sent(c.store_backup("/tmp/b")), ("store.backup", {"to": "/tmp/b"}))
        self.assertEqual(self.sent(c.store_check())[0], "store.check")
        schema = {"version": "1.0.0", "entities": []}
        self.assertEqual(self.sent(c.model_define(schema)), ("model.define", {"schema": schema}))
        self.assertEqual(self.sent(c.model_validate(schema)), ("model.validate", {"schema": schema}))
        self.assertEqual(self.sent(c.model_get())[0], "model.get")

    def test_transaction_helper_commits_or_rolls_back(self) -> None:
        c = self.client
        with c.transaction():
            c.insert("Task", {})
        with self.assertRaises(RuntimeError):
            with c.transaction():
                c.insert("Task", {})
                raise RuntimeError("abort")
        methods = [m for m in c.call("history") if m.startswith(("transaction.", "objects."))]
        self.assertEqual(methods, ["transaction.begin", "objects.insert", "transaction.commit",
                                   "transaction.begin", "objects.insert", "transaction.rollback"])


if __name__ == "__main__":
    unittest.main()
