// Live queries through the Node client, with a second server writing the same file.
import test from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ModelStoreClient, applyChange } from "../src/index.js";
import type { QueryChange, Schema, StoredObject } from "../src/index.js";

const BIN = process.env["MODELSTORE_BIN"];
const SKIP = BIN ? false : "MODELSTORE_BIN is not set (point it at the built server, e.g. .build/debug/modelstore)";

const SCHEMA: Schema = {
  version: "1",
  entities: [{ name: "Task", attributes: [{ name: "title", type: "string" }, { name: "rank", type: "int", default: 0 }] }],
};

test("an observed list follows another process's commits", { skip: SKIP }, async () => {
  const dir = mkdtempSync(join(tmpdir(), "modelstore-live-"));
  const path = join(dir, "shared.store");
  const editor = ModelStoreClient.spawn({ binary: BIN, args: ["serve", "--store", path] });
  const script = ModelStoreClient.spawn({ binary: BIN, args: ["serve", "--store", path] });
  try {
    await editor.modelDefine(SCHEMA);
    const first = await editor.queryObserve({ entity: "Task", sort: [{ key: "rank" }] });
    let list: StoredObject[] = first.objects;
    const changed = new Promise<void>((resolve) => {
      editor.onQueryChanged(first.subscription, (change: QueryChange) => {
        list = applyChange(list, change);
        if (list.length === 3) resolve();
      });
    });
    for (const [title, rank] of [["c", 3], ["a", 1], ["b", 2]] as const) await script.insert("Task", { title, rank });
    await changed;
    assert.deepEqual(list.map((o) => o["title"]), ["a", "b", "c"]);
    const history = await editor.historyFetch();
    assert.equal(history.transactions.length, 3);
    await editor.queryUnobserve(first.subscription);
  } finally {
    await editor.close();
    await script.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
