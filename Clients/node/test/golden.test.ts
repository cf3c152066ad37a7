// Golden transcripts: the replayer checked against the fake server, then one
// test per Tests/Golden/<case>/transcript.jsonl against the real binary.
import test from "node:test";
import assert from "node:assert/strict";
import { basename, dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { GoldenMismatchError, findTranscripts, matchJson, parseTranscript, replayTranscript } from "../src/index.js";

const HERE = dirname(fileURLToPath(import.meta.url)); // Clients/node/dist/test
const GOLDEN_DIR = resolve(HERE, "../../../../Tests/Golden");
const FAKE_SERVER = resolve(HERE, "../../test/fake-server.mjs");
const BIN = process.env["MODELSTORE_BIN"];

test("matchJson ignores key order and honours wildcards", () => {
  assert.equal(matchJson({ a: 1, b: [true, null] }, { b: [true, null], a: 1 }), undefined);
  assert.equal(matchJson({ id: "<any>", x: "<ignore>" }, { id: null }), undefined);
  assert.equal(matchJson({ id: "<any>", x: "<ignore>" }, { id: 3, x: { deep: 1 } }), undefined);
  assert.deepEqual(matchJson({ id: "<any>" }, {})?.reason, "missing member");
  assert.deepEqual(matchJson({ a: 1 }, { a: 1, b: 2 })?.path, "$.b");
  assert.deepEqual(matchJson({ r: { "odd key": [1, 2] } }, { r: { "odd key": [1, 3] } })?.path, '$.r["odd key"][1]');
  assert.notEqual(matchJson([1, 2], [1, 2, 3]), undefined);
  assert.notEqual(matchJson(1, "1"), undefined);
});

test("parseTranscript reads args, comments and raw sends", () => {
  const t = parseTranscript("# args: serve --memory --max-message-bytes 1000\n\n# note\n> {oops\n< {\"id\":null}\n", "x.jsonl");
  assert.deepEqual(t.args, ["serve", "--memory", "--max-message-bytes", "1000"]);
  assert.deepEqual(t.steps.map((s) => [s.kind, s.text, s.line]), [["send", "{oops", 4], ["expect", "{\"id\":null}", 5]]);
  assert.deepEqual(parseTranscript("> {}\n").args, ["serve", "--memory"]);
  // `# args:` counts only as the first non-blank line; later it is an ordinary comment.
  assert.deepEqual(parseTranscript("# note\n# args: serve --memory --max-depth 8\n> {}\n").args, ["serve", "--memory"]);
  assert.deepEqual(parseTranscript("\n# args: serve --memory --max-depth 8\n> {}\n").args, ["serve", "--memory", "--max-depth", "8"]);
  assert.throws(() => parseTranscript("> {}\n< not json\n", "bad.jsonl"), /bad\.jsonl:2/);
});

const FAKE_TRANSCRIPT = [
  '> {"jsonrpc":"2.0","id":1,"method":"echo","params":{"a":1,"b":[1,2]}}',
  '< {"result":{"b":[1,2],"a":"<any>"},"id":1,"jsonrpc":"2.0"}',
  '> {"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":99}}',
  '> {"jsonrpc":"2.0","id":2,"method":"notifyMe","params":{"method":"$/progress","params":{"token":"t"}}}',
  '< {"jsonrpc":"2.0","method":"$/progress","params":{"token":"t","total":"<ignore>"}}',
  '< {"jsonrpc":"2.0","id":2,"result":{"sent":true}}',
].join("\n");

test("replayTranscript passes a matching transcript", async () => {
  const transcript = parseTranscript(FAKE_TRANSCRIPT, "fake.jsonl");
  transcript.args = [FAKE_SERVER];
  await replayTranscript(transcript, { binary: process.execPath });
});

test("replayTranscript reports file, line and path of a mismatch", async () => {
  const transcript = parseTranscript(FAKE_TRANSCRIPT.replace('"sent":true', '"sent":false'), "fake.jsonl");
  transcript.args = [FAKE_SERVER];
  await assert.rejects(replayTranscript(transcript, { binary: process.execPath }), (err: unknown) => {
    assert.ok(err instanceof GoldenMismatchError);
    assert.equal(err.line, 6);
    assert.match(err.message, /^fake\.jsonl:6: at \$\.result\.sent: values differ: expected false, got true/);
    return true;
  });
});

const transcripts = findTranscripts(GOLDEN_DIR);
if (!BIN) {
  test("golden transcripts", { skip: "MODELSTORE_BIN is not set (point it at the built server)" }, () => undefined);
} else if (transcripts.length === 0) {
  test("golden transcripts", { skip: `no transcripts under ${GOLDEN_DIR}` }, () => undefined);
} else {
  for (const file of transcripts) {
    test(`golden ${basename(dirname(file))}`, () => replayTranscript(file, { binary: BIN }));
  }
}
