#!/usr/bin/env bash
# Runs a command with the Swift toolchain's folder hidden from it and from the dynamic
# loader: a private mount namespace with an empty tmpfs over the toolchain's root (two
# folders above the `swift` driver, …/usr/bin/swift). Where mount namespaces are not
# allowed (unshare -m fails) it says the hiding is SKIPPED and runs the command as is;
# with no swift on PATH there is no toolchain to hide, and it runs the command as is.
# Usage: scripts/without-toolchain.sh COMMAND [ARG]...
set -euo pipefail
swift_bin=$(command -v swift || true)
if [ -z "$swift_bin" ]; then
  echo "without-toolchain: no swift on PATH, so there is no toolchain to hide; running as is" >&2
  exec "$@"
fi
root=$(dirname "$(dirname "$(dirname "$(readlink -f "$swift_bin")")")")
if ! unshare -m true 2>/dev/null; then
  echo "without-toolchain: SKIPPED hiding $root (mount namespaces are not allowed here: unshare -m failed); running as is" >&2
  exec "$@"
fi
echo "without-toolchain: running $1 with $root hidden" >&2
# shellcheck disable=SC2016
exec unshare -m bash -c 'set -e; mount -t tmpfs none "$1"; [ -z "$(ls -A "$1")" ]; shift; exec "$@"' _ "$root" "$@"
