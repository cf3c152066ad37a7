#!/usr/bin/env bash
# Checks that a modelstore binary needs nothing of the Swift toolchain at run time:
#   1. its dynamic dependencies (ELF NEEDED entries) are system C libraries only, and it
#      searches no folder but its own for libraries (RUNPATH/RPATH);
#   2. it runs the example session of `make run` with the toolchain's folder hidden from
#      the loader (scripts/without-toolchain.sh: a private mount namespace with an empty
#      tmpfs over the toolchain root; skipped with a message where that is not allowed).
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

# `make run`'s session with the toolchain's folder hidden (scripts/without-toolchain.sh).
PYTHONPATH="$(readlink -f Clients/python/src)" scripts/without-toolchain.sh \
  python3 "$(readlink -f Clients/python/examples/tasks.py)" "$bin" > /dev/null
echo "check-self-contained: the example session ran (see above for whether the toolchain was hidden)"
