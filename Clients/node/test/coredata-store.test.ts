// End-to-end: import.coreData and store.open {format: "coredata"} against the real server,
// on a small Core Data-layout store written with the sqlite3 command-line tool.
import test from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ModelStoreClient, ReadOnlyError, ValidationError } from "../src/index.js";

const BIN = process.env["MODELSTORE_BIN"];
const SKIP = BIN ? false : "MODELSTORE_BIN is not set (point it at the built server, e.g. .build/debug/modelstore)";

// Binary plist {NSStoreType: "SQLite"} for Z_METADATA.
const PLIST = "62706C6973743030D101025B4E5353746F7265547970655653514C697465080B17000000000000010100000000000000030000000000000000000000000000001E";

/** Runs the SQL through the sqlite3 command-line tool (a test dependency, see README). */
function writeStore(path: string, secondId: string | null): Promise<void> {
  const sql = `
    CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
    CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB);
    CREATE TABLE ZCATEGORY ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR );
    CREATE TABLE ZTASK ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZPRIORITY INTEGER, ZCATEGORY INTEGER,
      ZDUE TIMESTAMP, ZTITLE VARCHAR, ZTASKID BLOB );
    CREATE INDEX ZTASK_ZCATEGORY_INDEX ON ZTASK (ZCATEGORY);
    INSERT INTO Z_PRIMARYKEY VALUES (1, 'Category', 0, 1), (2, 'Task', 0, 2);
    INSERT INTO Z_METADATA VALUES (1, '0B5C7D2E-9A41-4C3B-8E6F-112233445566', X'${PLIST}');
    INSERT INTO ZCATEGORY VALUES (1, 1, 1, 'Home');
    INSERT INTO ZTASK VALUES (1, 2, 1, 2, 1, 0, 'Write report', X'00112233445566778899AABBCCDDEEFF'),
      (2, 2, 1, 5, 1, NULL, 'Call Bob', ${secondId === null ? "NULL" : `X'${secondId}'`});`;
  return new Promise((resolve, reject) => {
    const child = spawn("sqlite3", [path], { stdio: ["pipe", "pipe", "pipe"] });
    child.on("error", reject);
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`sqlite3 exited with ${code}`))));
    child.stdin.write(sql);
    child.stdin.end();
  });
}

test("import.coreData copies a Core Data store; a bad row imports nothing", { skip: SKIP }, async () => {
  const dir = mkdtempSync(join(tmpdir(), "modelstore-coredata-"));
  const client = ModelStoreClient.spawn({ binary: BIN, timeoutMs: 15_000 });
  try {
    await writeStore(join(dir, "Bad.sqlite"), "00112233");
    await assert.rejects(client.importCoreData({ store: join(dir, "Bad.sqlite") }), (e: unknown) => {
      assert.ok(e instanceof ValidationError);
      assert.equal((e.data as Record<string, unknown>)["zpk"], 2);
      assert.equal((e.data as Record<string, unknown>)["column"], "ZTASKID");
      return true;
    });
    await writeStore(join(dir, "Tasks.sqlite"), null);
    const result = await client.importCoreData({ store: join(dir, "Tasks.sqlite") });
    assert.deepEqual(result.counts, { Category: 1, Task: 2 });
    assert.equal(result.schemaDefined, true);
    const task = await client.get("Task/1");
    assert.equal(task["due"], "2001-01-01T00:00:00.000Z");
    assert.equal(task["taskid"], "00112233-4455-6677-8899-AABBCCDDEEFF");
    assert.equal(task["category"], "Category/1");
  } finally {
    await client.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("store.open {format: coredata} browses a store in place, read-only", { skip: SKIP }, async () => {
  const dir = mkdtempSync(join(tmpdir(), "modelstore-coredata-"));
  const client = ModelStoreClient.spawn({ binary: BIN, timeoutMs: 15_000 });
  try {
    const path = join(dir, "Tasks.sqlite");
    await writeStore(path, null);
    const before = readFileSync(path, "utf8");
    const info = await client.storeOpen<{ format: string; counts: Record<string, number> }>({ path, readOnly: true, format: "coredata" });
    assert.equal(info.format, "coredata");
    assert.deepEqual(info.counts, { Category: 1, Task: 2 });
    const fetched = await client.fetch({ entity: "Task", where: "priority > 1", sort: [{ key: "priority", ascending: false }] });
    assert.deepEqual(fetched.objects.map((o) => o._id), ["Task/2", "Task/1"]);
    await assert.rejects(client.insert("Category", { name: "Work" }), ReadOnlyError);
    assert.equal(readFileSync(path, "utf8"), before);
    assert.deepEqual(readdirSync(dir, { withFileTypes: true }).map((d) => d.name), ["Tasks.sqlite"]);
  } finally {
    await client.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
