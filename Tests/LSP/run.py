"""Runs the pygls session tests (test_*.py here) in their own virtual environment:
VENV (default .build/pyvenv-lsp), made with `python3 -m venv` and `pip install
'pygls>=2,<3'` from PyPI the first time, reused after (scripts/pyvenv.py). pygls is a test
tool only, never a dependency of the project. When PyPI cannot be reached (and pygls is not
installed yet) the tests are skipped with a message saying so; any other failure fails.

    python3 Tests/LSP/run.py [VENV]      (make lsp-test; MODELSTORE_BIN names the server)
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import pyvenv  # noqa: E402 (scripts/pyvenv.py, by path)

REQUIREMENT = "pygls>=2,<3"
PROBE = "import pygls.client, importlib.metadata as m; print(m.version('pygls'))"


def main() -> int:
    venv = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / ".build" / "pyvenv-lsp"
    return pyvenv.PinnedVenv(venv, REQUIREMENT, PROBE, "2.").run_tests(HERE, needing="the pygls session tests need")


if __name__ == "__main__":
    sys.exit(main())
