// Runs the live-query example of README.md (the block after `<!-- live-example -->`)
// as a script against the built server, so the documented API stays the real one.
import test from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url)); // dist/test
const BIN = process.env["MODELSTORE_BIN"];
const SKIP = BIN ? false : "MODELSTORE_BIN is not set (point it at the built server, e.g. .build/debug/modelstore)";

function runScript(file: string, cwd: string): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(process.execPath, [file], { cwd, env: { ...process.env, MODELSTORE_BIN: resolve(BIN!) }, stdio: ["pipe", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout.setEncoding("utf8").on("data", (chunk) => { out += chunk; });
  child.stderr.setEncoding("utf8").on("data", (chunk) => { err += chunk; });
  child.stdin.end();
  return new Promise((done) => child.on("close", (code) => done({ code, out, err })));
}

test("the README's live-query example runs", { skip: SKIP, timeout: 60_000 }, async () => {
  const readme = readFileSync(resolve(HERE, "../../README.md"), "utf8");
  const block = /<!-- live-example -->\n```js\n([\s\S]*?)```/.exec(readme);
  assert.ok(block, "README.md has no live-example block");
  const index = pathToFileURL(resolve(HERE, "../src/index.js")).href;
  const dir = mkdtempSync(join(tmpdir(), "modelstore-readme-"));
  try {
    const file = join(dir, "example.mjs");
    writeFileSync(file, block[1]!.replace(`from "modelstore-client"`, `from ${JSON.stringify(index)}`));
    const { code, out, err } = await runScript(file, dir);
    assert.equal(code, 0, `example failed:\n${err}`);
    assert.match(out, /^a,b$/m);
    assert.match(out, /^2 tasks$/m);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
