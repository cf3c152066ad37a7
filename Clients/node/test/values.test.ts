// Values both ways against the real server (README.md, "Values"): 64-bit integers exact
// with or without a model; with the generated model, dates, data and int64 per type.
import test from "node:test";
import assert from "node:assert/strict";
import { ModelStoreClient } from "../src/index.js";
import type { ModelDescription, Schema, StoredObject } from "../src/index.js";

const BIN = process.env["MODELSTORE_BIN"];
const SKIP = BIN ? false : "MODELSTORE_BIN is not set (point it at the built server, e.g. .build/debug/modelstore)";

const SCHEMA: Schema = {
  version: "1",
  entities: [
    {
      name: "Reading",
      attributes: [
        { name: "big", type: "int64", default: 0 }, { name: "wide", type: "int", default: 0 },
        { name: "at", type: "date", optional: true }, { name: "bytes", type: "data", optional: true },
        { name: "label", type: "string", optional: true },
      ],
      relationships: [{ name: "sensor", destination: "Sensor", inverse: "readings" }],
    },
    {
      name: "Sensor",
      attributes: [{ name: "code", type: "string", unique: true }, { name: "installed", type: "date", optional: true }],
      relationships: [{ name: "readings", destination: "Reading", inverse: "sensor", toMany: true }],
    },
  ],
};
/** What generated models.ts's `model` says for SCHEMA (checked against the generator below). */
const MODEL: ModelDescription = {
  version: "1",
  entities: {
    Reading: { attributes: { big: "int64", at: "date", bytes: "data" }, relationships: ["sensor"] },
    Sensor: { attributes: { installed: "date" }, relationships: ["readings"] },
  },
};

const EXPORT_HEADER = JSON.stringify({ format: "modelstore-export", version: 1, schema: SCHEMA, entities: ["Sensor", "Reading"] });

test("integers beyond 2^53 read back exactly, with no model", { skip: SKIP }, async () => {
  const client = ModelStoreClient.spawn({ binary: BIN });
  try {
    // The text path of the bug: a stored 9007199254740993 read back as 9007199254740992.
    await client.importJson({ data: `${EXPORT_HEADER}\n{"_id":"Reading/1","_entity":"Reading","big":9007199254740993,"wide":-9223372036854775808}\n` });
    const [read] = (await client.fetch({ entity: "Reading" })).objects;
    assert.equal(read?.["big"], 9007199254740993n);
    assert.equal(read?.["wide"], -9223372036854775808n);
    // And sent from JavaScript as bigints; small integers stay numbers.
    const inserted = await client.insert("Reading", { big: 9223372036854775807n, wide: 7 });
    assert.equal(inserted["big"], 9223372036854775807n);
    assert.equal(inserted["wide"], 7);
    const { objects } = await client.fetch({ entity: "Reading", where: "big > %@", args: [9007199254740992n] });
    assert.deepEqual(objects.map((o) => o._id), ["Reading/1", "Reading/2"]);
    const sum = await client.aggregate({ entity: "Reading", aggregates: [{ fn: "sum", key: "wide", as: "total" }] });
    assert.equal(sum.groups[0]?.values["total"], -9223372036854775801n, "results other than objects are exact too");
  } finally {
    await client.close();
  }
});

test("with the model, dates, data and int64 round-trip as Date, Uint8Array and bigint", { skip: SKIP }, async () => {
  const client = ModelStoreClient.spawn({ binary: BIN, model: MODEL });
  try {
    const generated = await client.modelGenerate({ target: "typescript", schema: SCHEMA });
    const entities = /export const model: [^=]*= (\{[\s\S]*\});\n$/.exec(generated.files[0]!.text)?.[1];
    assert.ok(entities, "models.ts has its model value");
    assert.deepEqual(Function(`return (${entities});`)(), MODEL, "MODEL is what the generator writes");
    await client.modelDefine(SCHEMA);
    const sensor = await client.insert("Sensor", { code: "s1", installed: new Date("2020-02-29T23:59:59.999Z") });
    assert.deepEqual(sensor["installed"], new Date("2020-02-29T23:59:59.999Z"));
    const bytes = new Uint8Array([0, 1, 127, 128, 255]);
    const at = new Date("2026-03-01T09:30:00.250+01:00");
    const reading = await client.insert("Reading", { big: 5, wide: 2n ** 60n, at, bytes, label: at.toISOString(), sensor: sensor._id });
    const expected = { _id: reading._id, _entity: "Reading", big: 5n, wide: 2n ** 60n, at, bytes, label: "2026-03-01T08:30:00.250Z", sensor: sensor._id };
    assert.deepEqual(reading, expected, "insert's result");
    assert.deepEqual(await client.get(reading._id), expected, "get");
    assert.deepEqual((await client.getMany([reading._id])).objects, [expected], "getMany");
    assert.deepEqual((await client.fetch({ entity: "Reading" })).objects, [expected], "fetch");
    const included = (await client.fetch({ entity: "Reading", include: ["sensor"] })).objects[0] as StoredObject;
    assert.deepEqual(included["sensor"], { ...sensor }, "included objects are converted by their own entity");
    const nested = await client.get(sensor._id, ["readings"]);
    assert.deepEqual(nested["readings"], [expected], "to-many includes too");
    const cleared = await client.update(reading._id, { at: null, bytes: null, big: -9223372036854775808n });
    assert.deepEqual([cleared["at"], cleared["bytes"], cleared["big"]], [null, null, -9223372036854775808n]);
    const { object, inserted } = await client.upsert("Sensor", { code: "s1", installed: new Date(0) }, "code");
    assert.equal(inserted, false);
    assert.deepEqual(object["installed"], new Date(0), "upsert's object");

    const live = await client.observe({ entity: "Reading", sort: ["label"] });
    assert.deepEqual(live.objects[0]?.["big"], -9223372036854775808n, "observe's first result");
    await client.insert("Reading", { label: "zz", at: new Date(1_000), bytes: new Uint8Array([9]), big: 1n });
    const change = await live.nextChange();
    assert.deepEqual(change?.inserted[0]?.object["at"], new Date(1_000), "query/changed objects");
    assert.deepEqual(live.objects[1]?.["bytes"], new Uint8Array([9]));
    await live.close();
  } finally {
    await client.close();
  }
});
