#!/usr/bin/env bash
# Installs both clients the way their ecosystems do, in a temporary folder, and runs them:
#   Python: builds the platform wheel (scripts/build-wheel.sh) around BINARY, checks its
#     tag and that the source tree gained no file, installs it into a fresh venv, and runs
#     `make run`'s session (Clients/python/examples/tasks.py) with the Swift toolchain's
#     folder hidden (scripts/without-toolchain.sh): once through the venv's `modelstore`
#     command, once letting the client find the packaged binary (no MODELSTORE_BIN, no
#     modelstore on PATH); a binary that cannot start gives the documented error.
#   Node: `npm install ./Clients/node` (the prepare step compiles dist/src) and `npm pack`,
#     then installs the tarball into a temporary project whose script spawns the server
#     through the client (found on PATH: the venv's `modelstore`); with no binary anywhere
#     it gets BinaryNotFoundError with the documented advice.
# No package registry is used but PyPI's, for the wheel's build backend (hatchling).
# Usage: scripts/check-install.sh [BINARY]   (default .build/release/modelstore)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
bin=$(readlink -f "${1:-.build/release/modelstore}")
[ -x "$bin" ] || { echo "check-install: $bin is not an executable (make build first)" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/modelstore-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
say() { echo "check-install: $*"; }
fail() { echo "check-install: FAILED: $*" >&2; exit 1; }
# A PATH with the system's tools but no modelstore (and no toolchain).
bare_path=/usr/local/bin:/usr/bin:/bin
! PATH=$bare_path command -v modelstore >/dev/null || fail "modelstore is already on $bare_path"

# --- Python: build the wheel, install it into a fresh venv -------------------------------
before=$(git status --porcelain --ignored -- Clients/python)
wheel=$(scripts/build-wheel.sh "$bin" "$tmp/wheels")
[ "$(git status --porcelain --ignored -- Clients/python)" = "$before" ] \
  || fail "building the wheel wrote into Clients/python: $(git status --porcelain --ignored -- Clients/python)"
machine=$(uname -m)
[[ "$(basename "$wheel")" == modelstore_client-*-py3-none-linux_"$machine".whl ]] \
  || fail "the wheel $(basename "$wheel") is not tagged py3-none-linux_$machine"
say "built $(basename "$wheel") ($(du -h "$wheel" | cut -f1))"
# A venv without its own pip (creating one with pip takes ~15 s); this pip installs into it.
python3 -m venv --without-pip "$tmp/venv"
python3 -m pip --python "$tmp/venv/bin/python" install --quiet --disable-pip-version-check --no-index "$wheel"
venv=$tmp/venv
packaged=$("$venv/bin/python" -c 'from modelstore_client import binary; print(binary.PACKAGED_BINARY)')
[[ "$packaged" == "$venv"/lib/*/site-packages/modelstore_client/bin/modelstore && -x "$packaged" ]] \
  || fail "the installed package has no executable binary at $packaged"
cmp -s "$packaged" "$bin" || fail "$packaged is not $bin"

# --- Python: make run's session, toolchain hidden ----------------------------------------
cp Clients/python/examples/tasks.py "$tmp/tasks.py"  # away from the checkout's src/
cd "$tmp"
# shellcheck disable=SC2016
"$repo/scripts/without-toolchain.sh" env -u MODELSTORE_BIN -u PYTHONPATH PATH="$bare_path" bash -c '
  set -euo pipefail
  venv=$1
  "$venv/bin/python" tasks.py "$venv/bin/modelstore" > command.out
  "$venv/bin/python" tasks.py > found.out
' _ "$venv"
grep -q "^== Start $venv/bin/modelstore " command.out || fail "the session did not start the venv's modelstore"
grep -q "^== Start $packaged " found.out || fail "the client did not find the packaged binary: $(head -1 found.out)"
for out in command.out found.out; do
  grep -q "server exited with code 0" "$out" || fail "the session in $out did not end cleanly"
done
say "make run's session ran with the installed wheel's modelstore, and with the binary the client found in the package"
if "$venv/bin/python" -c 'import modelstore_client as m; m.Client("/nonexistent/modelstore")' 2> missing.err; then
  fail "a binary that does not exist started"
fi
grep -q "BinaryNotFoundError: cannot start '/nonexistent/modelstore': .*; pass binary=..., set MODELSTORE_BIN" missing.err \
  || fail "unexpected error for a missing binary: $(tail -1 missing.err)"

# --- Node: install from the folder and from the packed tarball ---------------------------
npm_quiet=(--offline --no-audit --no-fund --loglevel=error)
mkdir folder-install packed project
(cd folder-install && echo '{"name":"folder-install","private":true}' > package.json \
  && npm install "${npm_quiet[@]}" "$repo/Clients/node" > /dev/null)
[ -f folder-install/node_modules/modelstore-client/dist/src/index.js ] || fail "npm install ./Clients/node built no dist/src"
(cd folder-install && node --input-type=module -e 'import("modelstore-client").then((m) => { if (!m.ModelStoreClient) process.exit(1); })') \
  || fail "the package installed from the folder does not import"
(cd "$repo/Clients/node" && npm pack "${npm_quiet[@]}" --pack-destination "$tmp/packed" > /dev/null)
tarball=$(ls packed/modelstore-client-*.tgz)
cd project
echo '{"name":"project","private":true,"type":"module"}' > package.json
npm install "${npm_quiet[@]}" "../$tarball" > /dev/null
cat > session.js <<'JS'
// Spawns the server through the installed client, or reports why it cannot.
import { BinaryNotFoundError, ModelStoreClient } from "modelstore-client";

let client;
try {
  client = ModelStoreClient.spawn();
} catch (error) {
  if (!(error instanceof BinaryNotFoundError)) throw error;
  console.log(`${error.name}: ${error.message}`);
  process.exit(3);
}
await client.initialize();
await client.modelDefine({ version: "1", entities: [{ name: "Note", attributes: [{ name: "text", type: "string" }] }] });
await client.insert("Note", { text: "installed" });
const { objects } = await client.fetch({ entity: "Note" });
console.log(objects.map((note) => note.text).join(","));
const exit = await client.close();
process.exit(exit.code ?? 1);
JS
got=$(env -u MODELSTORE_BIN PATH="$venv/bin:$bare_path" node session.js) || fail "the Node session failed: $got"
[ "$got" = installed ] || fail "the Node session printed '$got'"
set +e
missing=$(env -u MODELSTORE_BIN PATH="$bare_path" node session.js)
status=$?
set -e
[ $status = 3 ] || fail "with no binary the Node script exited $status: $missing"
[[ "$missing" == "BinaryNotFoundError: modelstore binary not found: pass the \`binary\` option, set MODELSTORE_BIN"* ]] \
  || fail "unexpected Node error for a missing binary: $missing"
say "npm install ./Clients/node and the npm pack tarball work; the installed client spawned the venv's modelstore from PATH and names the fix when there is none"
