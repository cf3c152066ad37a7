// End-to-end: the Task/Category scenario against the real server binary.
import test from "node:test";
import assert from "node:assert/strict";
import { ModelStoreClient, NotFoundError, ValidationError } from "../src/index.js";
import type { Schema, StoredObject } from "../src/index.js";

const BIN = process.env["MODELSTORE_BIN"];
const SKIP = BIN ? false : "MODELSTORE_BIN is not set (point it at the built server, e.g. .build/debug/modelstore)";

const SCHEMA: Schema = {
  version: "1.0.0",
  entities: [
    {
      name: "Category",
      attributes: [
        { name: "id", type: "uuid", unique: true, default: { generate: "uuid" } },
        { name: "name", type: "string" },
        { name: "color", type: "string", default: "blue" },
      ],
      relationships: [{ name: "tasks", destination: "Task", inverse: "category", toMany: true, deleteRule: "cascade" }],
    },
    {
      name: "Task",
      attributes: [
        { name: "id", type: "uuid", unique: true, default: { generate: "uuid" } },
        { name: "title", type: "string" },
        { name: "isCompleted", type: "bool", default: false },
        { name: "createdAt", type: "date", default: { generate: "now" } },
        { name: "priority", type: "int", default: 0 },
      ],
      relationships: [{ name: "category", destination: "Category", inverse: "tasks", deleteRule: "nullify" }],
    },
  ],
};

/** Dates are generated with millisecond precision: space inserts so createdAt orders them. */
const pause = (ms: number): Promise<void> => new Promise((resolve) => { setTimeout(resolve, ms); });

async function insertTask(client: ModelStoreClient, values: Record<string, unknown>): Promise<StoredObject> {
  const task = await client.insert("Task", values);
  await pause(15);
  return task;
}

test("Task/Category scenario", { skip: SKIP }, async () => {
  const client = ModelStoreClient.spawn({ binary: BIN, timeoutMs: 15_000 });
  try {
    await client.modelDefine(SCHEMA);

    const task = await insertTask(client, { title: "Write the client" });
    assert.equal(task._entity, "Task");
    assert.match(task._id, /^Task\//);
    assert.equal(task.title, "Write the client");
    assert.equal(task.isCompleted, false);
    assert.equal(task.priority, 0);
    assert.equal(typeof task.id, "string");
    assert.equal(typeof task.createdAt, "string");
    assert.deepEqual(await client.get(task._id), task);

    const category = await client.insert("Category", { name: "Work" });
    assert.equal(category.color, "blue");
    const moved = await client.update(task._id, { category: category._id });
    assert.equal(moved.category, category._id);
    assert.equal((await client.get(category._id)).tasks, undefined, "to-many relationships are left out unless asked");
    assert.deepEqual((await client.get(category._id, undefined, { toMany: "ids" })).tasks, [task._id]);
    assert.equal((await client.get(category._id, [], { toMany: "count" })).tasks, 1);
    assert.deepEqual((await client.getMany([category._id], undefined, { toMany: "count" })).objects.map((o) => o.tasks), [1]);
    const listed = await client.fetch({ entity: "Category", toMany: "ids" });
    assert.deepEqual(listed.objects.map((o) => o.tasks), [[task._id]]);
    const selected = await client.fetch({ entity: "Category", select: ["tasks"], toMany: "count" });
    assert.deepEqual(selected.objects[0]!.tasks, [task._id], "a to-many in select comes as ids");
    assert.equal((await client.update(category._id, { color: "red" }, { toMany: "count" })).tasks, 1);
    assert.deepEqual((await client.insert("Category", { name: "Home" }, { toMany: "ids" })).tasks, []);
    const live = await client.observe({ entity: "Category", sort: [{ key: "name" }], toMany: "count" });
    assert.deepEqual(live.objects.map((o) => o.tasks), [0, 1]);
    await live.close();

    const second = await insertTask(client, { title: "Second" });
    await insertTask(client, { title: "Done already", isCompleted: true });
    const third = await insertTask(client, { title: "Third", priority: 2 });
    const pending = await client.fetch({
      entity: "Task", where: "isCompleted == NO", sort: [{ key: "createdAt", ascending: false }],
    });
    assert.deepEqual(pending.objects.map((o) => o._id), [third._id, second._id, task._id]);
    const dates = pending.objects.map((o) => Date.parse(String(o.createdAt)));
    assert.deepEqual(dates, [...dates].sort((a, b) => b - a));

    const removed = await client.delete(category._id);
    assert.deepEqual([...removed.deleted].sort(), [category._id, task._id].sort());
    await assert.rejects(client.get(task._id), NotFoundError);
    assert.deepEqual(await client.count({ entity: "Task" }), { count: 3 });

    await assert.rejects(client.insert("Task", { title: 42 }), ValidationError);
  } catch (err) {
    await client.close(); // keep the scenario's own error, not a follow-up exit-code failure
    throw err;
  }
  const exit = await client.close();
  assert.equal(exit.code, 0, `server exit code; stderr:\n${client.stderrTail()}`);
});
