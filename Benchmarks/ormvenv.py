"""The virtual environment that holds SQLAlchemy 2 for case `tomany`: OUT/venv, made with
`python3 -m venv` and `pip install 'SQLAlchemy>=2,<3'` from PyPI the first time, reused
after (scripts/pyvenv.py). SQLAlchemy is a comparison only, never a dependency of the project.
"""
from __future__ import annotations

import sys
from pathlib import Path

from benchlib import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
import pyvenv  # noqa: E402 (scripts/pyvenv.py, by path)

REQUIREMENT = "SQLAlchemy>=2,<3"
PROBE = "import sqlalchemy; print(sqlalchemy.__version__)"


def python(out: Path) -> str:
    """The venv's python, with SQLAlchemy 2 installed (made now if needed)."""
    venv = pyvenv.PinnedVenv(out / "venv", REQUIREMENT, PROBE, "2.")
    try:
        venv.ensure()
    except pyvenv.Unavailable as e:
        sys.exit(f"case tomany needs {e}" if e.offline else str(e))
    return str(venv.python)
