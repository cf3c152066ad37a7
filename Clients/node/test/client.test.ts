// Unit tests of the client against test/fake-server.mjs (no real server needed).
import test from "node:test";
import assert from "node:assert/strict";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  BusyError, CancelledError, ConflictError, ConstraintError, DeleteDeniedError, InvalidModelError, InvalidParamsError,
  InvalidRequestError, MethodNotFoundError, MigrationRequiredError, ModelStoreClient, ModelStoreError, NotFoundError,
  ParseError, ReadOnlyError, RequestTimeoutError, RpcError, SchemaMismatchError, ServerExitedError, TransactionError,
  ValidationError, errorFromResponse, resolveCommand,
} from "../src/index.js";

// Compiled to dist/test/, while the fake server stays in the source tree.
const FAKE_SERVER = resolve(dirname(fileURLToPath(import.meta.url)), "../../test/fake-server.mjs");

function startFake(extraArgs: string[] = [], timeoutMs?: number): ModelStoreClient {
  return ModelStoreClient.spawn({ binary: process.execPath, args: [FAKE_SERVER, ...extraArgs], timeoutMs, env: { FAKE_ENV: "yes" } });
}

/** Runs body against a fresh fake server and always closes it. */
async function withFake(body: (client: ModelStoreClient) => Promise<void>, extraArgs: string[] = []): Promise<void> {
  const client = startFake(extraArgs);
  try {
    await body(client);
  } finally {
    await client.close({ timeoutMs: 2_000 });
  }
}

test("resolveCommand picks binary and args", () => {
  assert.deepEqual(resolveCommand({}, { MODELSTORE_BIN: "modelstore" }), { binary: "modelstore", args: ["serve", "--memory"] });
  assert.deepEqual(resolveCommand({}, { MODELSTORE_BIN: "/opt/ms" }).binary, "/opt/ms");
  assert.deepEqual(resolveCommand({ binary: "/x/ms" }, { MODELSTORE_BIN: "/opt/ms" }).binary, "/x/ms");
  assert.deepEqual(resolveCommand({ store: "/tmp/a.db" }, { MODELSTORE_BIN: "ms" }).args, ["serve", "--store", "/tmp/a.db"]);
  assert.deepEqual(resolveCommand({ args: ["serve", "--read-only"] }, { MODELSTORE_BIN: "ms" }).args, ["serve", "--read-only"]);
  assert.throws(() => resolveCommand({ args: [], store: "x" }, {}), TypeError);
  assert.equal(resolveCommand({ binary: "./bin/ms" }, {}).binary, resolve("bin/ms"));
  assert.equal(resolveCommand({ binary: "ms" }, {}).binary, "ms");
});

test("spawn passes args and env", () => withFake(async (client) => {
  const result = await client.call<{ argv: string[]; env: string }>("argv");
  assert.deepEqual(result, { argv: [], env: "yes" });
}));

test("concurrent calls are routed by id", () => withFake(async (client) => {
  const finished: string[] = [];
  const track = <T>(name: string, promise: Promise<T>): Promise<T> => promise.then((v) => { finished.push(name); return v; });
  // The sleepers answer only when woken, in the order wake names: not by their timers.
  const calls = [
    track("slow", client.call("sleep", { ms: 600_000, value: "slow" })),
    track("fast", client.call("sleep", { ms: 600_000, value: "fast" })),
    track("mid", client.call("sleep", { ms: 600_000, value: "mid" })),
    track("echo", client.call("echo", { n: 1 })),
  ];
  await calls[3];
  assert.equal(await client.call("wake", { values: ["fast", "mid", "slow"] }), 3);
  const results = await Promise.all(calls);
  assert.deepEqual(results, ["slow", "fast", "mid", { n: 1 }]);
  assert.deepEqual(finished, ["echo", "fast", "mid", "slow"]);
}));

