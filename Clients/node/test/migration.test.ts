// Migrations through the Node client against the real server binary.
import test from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ModelStoreClient, RpcError } from "../src/index.js";
import type { Schema } from "../src/index.js";

const BIN = process.env["MODELSTORE_BIN"];
const SKIP = BIN ? false : "MODELSTORE_BIN is not set (point it at the built server, e.g. .build/debug/modelstore)";

const V1: Schema = {
  version: "1",
  entities: [{ name: "Task", attributes: [{ name: "title", type: "string" }, { name: "done", type: "bool", default: false }] }],
};
const V2: Schema = {
  version: "2",
  entities: [
    {
      name: "Task",
      attributes: [
        { name: "title", type: "string" },
        { name: "isCompleted", type: "bool", default: false, originalName: "done" },
        { name: "priority", type: "int", default: 0 },
      ],
    },
  ],
};

async function seeded(path: string): Promise<ModelStoreClient> {
  const client = ModelStoreClient.spawn({ binary: BIN, args: ["serve", "--store", path] });
  await client.initialize(undefined, { migrationHooks: true });
  await client.modelDefine(V1);
  await client.insert("Task", { title: "urgent: taxes", done: true });
  await client.insert("Task", { title: "laundry" });
  return client;
}

test("diff, plan and a custom stage whose didMigrate hook works through the client", { skip: SKIP }, async () => {
  const dir = mkdtempSync(join(tmpdir(), "modelstore-node-"));
  const client = await seeded(join(dir, "tasks.store"));
  try {
    const diff = await client.modelDiff(V2);
    assert.deepEqual(diff.changes.map((c) => c.kind), ["renameAttribute", "addAttribute"]);
    const plan = await client.migrationPlan({ schemas: [V1, V2] });
    assert.equal(plan.stages[0]?.status, "planned");
    const seen: string[] = [];
    const result = await client.migrationApply(
      { schemas: [V1, V2], stages: [{ custom: { from: "1", to: "2", didMigrate: true } }] },
      {
        didMigrate: async (params) => {
          seen.push(params.schema.version ?? "");
          await client.updateWhere("Task", "title BEGINSWITH 'urgent'", { priority: 5 });
        },
      },
    );
    assert.deepEqual(seen, ["2"]);
    assert.equal(result.stages[0]?.status, "applied");
    assert.ok(result.backup?.endsWith(".before-1-to-2.backup"));
    const tasks = await client.fetch({ entity: "Task", sort: [{ key: "title" }] });
    assert.deepEqual(tasks.objects.map((t) => [t["isCompleted"], t["priority"]]), [[false, 0], [true, 5]]);
  } finally {
    await client.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a rejected hook rolls the stage back with hookFailed", { skip: SKIP }, async () => {
  const dir = mkdtempSync(join(tmpdir(), "modelstore-node-"));
  const client = await seeded(join(dir, "tasks.store"));
  try {
    await assert.rejects(
      client.migrationApply(
        { schemas: [V1, V2], stages: [{ custom: { from: "1", to: "2", willMigrate: true } }], backup: false },
        { willMigrate: () => { throw new Error("not today"); } },
      ),
      (e: unknown) => e instanceof RpcError && e.kind === "hookFailed",
    );
    assert.equal((await client.modelGet<{ version: string }>()).version, "1");
  } finally {
    await client.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
