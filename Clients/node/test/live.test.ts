// Live queries through the Node client, with a second server writing the same file.
// Every wait is for a history token, bounded by wall-clock time.
import test from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ModelStoreClient, applyChange } from "../src/index.js";
import type { FetchParams, QueryChange, Schema, StoredObject } from "../src/index.js";

const BIN = process.env["MODELSTORE_BIN"];
const SKIP = BIN ? false : "MODELSTORE_BIN is not set (point it at the built server, e.g. .build/debug/modelstore)";
const WAIT_MS = 60_000; // a wall-clock bound for failures only: a loaded machine must not trip it

const SCHEMA: Schema = {
  version: "1",
  entities: [{
    name: "Task",
    attributes: [
      { name: "title", type: "string" },
      { name: "rank", type: "int", default: 0 },
      { name: "done", type: "bool", default: false },
    ],
  }],
};

/** An editor and a script, two servers on one store file. */
async function withTwoProcesses(body: (editor: ModelStoreClient, script: ModelStoreClient) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "modelstore-live-"));
  const path = join(dir, "shared.store");
  const editor = ModelStoreClient.spawn({ binary: BIN, args: ["serve", "--store", path] });
  const script = ModelStoreClient.spawn({ binary: BIN, args: ["serve", "--store", path] });
  try {
    await editor.modelDefine(SCHEMA);
    await body(editor, script);
  } finally {
    await editor.close();
    await script.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The token of the script's last commit (it is the only writer). */
async function lastToken(script: ModelStoreClient): Promise<number> {
  return (await script.historyFetch({ limit: 1 })).lastToken;
}

/** Resolves once `reached()` holds; `check` is to be called after each change. Rejects after WAIT_MS. */
function until(reached: () => boolean, describe: () => string): { check: () => void; done: Promise<void> } {
  let check = (): void => undefined;
  const done = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not reached within ${WAIT_MS} ms: ${describe()}`)), WAIT_MS);
    check = () => { if (reached()) { clearTimeout(timer); resolve(); } };
  });
  return { check: () => check(), done };
}

test("queryObserve and onQueryChanged follow another process's commits", { skip: SKIP }, async () => {
  await withTwoProcesses(async (editor, script) => {
    const first = await editor.queryObserve({ entity: "Task", sort: [{ key: "rank" }] });
    let list: StoredObject[] = first.objects;
    const tokens: number[] = [];
    let token = Infinity;
    const wait = until(() => tokens.length > 0 && tokens[tokens.length - 1]! >= token, () => `tokens ${tokens}, want ${token}`);
    editor.onQueryChanged(first.subscription, (change: QueryChange) => {
      list = applyChange(list, change);
      tokens.push(change.token);
      wait.check();
    });
    for (const [title, rank] of [["c", 3], ["a", 1], ["b", 2]] as const) await script.insert("Task", { title, rank });
    token = await lastToken(script);
    wait.check();
    await wait.done;
    assert.deepEqual(list.map((o) => o["title"]), ["a", "b", "c"]);
    assert.deepEqual(tokens, [...tokens].sort((a, b) => a - b));
    await editor.queryUnobserve(first.subscription);
  });
});

test("random writes keep a live list equal to a fresh fetch at every commit", { skip: SKIP }, async () => {
  await withTwoProcesses(async (editor, script) => {
    const query: FetchParams = { entity: "Task", where: "done == NO", sort: [{ key: "rank" }, { key: "title" }] };
    const live = await editor.observe(query);
    let seed = 7;
    const random = (n: number): number => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; };
    const ids: string[] = [];
    let expected: StoredObject[] = [];
    for (let step = 0; step < 40; step += 1) {
      const roll = random(100);
      if (ids.length === 0 || roll < 40) ids.push((await script.insert("Task", { title: `t${step}`, rank: random(5) }))._id);
      else if (roll < 75) await script.update(ids[random(ids.length)]!, { rank: random(5) });
      else if (roll < 85) await script.update(ids[random(ids.length)]!, { done: random(2) === 0 });
      else await script.delete(ids.splice(random(ids.length), 1)[0]!);
      const previous = expected;
      expected = (await script.fetch(query)).objects;
      if (JSON.stringify(expected) !== JSON.stringify(previous)) { // the commit changed the result
        const token = await lastToken(script);
        assert.equal(await live.waitFor(token, { timeoutMs: WAIT_MS }), true, `step ${step}: token ${live.token}`);
      }
      assert.deepEqual(live.objects, expected, `after step ${step}`);
    }
    assert.equal(live.error, undefined);
    await live.close();
  });
});
