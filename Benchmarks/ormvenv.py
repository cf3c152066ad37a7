"""The virtual environment that holds SQLAlchemy 2 for case `tomany`: OUT/venv, made with
`python3 -m venv` and `pip install 'SQLAlchemy>=2,<3'` from PyPI the first time, reused
after. SQLAlchemy is a comparison only, never a dependency of the project.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REQUIREMENT = "SQLAlchemy>=2,<3"


def sqlalchemy_version(python: Path) -> str | None:
    """SQLAlchemy's version in that interpreter, or None when it is missing or not 2.x."""
    if not python.exists():
        return None
    p = subprocess.run([str(python), "-c", "import sqlalchemy; print(sqlalchemy.__version__)"], capture_output=True, text=True)
    version = p.stdout.strip()
    return version if p.returncode == 0 and version.startswith("2.") else None


def python(out: Path) -> str:
    """The venv's python, with SQLAlchemy 2 installed (made now if needed)."""
    venv = out / "venv"
    py = venv / "bin" / "python"
    if sqlalchemy_version(py) is None:
        print(f"making {venv} with {REQUIREMENT} (once; reused by later runs)", file=sys.stderr)
        out.mkdir(parents=True, exist_ok=True)
        subprocess.run(["python3", "-m", "venv", "--clear", str(venv)], check=True)
        subprocess.run([str(py), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", REQUIREMENT], check=True)
        if sqlalchemy_version(py) is None:
            sys.exit(f"{venv}: SQLAlchemy 2 is still not importable after pip install")
    return str(py)
