// End-to-end: the Core Data model methods against the real server and the fixture models
// in Tests/Fixtures/CoreDataModels.
import test from "node:test";
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { InvalidParamsError, ModelStoreClient } from "../src/index.js";

const BIN = process.env["MODELSTORE_BIN"];
const SKIP = BIN ? false : "MODELSTORE_BIN is not set (point it at the built server, e.g. .build/debug/modelstore)";
// dist/test/ -> Clients/node -> repository root
const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "..", "Tests", "Fixtures", "CoreDataModels");

test("model.importXcdatamodel reads every version of a bundle", { skip: SKIP }, async () => {
  const client = ModelStoreClient.spawn({ binary: BIN, timeoutMs: 15_000 });
  try {
    const result = await client.modelImportXcdatamodel({ path: join(FIXTURES, "Tasks.xcdatamodeld") });
    assert.equal(result.kind, "bundle");
    assert.equal(result.current, "Tasks 3");
    assert.equal(result.ok, true);
    assert.deepEqual(result.versions.map((v) => v.name), ["Tasks", "Tasks 2", "Tasks 3"]);
    assert.ok(result.schema);
    const defined = await client.modelDefine(result.schema);
    assert.equal(defined["changed"], true);
    const broken = await client.modelImportXcdatamodel({ xml: "<model>\n  <entity name=\"note\"/>\n</model>" });
    assert.equal(broken.ok, false);
    assert.deepEqual(broken.versions[0]?.errors.map((e) => [e.code, e.line, e.column]), [["invalidName", 2, 3]]);
  } finally {
    await client.close();
  }
});

test("model.audit and model.generate", { skip: SKIP }, async () => {
  const client = ModelStoreClient.spawn({ binary: BIN, timeoutMs: 15_000 });
  try {
    const audit = await client.modelAudit({ path: join(FIXTURES, "Features.xcdatamodel") });
    assert.equal(audit.cloudKit, true);
    assert.ok(audit.unsupported.some((f) => f.code === "derivedAttribute" && f.property === "titleUpper"));
    assert.ok(audit.needsAttention.some((f) => f.code === "orderedRelationship" && f.property === "pagesList"));
    const generated = await client.modelGenerate({ target: "typescript", path: join(FIXTURES, "Features.xcdatamodel") });
    assert.deepEqual(generated.files.map((f) => f.name), ["models.ts"]);
    assert.match(generated.files[0]?.text ?? "", /export interface Document extends Item \{/);
    const versioned = await client.modelGenerate({ target: "swiftdata", path: join(FIXTURES, "Tasks.xcdatamodeld") });
    assert.deepEqual(versioned.files.map((f) => f.name), [
      "TasksSchemaV1.swift", "TasksSchemaV2.swift", "TasksSchemaV3.swift", "TasksMigrationPlan.swift",
    ]);
    await assert.rejects(client.modelGenerate({ target: "kotlin" as "swiftdata", schema: { entities: [] } }), InvalidParamsError);
  } finally {
    await client.close();
  }
});
