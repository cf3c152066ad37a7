"""Runs the marked python blocks of README.md (``<!-- NAME -->`` before a fence)."""

from __future__ import annotations

import io
import os
import re
import sys
from contextlib import redirect_stdout
from pathlib import Path
from typing import Dict
from unittest import mock

README = Path(__file__).resolve().parents[1] / "README.md"


def block(name: str) -> str:
    found = re.search(rf"<!-- {re.escape(name)} -->\n```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    if found is None:
        raise AssertionError(f"README.md has no {name} block")
    return found.group(1)


def run(name: str, binary: str, directory: str) -> str:
    """Executes block ``name`` in ``directory`` with MODELSTORE_BIN set; its printed output."""
    out = io.StringIO()
    previous = os.getcwd()
    os.chdir(directory)
    sys.path.insert(0, directory)  # the modules a block wrote (models.py)
    sys.modules.pop("models", None)
    try:
        namespace: Dict[str, object] = {"__name__": "__readme__"}
        with mock.patch.dict(os.environ, {"MODELSTORE_BIN": binary}), redirect_stdout(out):
            exec(compile(block(name), f"README.md {name}", "exec"), namespace)
    finally:
        sys.path.remove(directory)
        sys.modules.pop("models", None)
        os.chdir(previous)
    return out.getvalue()
