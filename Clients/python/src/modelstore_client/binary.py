"""Where the ``modelstore`` server binary is, and the ``modelstore`` command.

The client looks, in order, at: the ``binary`` argument, ``$MODELSTORE_BIN``, the
binary inside this installed package (``modelstore_client/bin/modelstore``, which
the platform wheel carries), then ``modelstore`` on ``PATH``. A source checkout on
``PYTHONPATH`` has no ``bin/`` folder, so it goes on to ``PATH``.

``main`` is the wheel's ``modelstore`` console script: it replaces itself with the
packaged binary, so arguments, stdio, signals and the exit status are the binary's.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import List, NoReturn, Optional

from .errors import BinaryNotFoundError

PACKAGED_BINARY = Path(__file__).resolve().parent / "bin" / "modelstore"

HOW_TO_FIX = (
    "pass binary=..., set MODELSTORE_BIN=/path/to/modelstore, install the platform "
    "wheel that carries it (make wheel, then pip install the .whl), or put "
    "'modelstore' on PATH (make build writes .build/release/modelstore)"
)


def packaged_binary() -> Optional[str]:
    """The binary inside this installed package, or None (a source checkout)."""
    if os.access(PACKAGED_BINARY, os.X_OK) and PACKAGED_BINARY.is_file():
        return str(PACKAGED_BINARY)
    return None


def resolve_binary(binary: Optional[str] = None) -> str:
    """Find the server executable: argument, $MODELSTORE_BIN, this package's, PATH."""
    if binary:
        return binary
    from_env = os.environ.get("MODELSTORE_BIN")
    if from_env:
        return from_env
    found = packaged_binary() or shutil.which("modelstore")
    if found:
        return found
    raise BinaryNotFoundError(f"modelstore binary not found: {HOW_TO_FIX}")


def cannot_start(binary: str, error: OSError) -> BinaryNotFoundError:
    """The error for a binary that was named but could not be started."""
    return BinaryNotFoundError(f"cannot start {binary!r}: {error}; {HOW_TO_FIX}")


def main(argv: Optional[List[str]] = None) -> NoReturn:
    """The ``modelstore`` console script: run the packaged binary in this process."""
    found = packaged_binary()
    if found is None:
        print(
            f"modelstore: this installation of modelstore_client has no binary at "
            f"{PACKAGED_BINARY} (an editable install carries none): install the "
            f"platform wheel (make wheel, then pip install the .whl), or run the "
            f"binary itself (make build writes .build/release/modelstore)",
            file=sys.stderr,
        )
        raise SystemExit(1)
    args = sys.argv[1:] if argv is None else argv
    try:
        os.execv(found, ["modelstore", *args])
    except OSError as error:
        print(f"modelstore: cannot run {found}: {error}", file=sys.stderr)
        raise SystemExit(1) from error
