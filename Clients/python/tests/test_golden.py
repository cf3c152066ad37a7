"""Tests of the golden-transcript replayer itself, using the fake server.

A replayer that silently passes is worse than none, so these check both
that matching transcripts pass and that each kind of divergence fails
with the file, line and JSON path in the message.
"""

from __future__ import annotations

import io
import os
import stat
import sys
import tempfile
import textwrap
import unittest
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
if SRC.is_dir() and str(SRC) not in sys.path:
    sys.path.insert(0, str(SRC))

from modelstore_client import golden  # noqa: E402

FAKE_SERVER = str(Path(__file__).resolve().parent / "fake_server.py")


class MatchTests(unittest.TestCase):
    def test_structural_equality_ignores_key_order(self) -> None:
        self.assertIsNone(golden.match({"a": 1, "b": [1, {"c": None}]},
                                       {"b": [1, {"c": None}], "a": 1}))

    def test_any_needs_the_key(self) -> None:
        self.assertIsNone(golden.match({"id": "<any>"}, {"id": {"deep": [1]}}))
        found = golden.match({"id": "<any>"}, {})
        assert found is not None
        self.assertEqual((found.path, found.reason), ("$.id", "missing key"))

    def test_ignore_accepts_missing_or_any_value(self) -> None:
        self.assertIsNone(golden.match({"a": "<ignore>"}, {}))
        self.assertIsNone(golden.match({"a": "<ignore>"}, {"a": 5}))

    def test_differences_report_the_path(self) -> None:
        cases = [
            ({"r": {"xs": [1, 2]}}, {"r": {"xs": [1, 3]}}, "$.r.xs[1]"),
            ({"a": 1}, {"a": 1, "b": 2}, "$.b"),
            ({"a": [1]}, {"a": [1, 2]}, "$.a"),
            ({"odd key": 1}, {"odd key": 2}, '$["odd key"]'),
            ({"a": True}, {"a": 1}, "$.a"),
            ({"a": 1}, {"a": "1"}, "$.a"),
        ]
        for expected, actual, path in cases:
            with self.subTest(expected=expected, actual=actual):
                found = golden.match(expected, actual)
                assert found is not None
                self.assertEqual(found.path, path)

    def test_numbers_compare_by_value(self) -> None:
        self.assertIsNone(golden.match(1, 1.0))


@unittest.skipIf(os.name != "posix", "needs a shell-script wrapper")
class ReplayTests(unittest.TestCase):
    def setUp(self) -> None:
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        self.root = Path(folder.name)
        self.binary = self.root / "modelstore"
        self.binary.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{FAKE_SERVER}" "$@"\n')
        self.binary.chmod(self.binary.stat().st_mode | stat.S_IEXEC)

    def write(self, name: str, body: str) -> Path:
        case = self.root / "Tests" / "Golden" / name
        case.mkdir(parents=True)
        path = case / "transcript.jsonl"
        path.write_text(textwrap.dedent(body).lstrip("\n"))
        return path

    def test_passing_transcript(self) -> None:
        path = self.write("001-echo", """
            # args: serve --memory --max-message-bytes 1000
            # echo returns its params
            > {"jsonrpc":"2.0","id":1,"method":"echo","params":{"b":2,"a":1}}
            < {"jsonrpc":"2.0","id":1,"result":{"a":1,"b":2}}

            > {"jsonrpc":"2.0","method":"custom/ping"}
            > {"jsonrpc":"2.0","id":2,"method":"argv"}
            < {"id":2,"jsonrpc":"2.0","result":["serve","--memory","--max-message-bytes","1000"]}
            > this is { not json
            < {"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"<any>","data":"<ignore>"}}
            """)
        golden.replay(path, str(self.binary))

    def test_mismatch_names_file_line_and_path(self) -> None:
        path = self.write("002-wrong", """
            > {"jsonrpc":"2.0","id":1,"method":"echo","params":{"n":1}}
            < {"jsonrpc":"2.0","id":1,"result":{"n":2}}
            """)
        with self.assertRaises(AssertionError) as caught:
            golden.replay(path, str(self.binary))
        text = str(caught.exception)
        self.assertIn(f"{path}:2", text)
        self.assertIn("$.result.n", text)
        self.assertIn("expected: 2", text)
        self.assertIn("actual:   1", text)

    def test_missing_output_and_bad_exit_are_failures(self) -> None:
        path = self.write("003-crash", """
            > {"jsonrpc":"2.0","id":1,"method":"crash","params":{"code":4,"stderr":"oops"}}
            < {"jsonrpc":"2.0","id":1,"result":true}
            """)
        with self.assertRaises(AssertionError) as caught:
            golden.replay(path, str(self.binary))
        self.assertIn("closed stdout", str(caught.exception))
        self.assertIn("oops", str(caught.exception))

        path = self.write("004-exit", """
            > {"jsonrpc":"2.0","method":"crash","params":{"code":4}}
            """)
        with self.assertRaises(AssertionError) as caught:
            golden.replay(path, str(self.binary))
        self.assertIn("exited with code 4", str(caught.exception))

    def test_unexpected_extra_output_fails(self) -> None:
        path = self.write("005-extra", """
            > {"jsonrpc":"2.0","id":1,"method":"echo"}
            """)
        with self.assertRaises(AssertionError) as caught:
            golden.replay(path, str(self.binary))
        self.assertIn("unexpected extra output", str(caught.exception))

    def test_bad_transcript_syntax(self) -> None:
        path = self.write("006-bad", """
            > {"jsonrpc":"2.0","id":1,"method":"echo"}
            ? what is this
            """)
        with self.assertRaises(golden.TranscriptError) as caught:
            golden.replay(path, str(self.binary))
        self.assertIn(":2:", str(caught.exception))

    def test_find_transcripts_and_cli(self) -> None:
        good = self.write("010-good", """
            > {"jsonrpc":"2.0","id":1,"method":"echo"}
            < {"jsonrpc":"2.0","id":1,"result":{}}
            """)
        self.write("009-bad", """
            > {"jsonrpc":"2.0","id":1,"method":"echo"}
            < {"jsonrpc":"2.0","id":1,"result":[]}
            """)
        found = golden.find_transcripts(self.root)
        self.assertEqual([p.parent.name for p in found], ["009-bad", "010-good"])

        out = io.StringIO()
        with redirect_stdout(out), redirect_stderr(io.StringIO()):
            self.assertEqual(golden.main(["--binary", str(self.binary), str(good)]), 0)
            self.assertEqual(golden.main(["--binary", str(self.binary), str(self.root)]), 1)
        self.assertIn("1 passed, 1 failed", out.getvalue())


if __name__ == "__main__":
    unittest.main()