test("convenience methods mirror protocol names and params", () => withFake(async (client) => {
  const sent = async (promise: Promise<unknown>): Promise<unknown> => promise;
  assert.deepEqual(await sent(client.insert("Task", { title: "a" })),
    { method: "objects.insert", params: { entity: "Task", values: { title: "a" } } });
  assert.deepEqual(await sent(client.getMany(["Task/1"])), { method: "objects.get", params: { ids: ["Task/1"] } });
  assert.deepEqual(await sent(client.delete("Task/1")), { method: "objects.delete", params: { id: "Task/1" } });
  assert.deepEqual(await sent(client.save([{ op: "delete", id: "Task/1" }])),
    { method: "context.save", params: { changes: [{ op: "delete", id: "Task/1" }] } });
  assert.deepEqual(await sent(client.fetch({ entity: "Task", where: "priority > %@", args: [1], sort: [{ key: "title" }] })),
    { method: "query.fetch", params: { entity: "Task", where: "priority > %@", args: [1], sort: [{ key: "title" }] } });
  assert.deepEqual(await sent(client.count({ entity: "Task" })), { method: "query.count", params: { entity: "Task" } });
  assert.deepEqual(await sent(client.begin()), { method: "transaction.begin", params: null });
  assert.deepEqual(await sent(client.storeBackup("/tmp/b.db")), { method: "store.backup", params: { to: "/tmp/b.db" } });
  assert.deepEqual(await sent(client.modelDefine({ entities: [] })), { method: "model.define", params: { schema: { entities: [] } } });
}));

const KIND_CASES: [string, typeof RpcError][] = [
  ["validation", ValidationError], ["constraint", ConstraintError], ["notFound", NotFoundError],
  ["deleteDenied", DeleteDeniedError], ["invalidModel", InvalidModelError], ["schemaMismatch", SchemaMismatchError],
  ["migrationRequired", MigrationRequiredError], ["conflict", ConflictError], ["busy", BusyError],
  ["readOnly", ReadOnlyError], ["transaction", TransactionError],
];
const CODE_CASES: [number, typeof RpcError][] = [
  [-32800, CancelledError], [-32601, MethodNotFoundError], [-32602, InvalidParamsError],
  [-32600, InvalidRequestError], [-32700, ParseError],
];

test("errorFromResponse maps kinds first, then codes", () => {
  for (const [kind, cls] of KIND_CASES) {
    const err = errorFromResponse({ code: -32000, message: "m", data: { kind, entity: "Task" } });
    assert.ok(err instanceof cls, kind);
    assert.equal(err.kind, kind);
  }
  for (const [code, cls] of CODE_CASES) assert.ok(errorFromResponse({ code, message: "m" }) instanceof cls, String(code));
  const wrapped = errorFromResponse({ jsonrpc: "2.0", id: 1, error: { code: -32602, message: "bad" } });
  assert.ok(wrapped instanceof InvalidParamsError);
  const unknown = errorFromResponse({ code: -32050, message: "odd", data: { kind: "somethingNew" } });
  assert.equal(unknown.constructor, RpcError);
  assert.equal(unknown.kind, "somethingNew");
  assert.equal(errorFromResponse({ code: -32000, message: "m", data: { kind: "toString" } }).constructor, RpcError);
});

test("server errors reject with the matching class", () => withFake(async (client) => {
  const data = { kind: "validation", entity: "Task", attribute: "title" };
  await assert.rejects(client.call("fail", { code: -32000, message: "title must be a string", data }), (err: unknown) => {
    assert.ok(err instanceof ValidationError && err instanceof RpcError && err instanceof ModelStoreError);
    assert.equal(err.code, -32000);
    assert.equal(err.message, "title must be a string");
    assert.deepEqual(err.data, data);
    assert.equal(err.method, "fail");
    return true;
  });
  await assert.rejects(client.call("unknownMethod"), MethodNotFoundError);
  assert.deepEqual(await client.call("echo", { still: "works" }), { still: "works" });
}));

