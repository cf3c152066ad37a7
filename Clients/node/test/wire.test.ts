// The JSON reader and writer of src/wire.ts: exact where JSON.parse/stringify are not.
import test from "node:test";
import assert from "node:assert/strict";
import { fromBase64, parseJson, stringifyJson } from "../src/wire.js";
import { ObjectConverter } from "../src/convert.js";

test("integers beyond 2^53 - 1 read as exact bigints, the rest as JSON.parse reads them", () => {
  assert.deepEqual(parseJson('{"a":9007199254740993,"b":-9223372036854775808,"c":9007199254740991,"d":1.5e300}'),
    { a: 9007199254740993n, b: -9223372036854775808n, c: 9007199254740991, d: 1.5e300 });
  assert.equal(parseJson("9007199254740992"), 9007199254740992n, "2^53 is beyond the safe range");
  assert.equal(parseJson("12345678901234567.5"), 12345678901234567.5, "a fraction stays a number");
  assert.equal(parseJson("-0"), -0);
  const floats = "[0.30000000000000004,1.2345678901234567e+30,-1234567890123456.7]";
  assert.deepEqual(parseJson(floats), JSON.parse(floats), "long fractions and exponents are numbers, as JSON.parse reads them");
  const text = '[{"s":"12345678901234567890","e":"\\u00e9\\"","n":null,"t":true,"f":false},[],{}, 12345678901234567890 ]';
  assert.deepEqual(parseJson(text), [{ s: "12345678901234567890", e: 'é"', n: null, t: true, f: false }, [], {}, 12345678901234567890n]);
  const proto = parseJson('{"__proto__":{"x":1},"big":12345678901234567890}') as Record<string, unknown>;
  assert.deepEqual(Object.keys(proto), ["__proto__", "big"], "__proto__ is an own key, as JSON.parse makes it");
  assert.equal(Object.getPrototypeOf(proto), Object.prototype);
  for (const bad of ["[1,]", '{"a" 1}', "[12345678901234567890", "12345678901234567890 x", '"\\q12345678901234567"']) {
    assert.throws(() => parseJson(bad), SyntaxError, bad);
  }
});

test("bigints, byte arrays and dates are written exactly", () => {
  assert.equal(stringifyJson({ a: 1, b: "x" }), '{"a":1,"b":"x"}');
  assert.equal(stringifyJson({ big: 9007199254740993n, list: [1n, undefined, "s"], skip: undefined }),
    '{"big":9007199254740993,"list":[1,null,"s"]}');
  const bytes = new Uint8Array([0, 255, 16, 32]);
  assert.equal(stringifyJson({ bytes }), '{"bytes":"AP8QIA=="}');
  assert.equal(stringifyJson({ buffer: Buffer.from("hi", "utf8") }), '{"buffer":"aGk="}', "a Buffer is bytes too, not {type, data}");
  assert.equal(stringifyJson({ bytes, n: 2n }), '{"bytes":"AP8QIA==","n":2}');
  const when = new Date("2026-03-01T08:30:00.000Z");
  assert.equal(stringifyJson({ when, n: 1n }), '{"when":"2026-03-01T08:30:00.000Z","n":1}');
  assert.deepEqual(fromBase64("AP8QIA=="), bytes);
  const round = { id: 9223372036854775807n, small: 3, nested: [{ x: -9007199254740993n }] };
  assert.deepEqual(parseJson(stringifyJson(round)), round);
});

test("a model converts dates, data and int64 by each object's entity, included objects too", () => {
  const converter = new ObjectConverter({
    version: "1",
    entities: {
      Task: { attributes: { due: "date", blob: "data", big: "int64" }, relationships: ["category", "tags"] },
      Category: { attributes: { made: "date" }, relationships: [] },
    },
  });
  const task = converter.object({
    _id: "Task/1", _entity: "Task", due: "2026-03-01T08:30:00.000Z", blob: "AP8=", big: 5, title: "2026-03-01T08:30:00.000Z",
    category: { _id: "Category/1", _entity: "Category", made: "2020-01-01T00:00:00.000Z" }, tags: ["Tag/1"],
  });
  assert.deepEqual(task, {
    _id: "Task/1", _entity: "Task", due: new Date("2026-03-01T08:30:00.000Z"), blob: new Uint8Array([0, 255]), big: 5n,
    title: "2026-03-01T08:30:00.000Z", category: { _id: "Category/1", _entity: "Category", made: new Date("2020-01-01T00:00:00.000Z") },
    tags: ["Tag/1"],
  });
  const nulls = converter.object({ _id: "Task/2", _entity: "Task", due: null, blob: null, big: 12345678901234567890n });
  assert.deepEqual(nulls, { _id: "Task/2", _entity: "Task", due: null, blob: null, big: 12345678901234567890n });
  assert.deepEqual(new ObjectConverter(undefined).object({ _entity: "Task", due: "x" }), { _entity: "Task", due: "x" });
});
