"""A virtual environment holding one pinned requirement from PyPI, made with `python3 -m venv`
and `pip install REQUIREMENT` the first time and reused after: the tools that only tests
and benchmarks use (pygls for Tests/LSP, Selenium for Tests/Browser, SQLAlchemy for the
benchmark `tomany`), never dependencies of the project. Each user keeps its own folder
and pin; the scripts import this file by path:

    sys.path.insert(0, str(ROOT / "scripts"))
    import pyvenv
"""
from __future__ import annotations

import re
import subprocess
import sys
import urllib.request
from dataclasses import dataclass
from pathlib import Path


class Unavailable(Exception):
    """The requirement is not installed and could not be; `offline` when PyPI cannot be reached."""

    def __init__(self, message: str, offline: bool):
        super().__init__(message)
        self.offline = offline


@dataclass(frozen=True)
class PinnedVenv:
    folder: Path
    requirement: str  # pip's form, e.g. "pygls>=2,<3"
    probe: str  # Python code that imports the package and prints its version
    major: str  # the prefix its version must have, e.g. "2."

    @property
    def python(self) -> Path:
        return self.folder / "bin" / "python"

    @property
    def project(self) -> str:
        """The requirement's project name (`pygls` of `pygls>=2,<3`)."""
        return re.match(r"[A-Za-z0-9._-]+", self.requirement).group(0)

    def version(self) -> str | None:
        """The package's version in the venv, or None when it is missing or not `major`."""
        if not self.python.exists():
            return None
        p = subprocess.run([str(self.python), "-c", self.probe], capture_output=True, text=True)
        version = p.stdout.strip()
        return version if p.returncode == 0 and version.startswith(self.major) else None

    def ensure(self) -> str:
        """The installed version, after making the venv (`--clear`) when it lacks the package.
        Raises `Unavailable` when pip cannot install it."""
        version = self.version()
        if version is not None:
            return version
        print(f"making {self.folder} with {self.requirement} (once; reused by later runs)", file=sys.stderr)
        self.folder.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(self.folder)], check=True)
        pip = subprocess.run([str(self.python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", self.requirement])
        if pip.returncode != 0 and not self.pypi_reachable():
            raise Unavailable(f"{self.requirement} from PyPI, which cannot be reached", offline=True)
        version = self.version()
        if pip.returncode != 0 or version is None:
            raise Unavailable(f"{self.folder}: pip could not install {self.requirement} (PyPI is reachable)", offline=False)
        return version

    def pypi_reachable(self) -> bool:
        name = re.sub(r"[-_.]+", "-", self.project).lower()
        try:
            with urllib.request.urlopen(f"https://pypi.org/simple/{name}/", timeout=15) as r:
                return r.status == 200
        except OSError:
            return False

    def run_tests(self, folder: Path, needing: str, env: dict[str, str] | None = None, note: str = "") -> int:
        """`unittest discover` of `folder`'s test_*.py with the venv's python (made first when
        needed): its exit status, or 0 with a `SKIPPED: NEEDING ...` message when the package is
        missing and PyPI cannot be reached, 1 when pip fails otherwise."""
        try:
            version = self.ensure()
        except Unavailable as e:
            print(f"SKIPPED: {needing} {e}" if e.offline else str(e), file=sys.stderr)
            return 0 if e.offline else 1
        print(f"{self.project} {version} in {self.folder}{note}", file=sys.stderr)
        command = [str(self.python), "-m", "unittest", "discover", "-s", str(folder), "-p", "test_*.py", "-v"]
        return subprocess.run(command, env=env).returncode
