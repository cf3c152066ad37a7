"""Where the client finds the server binary, and the wheel's ``modelstore`` command.

The installed wheel itself is exercised by scripts/check-install.sh (make test); these
tests pin the lookup order and the messages without building one.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path
from typing import Dict
from unittest import mock

from modelstore_client import BinaryNotFoundError, Client, binary, resolve_binary

SRC = Path(__file__).resolve().parents[1] / "src"


def executable(path: Path, text: str) -> Path:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


@unittest.skipIf(os.name != "posix", "needs shell-script stand-ins")
class LookupOrderTests(unittest.TestCase):
    def setUp(self) -> None:
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        self.folder = Path(folder.name)
        (self.folder / "path").mkdir()
        (self.folder / "package").mkdir()
        self.on_path = executable(self.folder / "path" / "modelstore", "#!/bin/sh\n")
        self.packaged = executable(self.folder / "package" / "modelstore", "#!/bin/sh\n")

    def environment(self, **extra: str) -> Dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k != "MODELSTORE_BIN"}
        env["PATH"] = str(self.folder / "path")
        env.update(extra)
        return env

    def test_argument_then_env_then_package_then_path(self) -> None:
        with mock.patch.object(binary, "PACKAGED_BINARY", self.packaged):
            with mock.patch.dict(os.environ, self.environment(MODELSTORE_BIN="/env/ms"), clear=True):
                self.assertEqual(resolve_binary("/explicit"), "/explicit")
                self.assertEqual(resolve_binary(), "/env/ms")
            with mock.patch.dict(os.environ, self.environment(), clear=True):
                self.assertEqual(resolve_binary(), str(self.packaged))
        with mock.patch.dict(os.environ, self.environment(), clear=True):
            self.assertEqual(resolve_binary(), str(self.on_path))

    def test_source_checkout_has_no_packaged_binary(self) -> None:
        # Tests run from Clients/python/src: the binary is never written into the tree.
        self.assertFalse(binary.PACKAGED_BINARY.exists(), binary.PACKAGED_BINARY)
        self.assertIsNone(binary.packaged_binary())

    def test_missing_binary_says_how_to_fix(self) -> None:
        env = self.environment()
        env["PATH"] = str(self.folder / "empty")
        with mock.patch.dict(os.environ, env, clear=True):
            with self.assertRaises(BinaryNotFoundError) as caught:
                Client()
        message = str(caught.exception)
        for hint in ("binary=", "MODELSTORE_BIN", "pip install", "PATH", "make build"):
            self.assertIn(hint, message)

    def test_unstartable_binary_says_how_to_fix(self) -> None:
        with self.assertRaises(BinaryNotFoundError) as caught:
            Client(str(self.folder / "no-such-modelstore"))
        self.assertIn("cannot start", str(caught.exception))
        self.assertIn("MODELSTORE_BIN", str(caught.exception))


@unittest.skipIf(os.name != "posix", "needs shell-script stand-ins")
class CommandTests(unittest.TestCase):
    """``modelstore`` (the console script) becomes the packaged binary."""

    def run_main(self, packaged: Path, *args: str, stdin: str = "") -> "subprocess.CompletedProcess[str]":
        code = (
            "from pathlib import Path; from modelstore_client import binary; "
            f"binary.PACKAGED_BINARY = Path({str(packaged)!r}); binary.main()"
        )
        env = dict(os.environ, PYTHONPATH=str(SRC))
        return subprocess.run([sys.executable, "-c", code, *args], env=env, input=stdin,
                              capture_output=True, text=True, timeout=60)

    def test_runs_the_packaged_binary_with_its_arguments_and_status(self) -> None:
        with tempfile.TemporaryDirectory() as folder:
            stand_in = executable(Path(folder) / "modelstore",
                                  '#!/bin/sh\necho "$0 $*"; read line; echo "got $line"; exit 7\n')
            done = self.run_main(stand_in, "serve", "--memory", stdin="hello\n")
        self.assertEqual(done.returncode, 7, done.stderr)
        self.assertEqual(done.stdout, f"{stand_in} serve --memory\ngot hello\n")

    def test_without_a_packaged_binary_it_says_so(self) -> None:
        done = self.run_main(Path("/nonexistent/modelstore"), "--help")
        self.assertEqual(done.returncode, 1)
        self.assertIn("no binary at /nonexistent/modelstore", done.stderr)
        self.assertIn("make wheel", done.stderr)


if __name__ == "__main__":
    unittest.main()
