// Runs the live-query example of README.md (the block after `<!-- live-example -->`)
// as a script against the built server, so the documented API stays the real one.
import test from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { readmeBlock, runProcess } from "./helpers.js";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url)); // dist/test
const BIN = process.env["MODELSTORE_BIN"];
const SKIP = BIN ? false : "MODELSTORE_BIN is not set (point it at the built server, e.g. .build/debug/modelstore)";

test("the README's live-query example runs", { skip: SKIP, timeout: 60_000 }, async () => {
  const block = readmeBlock("live-example", "js");
  const index = pathToFileURL(resolve(HERE, "../src/index.js")).href;
  const dir = mkdtempSync(join(tmpdir(), "modelstore-readme-"));
  try {
    const file = join(dir, "example.mjs");
    writeFileSync(file, block.replace(`from "modelstore-client"`, `from ${JSON.stringify(index)}`));
    const { code, out, err } = await runProcess(process.execPath, [file], { cwd: dir, env: { MODELSTORE_BIN: resolve(BIN!) } });
    assert.equal(code, 0, `example failed:\n${err}`);
    assert.match(out, /^a,b$/m);
    assert.match(out, /^2 tasks$/m);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
