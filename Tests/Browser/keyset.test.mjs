// The studio's keyset paging (Studio/keyset.js) against a real server: for every sortable
// key type, both directions, with and without a filter, paging a few rows at a time with
// readPage (its runs after each cursor) must list exactly query.ids' order, every object
// once, through nil values, ties and decimals that tie as doubles. Run by `make
// browser-test` (node --test).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { readPage, cursorOf, sortParam } from "../../Studio/keyset.js";

const BIN = process.env.MODELSTORE_BIN || ".build/debug/modelstore";

/** A `modelstore serve --memory` child answering one request at a time. */
function server() {
  const child = spawn(BIN, ["serve", "--memory"], { stdio: ["pipe", "pipe", "inherit"] });
  const lines = createInterface({ input: child.stdout });
  const waiting = [];
  lines.on("line", (line) => waiting.shift()(JSON.parse(line)));
  let id = 0;
  return {
    call(method, params) {
      return new Promise((resolve, reject) => {
        waiting.push((reply) => (reply.error ? reject(new Error(`${method}: ${reply.error.message}`)) : resolve(reply.result)));
        child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params })}\n`);
      });
    },
    close() {
      child.stdin.end();
      return new Promise((resolve) => child.on("exit", resolve));
    },
  };
}

const schema = {
  version: "1",
  entities: [
    { name: "Owner", attributes: [{ name: "name", type: "string" }],
      relationships: [{ name: "items", destination: "Item", inverse: "owner", toMany: true }] },
    { name: "Item",
      attributes: [
        { name: "name", type: "string", optional: true }, { name: "rank", type: "int", optional: true },
        { name: "score", type: "double", optional: true }, { name: "ratio", type: "float", optional: true },
        { name: "when", type: "date", optional: true }, { name: "price", type: "decimal", optional: true },
        { name: "flag", type: "bool", optional: true }, { name: "key", type: "uuid", optional: true },
        { name: "blob", type: "data", optional: true }, { name: "big", type: "int64", optional: true },
      ],
      relationships: [{ name: "owner", destination: "Owner", inverse: "items" }] },
  ],
};

/** Values with many nils and ties, so that ties are broken by the key across page edges. */
function values(i) {
  const pick = (list) => list[(i * 7 + list.length) % list.length];
  return {
    name: pick([null, "a", "b", "b", "Ä", "c\"q", "a\\b", ""]),
    rank: pick([null, 1, 2, 2, 3, -5]),
    score: pick([null, 0.1, 2.5, 2.5, -1e21, 1e-7, 2 ** 70]),
    ratio: pick([null, 0.1, 3, 0.1]),
    when: pick([null, "2026-03-01T08:30:00Z", "2026-03-01T08:30:00.001Z", "1969-12-31T23:59:59Z"]),
    price: pick([null, "0.1", "0.10000000000000000001", "12.5", "-3", "0.1"]),
    flag: pick([null, true, false, false]),
    key: pick([null, "00000000-0000-4000-8000-000000000001", "FFFFFFFF-0000-4000-8000-000000000000", "00000000-0000-4000-8000-000000000001"]),
    blob: pick([null, "AAE=", "/w==", "AAE="]),
    big: pick([null, 2 ** 60, -1, 2 ** 60]), // exact as a double, beyond 2^53
    owner: pick([null, "Owner/1", "Owner/2", "Owner/2"]),
  };
}

test("keyset pages list exactly query.ids' order", async () => {
  const s = server();
  try {
    await s.call("model.define", { schema });
    await s.call("context.save", { changes: [
      { op: "insert", entity: "Owner", values: { name: "x" } }, { op: "insert", entity: "Owner", values: { name: "y" } },
      ...Array.from({ length: 97 }, (_, i) => ({ op: "insert", entity: "Item", values: values(i) })),
    ] });
    const keys = ["name", "rank", "score", "ratio", "when", "price", "flag", "key", "blob", "big", "owner"];
    const types = Object.fromEntries(schema.entities[1].attributes.map((a) => [a.name, a.type]));
    for (const filter of ["", "rank != 3 OR rank == nil"]) {
      for (const key of [null, ...keys]) {
        for (const ascending of key ? [true, false] : [true]) {
          const sort = key ? { key, ascending, type: types[key] || "toOne" } : null;
          const base = { entity: "Item", ...(sort ? { sort: sortParam(sort) } : {}) };
          const expected = (await s.call("query.ids", { ...base, ...(filter ? { where: filter } : {}) })).ids;
          const seen = [];
          let cursor = null;
          for (let page = 0; page < 100; page++) {
            const runs = await readPage(filter, sort, cursor, 5, (where, limit) =>
              s.call("query.fetch", { ...base, ...(where ? { where } : {}), limit, include: ["owner"] }));
            const rows = runs.flatMap((r) => r.result.objects);
            assert.ok(rows.length <= 6, "at most a page and one more row");
            seen.push(...rows.slice(0, 5).map((o) => o._id));
            if (rows.length <= 5) break;
            cursor = cursorOf(rows[4], sort);
          }
          assert.deepEqual(seen, expected, `sort ${key ?? "by key"} ${ascending ? "ascending" : "descending"}, filter '${filter}'`);
        }
      }
    }
  } finally {
    await s.close();
  }
});
