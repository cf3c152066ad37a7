// The client against protocol.json, the server's own description: src/protocol.ts (the
// params types the client methods take) is the generator's output, and every method
// has a client method that sends every param it is given. A param added on the server
// fails here until src/protocol.ts is regenerated (node dist/src/protocol-gen.js).
import test from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ModelStoreClient } from "../src/client.js";
import { ObjectConverter } from "../src/convert.js";
import { ChangeRouter } from "../src/live.js";
import { OUTPUT_PATH, generate, readDescription } from "../src/protocol-gen.js";
import type { JSONSchema } from "../src/protocol-gen.js";

const description = readDescription();

test("src/protocol.ts is generated from protocol.json", () => {
  assert.equal(readFileSync(OUTPUT_PATH, "utf8"), generate(description), "run: tsc -p . && node dist/src/protocol-gen.js");
});

type P = Record<string, any>;
type Invoke = (c: ModelStoreClient, p: P) => Promise<unknown>;

/** How each method is called through the client, given its params `p`. */
const INVOKE: Record<string, Invoke> = {
  initialize: (c, p) => c.initialize(p.clientInfo, p.capabilities, p.author, p.initializationOptions),
  "store.open": (c, p) => c.storeOpen(p),
  "store.info": (c) => c.storeInfo(),
  "store.backup": (c, p) => c.storeBackup(p.to),
  "store.check": (c) => c.storeCheck(),
  "model.define": (c, p) => c.modelDefine(p.schema),
  "model.get": (c) => c.modelGet(),
  "model.diff": (c, p) => c.modelDiff(p.to, p.from),
  "model.validate": (c, p) => c.modelValidate(p.schema),
  "model.importXcdatamodel": (c, p) => c.modelImportXcdatamodel(p),
  "model.audit": (c, p) => c.modelAudit(p as any),
  "model.generate": (c, p) => c.modelGenerate(p as any),
  "model.diagram": (c, p) => c.modelDiagram(p),
  "objects.insert": (c, { entity, values, ...options }) => c.insert(entity, values, options),
  "objects.update": (c, { id, values, ...options }) => c.update(id, values, options),
  "objects.upsert": (c, { entity, values, on, ...options }) => c.upsert(entity, values, on, options),
  "objects.delete": (c, { id, ...options }) => c.delete(id, options),
  "objects.get": async (c, { id, ids, include, ...options }) => {
    await c.get(id, include, options);
    await c.getMany(ids, include, options);
  },
  "objects.updateWhere": (c, { entity, where, values, args, ...options }) => c.updateWhere(entity, where, values, args, options),
  "objects.deleteWhere": (c, { entity, where, args, ...options }) => c.deleteWhere(entity, where, args, options),
  "context.save": (c, p) => c.save(p.changes, p.author),
  "transaction.begin": (c) => c.begin(),
  "transaction.commit": (c) => c.commit(),
  "transaction.rollback": (c) => c.rollback(),
  "query.fetch": (c, p) => c.fetch(p as any),
  "query.observe": (c, p) => c.queryObserve(p as any),
  "query.unobserve": (c, p) => c.queryUnobserve(p.subscription),
  "query.count": (c, p) => c.count(p as any),
  "query.ids": (c, p) => c.ids(p as any),
  "query.parse": (c, p) => c.queryParse(p as any),
  "query.aggregate": (c, p) => c.aggregate(p as any),
  "migration.status": (c, p) => c.migrationStatus(p.schema),
  "migration.plan": (c, p) => c.migrationPlan(p as any),
  "migration.apply": (c, p) => c.migrationApply(p as any),
  "history.fetch": (c, p) => c.historyFetch(p),
  "history.delete": (c, p) => c.historyDelete(p.before),
  "export.json": (c, p) => c.exportJson(p),
  "import.json": (c, p) => c.importJson(p as any),
  "import.coreData": (c, p) => c.importCoreData(p as any),
};
/** Sent by `close()` (RpcConnection.shutdown), not by a method; they take no params. */
const LIFECYCLE = new Set(["shutdown", "exit"]);

function sample(schema: JSONSchema): unknown {
  if (schema.oneOf !== undefined) return sample(schema.oneOf[0]!);
  if (schema.const !== undefined) return schema.const;
  if (schema.enum !== undefined) return schema.enum[0];
  switch (schema.type) {
    case "string": return "x";
    case "integer": case "number": return 1;
    case "boolean": return true;
    case "array": return [sample(schema.items ?? {})];
    default: return { k: 1 };
  }
}

/** A client whose `call` records what it would send. */
function recordingClient(sent: { method: string; params: P }[]): ModelStoreClient {
  const client = Object.create(ModelStoreClient.prototype) as any;
  client.changes = new ChangeRouter();
  client.converter = new ObjectConverter(undefined);
  client.onRequest = () => () => undefined;
  client.call = async (method: string, params?: P) => {
    sent.push({ method, params: params ?? {} });
    return method === "query.observe" ? { subscription: "q1", token: 0, objects: [] } : {};
  };
  return client as ModelStoreClient;
}

test("every method has a client method that sends every param", async () => {
  const problems: string[] = [];
  for (const method of description.methods) {
    if (LIFECYCLE.has(method.name)) continue;
    const invoke = INVOKE[method.name];
    if (invoke === undefined) {
      problems.push(`${method.name}: no client method (add one to client.ts and to INVOKE here)`);
      continue;
    }
    const params: P = {};
    for (const p of method.params) params[p.name] = sample(p.schema);
    const sent: { method: string; params: P }[] = [];
    await invoke(recordingClient(sent), params);
    const keys = new Set(sent.filter((s) => s.method === method.name).flatMap((s) => Object.keys(s.params).filter((k) => s.params[k] !== undefined)));
    if (sent.length === 0 || sent.some((s) => s.method !== method.name)) problems.push(`${method.name}: the client sent ${sent.map((s) => s.method).join(", ")}`);
    const missing = method.params.map((p) => p.name).filter((n) => !keys.has(n));
    if (missing.length > 0) problems.push(`${method.name}: the client does not send ${missing.join(", ")}`);
  }
  const unknown = Object.keys(INVOKE).filter((name) => !description.methods.some((m) => m.name === name));
  if (unknown.length > 0) problems.push(`INVOKE names methods the server lacks: ${unknown.join(", ")}`);
  assert.deepEqual(problems, []);
});

test("the connection sends shutdown and exit", () => {
  const source = readFileSync(resolve(dirname(fileURLToPath(import.meta.url)), "../../src/connection.ts"), "utf8");
  for (const name of LIFECYCLE) assert.ok(source.includes(`"${name}"`), name);
});
