#!/usr/bin/env bash
# Builds the Python client's platform wheel, carrying BINARY as modelstore_client/bin/modelstore
# (Clients/python/hatch_build.py), into OUT_DIR; writes nothing into the source tree.
# pip fetches the build backend (hatchling) from PyPI into an isolated build environment;
# offline, pip install hatchling first and pass --no-build-isolation (extra args go to pip).
# Usage: scripts/build-wheel.sh [BINARY [OUT_DIR [PIP_ARG]...]]
#        (defaults .build/release/modelstore and .build/wheels)
set -euo pipefail
bin=${1:-.build/release/modelstore}
out=${2:-.build/wheels}
shift $(( $# < 2 ? $# : 2 ))
[ -x "$bin" ] || { echo "build-wheel: $bin is not an executable (make build first)" >&2; exit 1; }
mkdir -p "$out"
bin=$(readlink -f "$bin")
out=$(readlink -f "$out")
cd "$(dirname "$0")/.."
MODELSTORE_WHEEL_BINARY=$bin \
  python3 -m pip wheel --no-deps --quiet --disable-pip-version-check --wheel-dir "$out" "$@" ./Clients/python
ls "$out"/modelstore_client-*.whl
