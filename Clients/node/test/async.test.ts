// The client's async habits against test/fake-server.mjs: AbortSignal cancellation,
// Symbol.asyncDispose, time-outs that never cancel, no default limit for long methods,
// and a script that forgets close() still exiting.
import test from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { AbortError, ModelStoreClient, RequestTimeoutError, ServerExitedError } from "../src/index.js";
import { runProcess } from "./helpers.js";

const HERE = dirname(fileURLToPath(import.meta.url)); // dist/test
const FAKE_SERVER = resolve(HERE, "../../test/fake-server.mjs");

function startFake(timeoutMs?: number): ModelStoreClient {
  return ModelStoreClient.spawn({ binary: process.execPath, args: [FAKE_SERVER], timeoutMs });
}

async function withFake(body: (client: ModelStoreClient) => Promise<void>, timeoutMs?: number): Promise<void> {
  const client = startFake(timeoutMs);
  try {
    await body(client);
  } finally {
    await client.close({ timeoutMs: 2_000 });
  }
}

test("an aborted signal sends $/cancelRequest and rejects with AbortError", () => withFake(async (client) => {
  const controller = new AbortController();
  const promise = client.call("sleep", { ms: 60_000, value: "late" }, { signal: controller.signal });
  controller.abort(new Error("user pressed stop"));
  await assert.rejects(promise, (err: unknown) => {
    assert.ok(err instanceof AbortError);
    assert.equal(err.name, "AbortError");
    assert.equal(err.method, "sleep");
    assert.match(String((err.cause as Error).message), /user pressed stop/);
    assert.equal(err.serverError?.code, -32800, "the server confirmed the cancellation");
    return true;
  });
  assert.deepEqual(await client.call("seen"), ["sleep", "$/cancelRequest", "seen"]);
}));

test("a signal aborted before the call sends nothing", () => withFake(async (client) => {
  await assert.rejects(client.call("echo", { a: 1 }, { signal: AbortSignal.abort() }), (err: unknown) => {
    assert.ok(err instanceof AbortError);
    assert.equal(err.serverError, undefined);
    return true;
  });
  assert.deepEqual(await client.call("seen"), ["seen"]);
}));

test("an abort after the reply changes nothing", () => withFake(async (client) => {
  const controller = new AbortController();
  assert.deepEqual(await client.call("echo", { a: 1 }, { signal: controller.signal }), { a: 1 });
  controller.abort();
  assert.deepEqual(await client.call("seen"), ["echo", "seen"]);
}));

test("a time-out stops waiting but never cancels: the request completes on the server", () => withFake(async (client) => {
  // The fake answers only when woken: no reply can beat the time-out.
  await assert.rejects(client.call("sleep", { ms: 600_000, value: "done" }, { timeoutMs: 20 }), (err: unknown) => {
    assert.ok(err instanceof RequestTimeoutError);
    assert.match(err.message, /not cancelled and may still complete/);
    return true;
  });
  // The sleeper's reply is written before wake's own, so it has been read when wake answers.
  assert.equal(await client.call("wake"), 1);
  assert.deepEqual(await client.call("seen"), ["sleep", "wake", "seen"], "no $/cancelRequest was sent");
  assert.match(client.stderrTail(), /unmatched\] .*"result":"done"/, "the timed-out request completed");
}));

test("long methods have no default time limit; others have the client's", () => withFake(async (client) => {
  // Answered after 200 ms, four times the client's 50 ms: only "no limit" lets it through.
  const slow = { data: "{}", _delayMs: 200 } as unknown as Parameters<ModelStoreClient["importJson"]>[0];
  assert.equal((await client.importJson(slow) as unknown as { method: string }).method, "import.json");
  // Answered after ten minutes: no reply can beat the limit.
  const never = { data: "{}", _delayMs: 600_000 } as unknown as Parameters<ModelStoreClient["importJson"]>[0];
  await assert.rejects(client.call("query.count", { entity: "Task", _delayMs: 600_000 }), RequestTimeoutError);
  await assert.rejects(client.importJson(never, { timeoutMs: 20 }), RequestTimeoutError, "a call's own limit still applies");
}, 50));

test("Symbol.asyncDispose closes the session", async () => {
  const client = startFake();
  assert.deepEqual(await client.call("echo", { a: 1 }), { a: 1 });
  await client[Symbol.asyncDispose]();
  assert.deepEqual(client.exitInfo, { code: 0, signal: null });
  await assert.rejects(client.call("echo"), ServerExitedError);
});

test("a script that forgets close() exits by itself", { timeout: 20_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), "modelstore-idle-"));
  try {
    const file = join(dir, "forgets-close.mjs");
    const index = pathToFileURL(resolve(HERE, "../src/index.js")).href;
    writeFileSync(file, [
      `import { ModelStoreClient } from ${JSON.stringify(index)};`,
      `const client = ModelStoreClient.spawn({ binary: process.execPath, args: [${JSON.stringify(FAKE_SERVER)}] });`,
      `const echoed = await client.call("sleep", { ms: 100, value: "answered" });`,
      `console.log(echoed, client.pid > 0);`,
      "",
    ].join("\n"));
    // Before: the child's pipes kept the event loop alive and this never returned (the
    // test's timeout is the bound).
    const { code, out, err } = await runProcess(process.execPath, [file]);
    assert.equal(code, 0, err);
    assert.equal(out, "answered true\n", "the pending request kept the process alive until its reply");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
