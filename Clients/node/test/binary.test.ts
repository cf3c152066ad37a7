// Where the client finds the server binary, and what it says when there is none.
// (The packed and installed package is exercised by scripts/check-install.sh.)
import test from "node:test";
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join, resolve } from "node:path";
import { BinaryNotFoundError, HOW_TO_FIX, ModelStoreClient, ServerExitedError, findBinary } from "../src/index.js";

/** Runs body with a temp folder holding: exe/modelstore (executable), plain/modelstore (not), dir/modelstore/ (a folder). */
function withFolders(body: (root: string) => void): void {
  const root = mkdtempSync(join(tmpdir(), "modelstore-binary-"));
  try {
    for (const folder of ["exe", "plain", "dir", "dir/modelstore"]) mkdirSync(join(root, folder));
    writeFileSync(join(root, "exe", "modelstore"), "#!/bin/sh\n");
    chmodSync(join(root, "exe", "modelstore"), 0o755);
    writeFileSync(join(root, "plain", "modelstore"), "#!/bin/sh\n");
    chmodSync(join(root, "plain", "modelstore"), 0o644);
    body(root);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

test("the option, then MODELSTORE_BIN, then the first executable modelstore on PATH", () => withFolders((root) => {
  const path = ["", join(root, "plain"), join(root, "dir"), join(root, "exe")].join(delimiter);
  assert.equal(findBinary("/explicit/ms", { MODELSTORE_BIN: "/env/ms", PATH: path }), "/explicit/ms");
  assert.equal(findBinary(undefined, { MODELSTORE_BIN: "/env/ms", PATH: path }), "/env/ms");
  assert.equal(findBinary(undefined, { MODELSTORE_BIN: "", PATH: path }), join(root, "exe", "modelstore"));
  assert.equal(findBinary(undefined, { MODELSTORE_BIN: "rel/ms" }), resolve("rel/ms"));
}));

test("no binary anywhere: BinaryNotFoundError says how to fix it", () => withFolders((root) => {
  const env = { PATH: [join(root, "plain"), join(root, "dir")].join(delimiter) };
  assert.throws(() => findBinary(undefined, env), (err: unknown) => {
    assert.ok(err instanceof BinaryNotFoundError);
    assert.match(err.message, /^modelstore binary not found: /);
    for (const hint of ["`binary`", "MODELSTORE_BIN", "PATH", "pip install", "make build"]) assert.ok(err.message.includes(hint));
    return true;
  });
}));

test("spawn throws BinaryNotFoundError at once when nothing is found", () => {
  const saved = { bin: process.env["MODELSTORE_BIN"], path: process.env["PATH"] };
  process.env["MODELSTORE_BIN"] = "";
  process.env["PATH"] = "/nonexistent-folder";
  try {
    assert.throws(() => ModelStoreClient.spawn(), BinaryNotFoundError);
  } finally {
    for (const [key, value] of [["MODELSTORE_BIN", saved.bin], ["PATH", saved.path]] as const) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
});

test("a named binary that cannot start rejects with the same advice", async () => {
  const client = ModelStoreClient.spawn({ binary: "/nonexistent/modelstore" });
  await assert.rejects(client.call("initialize"), (err: unknown) => {
    assert.ok(err instanceof ServerExitedError);
    assert.ok(err.message.startsWith("could not start /nonexistent/modelstore: "));
    assert.ok(err.message.includes(HOW_TO_FIX));
    return true;
  });
  await client.close();
});
