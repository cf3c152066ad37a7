// Live queries against test/fake-server.mjs, which writes the observe reply and
// `query/changed` notifications in one write, in any order: no change may be lost or
// applied out of order (no real server needed).
import test from "node:test";
import assert from "node:assert/strict";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ModelStoreClient } from "../src/index.js";
import type { QueryChange, StoredObject } from "../src/index.js";

const FAKE_SERVER = resolve(dirname(fileURLToPath(import.meta.url)), "../../test/fake-server.mjs");
const WAIT_MS = 10_000; // wall-clock bound for anything the fake server has already written

const A: StoredObject = { _id: "Task/1", _entity: "Task", title: "a" };
const B: StoredObject = { _id: "Task/2", _entity: "Task", title: "b" };
const C: StoredObject = { _id: "Task/3", _entity: "Task", title: "c" };
const B2: StoredObject = { ...B, title: "b2" };

function change(subscription: string, token: number, parts: Partial<QueryChange> = {}): object {
  const params = { subscription, token, inserted: [], deleted: [], updated: [], moved: [], ...parts };
  return { method: "query/changed", params };
}

/** From [A] at token 1: insert B, insert C at the front, move A last, update B. */
function script(subscription: string): object[] {
  return [
    change(subscription, 2, { inserted: [{ index: 1, object: B }] }),
    change(subscription, 3, { inserted: [{ index: 0, object: C }] }),
    change(subscription, 5, { moved: [{ from: 1, to: 2, object: A }] }),
    change(subscription, 6, { updated: [{ index: 1, object: B2 }] }),
  ];
}
const FINAL = [C, B2, A];

/** Stages the next query.observe: the first `before` changes ahead of the reply, the rest after it, in one write. */
async function stage(client: ModelStoreClient, subscription: string, before: number, messages = script(subscription)): Promise<void> {
  const other = change("elsewhere", 4, { deleted: [{ index: 0, id: "Task/1" }] });
  await client.call("stage", {
    method: "query.observe",
    result: { subscription, token: 1, objects: [A] },
    before: [...messages.slice(0, before), other],
    after: [...messages.slice(before), other],
  });
}

async function withFake(body: (client: ModelStoreClient) => Promise<void>): Promise<void> {
  const client = ModelStoreClient.spawn({ binary: process.execPath, args: [FAKE_SERVER] });
  try {
    await body(client);
  } finally {
    await client.close({ timeoutMs: 2_000 });
  }
}

test("queryObserve then onQueryChanged receives the changes read with the reply, in order", async () => {
  await withFake(async (client) => {
    for (let before = 0; before <= 4; before += 1) {
      const subscription = `q${before}`;
      await stage(client, subscription, before);
      const first = await client.queryObserve({ entity: "Task" });
      await client.call("echo", {}); // every staged change has been read by now
      const tokens: number[] = [];
      const stop = client.onQueryChanged(first.subscription, (c) => tokens.push(c.token));
      assert.deepEqual(tokens, [2, 3, 5, 6], `with ${before} changes ahead of the reply`);
      stop();
      await client.queryUnobserve(first.subscription);
    }
  });
});

test("a LiveQuery applies changes read with the reply in order; waitFor, nextChange and for await see each once", async () => {
  await withFake(async (client) => {
    for (let before = 0; before <= 4; before += 1) {
      await stage(client, `q${before}`, before);
      const heard: number[] = [];
      const live = await client.observe({ entity: "Task" }, (c, l) => heard.push(c.token, l.token));
      assert.equal(await live.waitFor(6, { timeoutMs: WAIT_MS }), true, `token ${live.token}`);
      assert.deepEqual(live.objects, FINAL);
      assert.equal((await live.nextChange({ timeoutMs: WAIT_MS }))?.token, 2);
      const rest: number[] = [];
      for await (const c of live) {
        rest.push(c.token);
        if (c.token === 6) break;
      }
      assert.deepEqual(rest, [3, 5, 6]);
      assert.equal(await live.nextChange({ timeoutMs: 0 }), undefined); // nothing is returned twice
      assert.equal(await live.waitFor(7, { timeoutMs: 0 }), false);
      assert.equal(await live.waitFor(3, { timeoutMs: 0 }), true); // an older token is already reflected
      assert.deepEqual(heard, [2, 2, 3, 3, 5, 5, 6, 6]); // each after it was applied
      await live.close();
    }
  });
});

test("an ending error stops waiting and iteration; close does not unobserve it again", async () => {
  await withFake(async (client) => {
    const ended = { method: "query/changed", params: { subscription: "q1", token: 4, error: "entity Task was removed" } };
    await stage(client, "q1", 0, [...script("q1").slice(0, 2), ended]);
    const live = await client.observe({ entity: "Task" });
    const sent: string[] = [];
    const call = client.call.bind(client);
    client.call = <T>(method: string, params?: object) => { sent.push(method); return call<T>(method, params); };
    const tokens: number[] = [];
    for await (const c of live) tokens.push(c.token);
    assert.deepEqual(tokens, [2, 3, 4]);
    assert.equal(live.error, "entity Task was removed");
    assert.equal(live.closed, true);
    assert.equal(await live.waitFor(4, { timeoutMs: WAIT_MS }), false);
    assert.deepEqual(live.objects, [C, A, B]);
    await live.close();
    assert.deepEqual(sent, []); // the server ended it: no query.unobserve
  });
});
