"""Runs the pygls session tests (test_*.py here) in their own virtual environment:
VENV (default .build/pyvenv-lsp), made with `python3 -m venv` and `pip install
'pygls>=2,<3'` from PyPI the first time, reused after. pygls is a test tool only, never a
dependency of the project. When PyPI cannot be reached (and pygls is not installed yet)
the tests are skipped with a message saying so; any other failure fails.

    python3 Tests/LSP/run.py [VENV]      (make lsp-test; MODELSTORE_BIN names the server)
"""
from __future__ import annotations

import subprocess
import sys
import urllib.request
from pathlib import Path

REQUIREMENT = "pygls>=2,<3"
HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def pygls_version(python: Path) -> str | None:
    """pygls's version in that interpreter, or None when it is missing or not 2.x."""
    if not python.exists():
        return None
    p = subprocess.run([str(python), "-c", "import pygls.client, importlib.metadata as m; print(m.version('pygls'))"],
                       capture_output=True, text=True)
    version = p.stdout.strip()
    return version if p.returncode == 0 and version.startswith("2.") else None


def pypi_reachable() -> bool:
    try:
        with urllib.request.urlopen("https://pypi.org/simple/pygls/", timeout=15) as r:
            return r.status == 200
    except OSError:
        return False


def main() -> int:
    venv = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / ".build" / "pyvenv-lsp"
    python = venv / "bin" / "python"
    if pygls_version(python) is None:
        print(f"making {venv} with {REQUIREMENT} (once; reused by later runs)", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
        pip = subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", REQUIREMENT])
        if pip.returncode != 0 and not pypi_reachable():
            print(f"SKIPPED: the pygls session tests need {REQUIREMENT} from PyPI, which cannot be reached", file=sys.stderr)
            return 0
        if pip.returncode != 0 or pygls_version(python) is None:
            print(f"{venv}: pip could not install {REQUIREMENT} (PyPI is reachable)", file=sys.stderr)
            return 1
    print(f"pygls {pygls_version(python)} in {venv}", file=sys.stderr)
    return subprocess.run([str(python), "-m", "unittest", "discover", "-s", str(HERE), "-p", "test_*.py", "-v"]).returncode


if __name__ == "__main__":
    sys.exit(main())