test("notifications reach listeners until unsubscribed", () => withFake(async (client) => {
  const seen: unknown[] = [];
  const all: string[] = [];
  const off = client.onNotification("$/progress", (params) => seen.push(params));
  client.onNotification("*", (_params, method) => all.push(method));
  await client.call("notifyMe", { method: "$/progress", params: { token: "t", done: 1, total: 2 } });
  off();
  await client.call("notifyMe", { method: "$/progress", params: { token: "t", done: 2, total: 2 } });
  await client.call("notifyMe", { method: "query/changed", params: { subscription: 1 } });
  assert.deepEqual(seen, [{ token: "t", done: 1, total: 2 }]);
  assert.deepEqual(all, ["$/progress", "$/progress", "query/changed"]);
}));

test("server requests are answered by handlers", () => withFake(async (client) => {
  client.onRequest("migration/willMigrate", async (params) => ({ ok: true, echoed: params }));
  client.onRequest("migration/didMigrate", () => {
    throw new ConflictError(-32007, "not now", { kind: "conflict" });
  });
  const ok = await client.call("askClient", { method: "migration/willMigrate", params: { stage: 1 } });
  assert.deepEqual(ok, { jsonrpc: "2.0", id: "srv-1", result: { ok: true, echoed: { stage: 1 } } });
  const failed = await client.call("askClient", { method: "migration/didMigrate" });
  assert.deepEqual(failed, { jsonrpc: "2.0", id: "srv-2", error: { code: -32007, message: "not now", data: { kind: "conflict" } } });
  const plain = await client.call<{ error: { code: number } }>("askClient", { method: "nobody/handles" });
  assert.equal(plain.error.code, -32601);
}));

test("per-request timeout rejects and leaves the client usable", () => withFake(async (client) => {
  await assert.rejects(client.call("hang", {}, { timeoutMs: 50 }), (err: unknown) => {
    assert.ok(err instanceof RequestTimeoutError);
    assert.equal(err.method, "hang");
    return true;
  });
  assert.deepEqual(await client.call("echo", { after: "timeout" }), { after: "timeout" });
}));

test("cancel rejects the request with CancelledError", () => withFake(async (client) => {
  const { id, promise } = client.callWithId("sleep", { ms: 5_000, value: "late" });
  assert.equal(client.cancel(id), true);
  await assert.rejects(promise, CancelledError);
  assert.equal(client.cancel(id), false);
}));

test("stray stdout text is ignored but kept for diagnosis", () => withFake(async (client) => {
  assert.equal(await client.call("garbage"), "after garbage");
  assert.match(client.stderrTail(), /not JSON\] this is not json/);
}));

test("process exit rejects pending requests with the stderr tail", async () => {
  const client = startFake();
  const pending = client.call("hang");
  const crash = client.call("crash", { code: 3, stderr: ["fatal: disk on fire"] });
  for (const promise of [pending, crash]) {
    await assert.rejects(promise, (err: unknown) => {
      assert.ok(err instanceof ServerExitedError);
      assert.equal(err.exitCode, 3);
      assert.match(err.stderrTail, /disk on fire/);
      assert.match(err.message, /disk on fire/);
      return true;
    });
  }
  await assert.rejects(client.call("echo"), ServerExitedError);
  assert.deepEqual(await client.close(), { code: 3, signal: null });
});

test("close is idempotent and later calls reject", async () => {
  const client = startFake();
  assert.deepEqual(await client.call("echo", { a: 1 }), { a: 1 });
  const [first, second] = await Promise.all([client.close(), client.close()]);
  assert.deepEqual(first, { code: 0, signal: null });
  assert.equal(first, second);
  assert.equal(await client.close(), first);
  await assert.rejects(client.call("echo"), ServerExitedError);
  assert.equal(client.notify("exit"), false);
});

test("close kills a server that ignores shutdown", async () => {
  const client = startFake(["--stubborn"]);
  const exit = await client.close({ timeoutMs: 150 });
  assert.equal(exit.signal, "SIGKILL");
});

test("a missing binary rejects calls with ServerExitedError", async () => {
  const client = ModelStoreClient.spawn({ binary: "/nonexistent/modelstore-bin" });
  await assert.rejects(client.call("echo"), (err: unknown) => {
    assert.ok(err instanceof ServerExitedError);
    assert.match(err.message, /could not start \/nonexistent\/modelstore-bin/);
    return true;
  });
  await client.close();
});
