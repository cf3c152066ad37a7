"""Runs the studio's browser tests (make browser-test):

1. keyset.test.mjs with `node --test`: the page's keyset paging against a real server;
2. test_*.py here in a virtual environment, VENV (default .build/pyvenv-browser), made with
   `python3 -m venv` and `pip install 'selenium>=4.10,<5'` from PyPI the first time and
   reused after (scripts/pyvenv.py): a scripted session in headless Chromium (Debian's
   `chromium` and `chromium-driver`) against `modelstore studio`, saving screenshots of the
   main views to ARTIFACTS (default .build/browser-artifacts).

The browser session is skipped, with a message saying why, only when Chromium or its
driver is not installed (scripts/ensure-deps.sh test installs them where it can), or when
Selenium is not installed yet and PyPI cannot be reached. Any other failure fails.

    python3 Tests/Browser/run.py [VENV]      (MODELSTORE_BIN names the binary)
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import pyvenv  # noqa: E402 (scripts/pyvenv.py, by path)

REQUIREMENT = "selenium>=4.10,<5"
PROBE = "import selenium; print(selenium.__version__)"
CHROMIUM = ("chromium", "chromium-browser")
DRIVER = ("chromedriver",)


def which(names: tuple[str, ...]) -> str | None:
    for name in names:
        found = shutil.which(name) or (f"/usr/bin/{name}" if Path(f"/usr/bin/{name}").exists() else None)
        if found:
            return found
    return None


def main() -> int:
    binary = os.environ.get("MODELSTORE_BIN", str(ROOT / ".build" / "debug" / "modelstore"))
    env = dict(os.environ, MODELSTORE_BIN=binary)
    node = subprocess.run(["node", "--test", str(HERE / "keyset.test.mjs")], cwd=ROOT, env=env)
    if node.returncode != 0:
        return node.returncode

    chromium, driver = which(CHROMIUM), which(DRIVER)
    if not chromium or not driver:
        missing = " and ".join(n for n, found in (("chromium", chromium), ("chromium-driver", driver)) if not found)
        print(f"SKIPPED: the studio's browser session needs {missing} (Debian packages; "
              f"scripts/ensure-deps.sh test installs them when run as root)", file=sys.stderr)
        return 0

    venv = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / ".build" / "pyvenv-browser"
    env.update(STUDIO_CHROMIUM=chromium, STUDIO_CHROMEDRIVER=driver,
               STUDIO_ARTIFACTS=os.environ.get("STUDIO_ARTIFACTS", str(ROOT / ".build" / "browser-artifacts")))
    return pyvenv.PinnedVenv(venv, REQUIREMENT, PROBE, "4.").run_tests(
        HERE, needing="the studio's browser session needs", env=env, note=f"; {chromium}, {driver}")


if __name__ == "__main__":
    sys.exit(main())
