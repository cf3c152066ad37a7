"""A whole session driven by pygls's JsonRPCClient, a third-party LSP client (protocol.md,
"LSP clients"): header framing, initialize with LSP's fields, initialized, a schema, an
insert, a fetch, a request with a workDoneToken getting $/progress begin/report/end, then
shutdown and exit (pygls sends both with "params": null), and the process exits 0 without
the client hanging. Run inside the virtual environment that run.py makes (pygls 2.x).
"""
from __future__ import annotations

import asyncio
import json
import os
import unittest
from pathlib import Path
from typing import Any, List

from pygls.client import JsonRPCClient

ROOT = Path(__file__).resolve().parents[2]
#: No step of the session may take longer: the client must never hang.
STEP_SECONDS = 20

SCHEMA = {
    "version": "1.0.0",
    "entities": [{"name": "Task", "attributes": [{"name": "title", "type": "string"}, {"name": "done", "type": "bool", "default": False}]}],
}


def plain(value: Any) -> Any:
    """pygls answers with namedtuple-like Objects; dicts and lists are easier to compare."""
    if hasattr(value, "_asdict"):
        return {k: plain(v) for k, v in value._asdict().items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def binary() -> str:
    path = os.environ.get("MODELSTORE_BIN") or str(ROOT / ".build" / "debug" / "modelstore")
    if not Path(path).is_file():
        raise unittest.SkipTest(f"no server binary at {path} (build it, or set MODELSTORE_BIN)")
    return path


class PyglsSessionTests(unittest.TestCase):
    def test_a_whole_session(self) -> None:
        asyncio.run(asyncio.wait_for(self.session(binary()), 6 * STEP_SECONDS))

    async def session(self, path: str) -> None:
        client = JsonRPCClient()
        progress: List[Any] = []
        written: List[bytes] = []

        @client.feature("$/progress")
        def on_progress(params: Any) -> None:
            progress.append(plain(params))

        await client.start_io(path, "serve", "--memory")
        writer = client.protocol.writer
        write = writer.write

        def recording(data: bytes) -> Any:
            written.append(data)
            return write(data)

        writer.write = recording  # what pygls puts on the wire, to check its framing and params

        async def call(method: str, params: Any) -> Any:
            return plain(await asyncio.wait_for(client.protocol.send_request_async(method, params), STEP_SECONDS))

        try:
            init = await call(
                "initialize",
                {
                    "processId": os.getpid(),
                    "clientInfo": {"name": "pygls-test", "version": "1"},
                    "locale": "en",
                    "rootUri": ROOT.as_uri(),
                    "rootPath": str(ROOT),
                    "workspaceFolders": [{"uri": ROOT.as_uri(), "name": "modelstore"}],
                    "trace": "off",
                    "capabilities": {"window": {"workDoneProgress": True}, "general": {"positionEncodings": ["utf-16"]}},
                    "initializationOptions": {},
                    "workDoneToken": "init",
                },
            )
            self.assertEqual(init["serverInfo"]["name"], "modelstore")
            for method in ("model.define", "objects.insert", "query.fetch", "export.json", "shutdown"):
                self.assertIn(method, init["capabilities"]["methods"])
            client.protocol.notify("initialized", {})

            defined = await call("model.define", {"schema": SCHEMA})
            self.assertEqual(defined["version"], "1.0.0")
            inserted = await call("objects.insert", {"entity": "Task", "values": {"title": "write the LSP test"}})
            self.assertEqual(inserted["title"], "write the LSP test")
            await call("objects.insert", {"entity": "Task", "values": {"title": "run it", "done": True}})
            fetched = await call("query.fetch", {"entity": "Task", "where": "done == false"})
            self.assertEqual([o["title"] for o in fetched["objects"]], ["write the LSP test"])

            exported = await call("export.json", {"workDoneToken": "export-1"})
            self.assertEqual(exported["objects"], 2)
            kinds = [p["value"]["kind"] for p in progress if p["token"] == "export-1"]
            self.assertEqual(kinds, ["begin", "report", "end"], progress)
            report = next(p["value"] for p in progress if p["token"] == "export-1" and p["value"]["kind"] == "report")
            self.assertEqual(report["percentage"], 100)
            self.assertEqual([p["value"]["kind"] for p in progress if p["token"] == "init"], ["begin", "end"])

            self.assertIsNone(await call("shutdown", None))
            client.protocol.notify("exit", None)
            status = await asyncio.wait_for(client._server.wait(), STEP_SECONDS)  # type: ignore[union-attr]
            self.assertEqual(status, 0, "exit after shutdown ends with status 0")
            await asyncio.wait_for(client.stop(), STEP_SECONDS)
        finally:
            server = client._server
            if server is not None and server.returncode is None:
                server.kill()
                await server.wait()

        sent = [json.loads(m) for m in bodies(b"".join(written))]
        ending = [(m["method"], "params" in m, m.get("params")) for m in sent if m["method"] in ("shutdown", "exit")]
        self.assertEqual(ending, [("shutdown", True, None), ("exit", True, None)], "pygls sends both with params null")


def bodies(wire: bytes) -> List[bytes]:
    """The bodies of Content-Length framed messages (checks the framing on the way)."""
    out = []
    while wire:
        head, sep, rest = wire.partition(b"\r\n\r\n")
        assert sep and head.startswith(b"Content-Length: "), head[:80]
        n = int(head.split(b"\r\n")[0].split(b":")[1])
        out.append(rest[:n])
        wire = rest[n:]
    return out


if __name__ == "__main__":
    unittest.main()
