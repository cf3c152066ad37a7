#!/bin/sh
# npm's `prepare` step (it runs on `npm install ./Clients/node` and `npm pack`): compiles
# src/ to dist/src/ with the TypeScript compiler on PATH (Debian's node-typescript here),
# so no package registry is needed. TSC=... picks another compiler.
set -e
tsc=${TSC:-tsc}
if ! command -v "$tsc" >/dev/null 2>&1; then
  echo "modelstore-client: building dist/ needs the TypeScript compiler '$tsc' on PATH" \
       "(apt-get install node-typescript, or npm install -g typescript)" >&2
  exit 1
fi
rm -rf dist/src  # a stale file of a removed source would otherwise be packed
"$tsc" -p tsconfig.build.json
