#!/usr/bin/env bash
# Builds the Node client and runs its tests. e2e and golden tests need
# MODELSTORE_BIN (path to the built server); without it they are skipped.
set -euo pipefail
cd "$(dirname "$0")"
TSC="${TSC:-tsc}"
if ! command -v "$TSC" >/dev/null 2>&1; then
  echo "test.sh: '$TSC' not found (apt-get install node-typescript)" >&2
  exit 1
fi
rm -rf dist  # stale compiled tests would otherwise still run
"$TSC" -p .
node --test dist/test/
