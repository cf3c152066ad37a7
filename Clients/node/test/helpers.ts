// Shared by the tests that run scripts: a child process to its end, and README.md's blocks.
// (No tests here; `node --test dist/test/` runs this file too and finds none.)
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** Clients/node. */
export const PACKAGE = resolve(dirname(fileURLToPath(import.meta.url)), "../.."); // from dist/test

/** Runs `command` with stdin closed; resolves with its exit code and output once it ended. */
export function runProcess(
  command: string,
  args: string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(command, args, { cwd: options.cwd, env: { ...process.env, ...options.env }, stdio: ["pipe", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout.setEncoding("utf8").on("data", (chunk) => { out += chunk; });
  child.stderr.setEncoding("utf8").on("data", (chunk) => { err += chunk; });
  child.stdin.end();
  return new Promise((done) => child.on("close", (code) => done({ code, out, err })));
}

/** The fenced block of `language` after `<!-- name -->` in README.md. */
export function readmeBlock(name: string, language: string): string {
  const readme = readFileSync(resolve(PACKAGE, "README.md"), "utf8");
  const block = new RegExp(`<!-- ${name} -->\\n\`\`\`${language}\\n([\\s\\S]*?)\`\`\``).exec(readme);
  assert.ok(block, `README.md has no ${name} block`);
  return block[1]!;
}
