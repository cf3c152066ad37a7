#!/usr/bin/env bash
# Checks that a modelstore binary needs nothing of the Swift toolchain at run time:
#   1. its dynamic dependencies (ELF NEEDED entries) are system C libraries only, and it
#      searches no folder but its own for libraries (RUNPATH/RPATH);
#   2. it runs the example session of `make run` with the toolchain's folder hidden from
#      the loader (a private mount namespace with an empty tmpfs over the toolchain root;
#      skipped with a message where mount namespaces are not allowed).
# Usage: scripts/check-self-contained.sh [BINARY]   (default .build/release/modelstore)
set -euo pipefail
bin=${1:-.build/release/modelstore}
[ -x "$bin" ] || { echo "check-self-contained: $bin is not an executable (make build first)" >&2; exit 1; }
bin=$(readlink -f "$bin")

allowed='^(libc|libm|libstdc\+\+|libgcc_s|libpthread|libdl|librt|libutil|ld-linux-x86-64|ld-linux-aarch64|libsqlite3|libjansson|libpq|libmicrohttpd)\.so'
bad=0
while read -r lib; do
  if ! [[ "$lib" =~ $allowed ]]; then
    echo "check-self-contained: $bin needs $lib, which is not a system C library" >&2
    bad=1
  fi
done < <(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
# A search path of its own folder ($ORIGIN, which SwiftPM writes) is harmless; any other
# folder (the toolchain's) is not.
runpath=$(readelf -d "$bin" | sed -n 's/.*(\(RUNPATH\|RPATH\)).*\[\(.*\)\]/\2/p')
for dir in ${runpath//:/ }; do
  if [ "$dir" != '$ORIGIN' ]; then
    echo "check-self-contained: $bin searches $dir for libraries (RUNPATH/RPATH)" >&2
    bad=1
  fi
done
[ $bad = 0 ] || exit 1
echo "check-self-contained: dynamic dependencies: $(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')"

# The toolchain's root: two folders above the `swift` driver (…/usr/bin/swift).
swift_bin=$(command -v swift || true)
if [ -z "$swift_bin" ]; then
  echo "check-self-contained: no swift on PATH, so there is no toolchain to hide; running as is"
  python3 Clients/python/examples/tasks.py "$bin" > /dev/null
  exit 0
fi
root=$(dirname "$(dirname "$(dirname "$(readlink -f "$swift_bin")")")")
example=$(readlink -f Clients/python/examples/tasks.py)
if unshare -m true 2>/dev/null; then
  # shellcheck disable=SC2016
  unshare -m bash -c '
    set -e
    mount -t tmpfs none "$1"
    [ -z "$(ls -A "$1")" ]
    PYTHONPATH="$4" python3 "$3" "$2" > /dev/null
  ' _ "$root" "$bin" "$example" "$(readlink -f Clients/python/src)"
  echo "check-self-contained: the example session ran with $root hidden"
else
  echo "check-self-contained: SKIPPED hiding $root (mount namespaces are not allowed here: unshare -m failed); the dependency check above passed" >&2
fi
