"""Hatchling build hook: put the modelstore server binary into the wheel.

The binary goes in as ``modelstore_client/bin/modelstore`` straight from where it was
built (hatchling's force-include), so building writes nothing into the source tree.
Which binary:

- ``$MODELSTORE_WHEEL_BINARY`` when set (``make wheel`` passes ``.build/release/modelstore``);
- otherwise, in a repository checkout, ``make build`` runs (the static release build,
  incremental, into the repository's ``.build`` folder) and its binary is used;
- otherwise (an sdist away from the repository) the build fails and says so.

The wheel's tag is ``py3-none-<platform>`` with the platform read from the binary's own
ELF header (``linux_x86_64``, ``linux_aarch64``): the binary runs with any Python 3, and
it needs the system's libjansson and libsqlite3, so no manylinux tag is claimed.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any, Dict

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

# ELF e_machine values -> the machine part of a wheel platform tag.
ELF_MACHINES = {62: "x86_64", 183: "aarch64"}


def elf_platform_tag(binary: Path) -> str:
    """``linux_<machine>`` for a 64-bit little-endian ELF executable, else an error."""
    header = binary.read_bytes()[:20]
    if header[:4] != b"\x7fELF" or header[4] != 2 or header[5] != 1:
        raise RuntimeError(f"{binary} is not a 64-bit little-endian ELF executable")
    machine = int.from_bytes(header[18:20], "little")
    if machine not in ELF_MACHINES:
        raise RuntimeError(f"{binary}: unsupported ELF machine {machine}")
    return f"linux_{ELF_MACHINES[machine]}"


def locate_binary(project_root: Path) -> Path:
    given = os.environ.get("MODELSTORE_WHEEL_BINARY")
    if given:
        binary = Path(given).resolve()
        if not (binary.is_file() and os.access(binary, os.X_OK)):
            raise RuntimeError(f"MODELSTORE_WHEEL_BINARY={given} is not an executable file")
        return binary
    repository = project_root.parent.parent
    if not (repository / "Package.swift").is_file():
        raise RuntimeError(
            "no modelstore binary to put in the wheel: set MODELSTORE_WHEEL_BINARY="
            "/path/to/modelstore, or build from the repository checkout (make wheel)"
        )
    # stdout to stderr: a build frontend may read this process's stdout.
    subprocess.run(["make", "--no-print-directory", "-C", str(repository), "build"],
                   check=True, stdout=2)
    return repository / ".build" / "release" / "modelstore"


class CustomBuildHook(BuildHookInterface):  # type: ignore[misc]
    def initialize(self, version: str, build_data: Dict[str, Any]) -> None:
        if self.target_name != "wheel":
            return
        if version == "editable":
            # An editable install runs the source; the client then uses
            # MODELSTORE_BIN or PATH (README "Install").
            return
        binary = locate_binary(Path(self.root))
        build_data["force_include"][str(binary)] = "modelstore_client/bin/modelstore"
        build_data["pure_python"] = False
        build_data["tag"] = f"py3-none-{elf_platform_tag(binary)}"
