// Typed by entity: the models.ts that `model.generate typescript` writes for
// test/fixtures/tasks.schema.json, with the client, under `tsc --strict`. Every documented
// form compiles and runs against the server (its values are what the types say); a
// misspelled attribute, a wrong value type, ... each fail with tsc's error. README.md's
// typed example is compiled and run the same way.
import test from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { ModelStoreClient } from "../src/index.js";
import type { Schema } from "../src/index.js";
import { PACKAGE, readmeBlock, runProcess } from "./helpers.js";

const BIN = process.env["MODELSTORE_BIN"];
const SKIP = BIN ? false : "MODELSTORE_BIN is not set (point it at the built server, e.g. .build/debug/modelstore)";
const SCHEMA_FILE = join(PACKAGE, "test/fixtures/tasks.schema.json");

/** Every documented form; run too, so the checks below hold at run time as the types say. */
const GOOD = `
import { readFileSync } from "node:fs";
import { ModelStoreClient } from "CLIENT";
import { model } from "./models.js";
import type { Category } from "./models.js";

function check(ok: boolean, what: string): void { if (!ok) throw new Error("failed: " + what); }

const db = ModelStoreClient.spawn({ model });
try {
  await db.modelDefine(JSON.parse(readFileSync("tasks.schema.json", "utf8")));
  const home = await db.insert("Category", { name: "Home" });
  const homeCategory: Category = home;
  const task = await db.insert("Task", {
    title: "b", due: new Date("2026-03-01T08:30:00Z"), photo: new Uint8Array([1, 2]), views: 9007199254740993n, category: home._id,
  });
  const due: Date | null = task.due;
  const views: bigint = task.views;
  const rank: number | bigint = task.rank;
  const entity: "Task" = task._entity;
  check(due instanceof Date && due.getTime() === Date.UTC(2026, 2, 1, 8, 30), "due is a Date");
  check(views === 9007199254740993n && rank === 0 && entity === "Task" && homeCategory.name === "Home", "values");
  check(task.photo instanceof Uint8Array && task.photo.length === 2, "photo is a Uint8Array");
  await db.insert("Task", { title: "a", views: 1, rank: 2n ** 60n });

  const byTitle = await db.fetch({ entity: "Task", sort: ["title"] });
  const titles: string[] = byTitle.objects.map((t) => t.title);
  check(titles.join() === "a,b", "sort: [title]");
  check(byTitle.objects[0]!.rank === 2n ** 60n && byTitle.objects[0]!.views === 1n, "int beyond 2^53 and int64 as bigint");
  const mixed = await db.fetch({ entity: "Task", where: "done == NO", sort: [{ key: "due", ascending: false }, "category.name"] });
  check(mixed.objects.length === 2, "sort items of both kinds");
  const picked = await db.fetch({ entity: "Task", select: ["title", "category"], sort: ["title"], limit: 1 });
  const pickedTitle: string = picked.objects[0]!.title;
  const pickedCategory: string | null = picked.objects[0]!.category;
  check(pickedTitle === "a" && pickedCategory === null && !("due" in picked.objects[0]!), "select");
  const counted = await db.fetch({ entity: "Category", toMany: "count" });
  const count: number = counted.objects[0]!.tasks;
  check(count === 1, "toMany: count");
  const parents = await db.fetch({ entity: "Item" });
  check(parents.objects.every((item) => item._entity === "Task"), "a parent entity's objects");
  const included = await db.fetch({ entity: "Task", include: ["category"], where: "title == 'b'" });
  check((included.objects[0]!.category as Category).name === "Home", "include");

  const withIds = await db.get<"Category", "ids">(home._id, [], { toMany: "ids" });
  const ids: string[] = withIds.tasks;
  check(ids.length === 1 && ids[0] === task._id, "get with toMany: ids");
  const anyObject = await db.get(task._id);
  if (anyObject._entity === "Task") check(anyObject.title === "b", "narrowed by _entity");
  else throw new Error("expected a Task");
  const versioned = await db.get<"Task", "none", true>(task._id, [], { withVersion: true });
  const version: number = versioned._version;
  check(version >= 1, "withVersion");
  const many = await db.getMany<"Task">([task._id]);
  check(many.objects[0]!.due instanceof Date, "getMany converts");

  const updated = await db.update<"Task">(task._id, { done: true, due: null }, { ifVersion: version });
  const done: boolean = updated.done;
  check(done && updated.due === null, "update");
  const { object, inserted } = await db.upsert("Category", { name: "Home" }, "name");
  const name: string = object.name;
  check(!inserted && object._id === home._id && name === "Home", "upsert's {object, inserted}");
  const saved = await db.save([
    { op: "insert", entity: "Task", ref: "$t", values: { title: "c", category: home._id } },
    { op: "update", id: task._id, values: { rank: 3 } },
  ]);
  check(typeof saved === "object", "save");
  const { count: tasks } = await db.count({ entity: "Task" });
  check(tasks === 3, "count");
  const { ids: sortedIds } = await db.ids({ entity: "Task", sort: ["title"] });
  check(sortedIds.length === 3, "ids");

  const live = await db.observe({ entity: "Task", sort: ["title"], where: "title BEGINSWITH 'z'" });
  const other = ModelStoreClient.spawn({ model });
  await db.insert("Task", { title: "zz", due: new Date(0) });
  for await (const change of live) {
    const first = change.inserted[0]?.object;
    check(first !== undefined && first.title === "zz" && first.due instanceof Date, "a change's objects are converted");
    break;
  }
  const liveTitle: string | undefined = live.objects[0]?.title;
  check(liveTitle === "zz", "live objects");
  await live.close();
  await other.close();
  console.log("all forms ran");
} finally {
  await db.close();
}
`;

/** Each must fail to compile, with tsc's error matching the pattern. */
const BAD: [string, string, RegExp][] = [
  ["misspelled attribute", `await db.insert("Task", { titel: "x" });`, /'titel' does not exist in type 'TaskValues'/],
  ["wrong value type", `await db.insert("Task", { title: 5 });`, /Type 'number' is not assignable to type 'string'/],
  ["date as text", `await db.insert("Task", { title: "x", due: "2026-03-01" });`, /Type 'string' is not assignable to type 'Date'/],
  ["misspelled entity", `await db.insert("Tsk", { title: "x" });`, /'"Tsk"' is not assignable to parameter of type 'ConcreteName<Entities>'/],
  ["abstract entity", `await db.insert("Item", { created: null });`, /'"Item"' is not assignable/],
  ["misspelled sort key", `await db.fetch({ entity: "Task", sort: ["titel"] });`, /'"titel"' is not assignable to type 'SortItem<Entities, "Task">'/],
  ["misspelled select key", `await db.fetch({ entity: "Task", select: ["titel"] });`, /'"titel"' is not assignable to type/],
  ["key left out by select", `(await db.fetch({ entity: "Task", select: ["title"] })).objects[0]!.due;`, /Property 'due' does not exist/],
  ["to-many without toMany", `(await db.get<"Category">("Category/1")).tasks;`, /Property 'tasks' does not exist/],
  ["update with a wrong type", `await db.update<"Task">("Task/1", { done: "yes" });`, /Type 'string' is not assignable to type 'boolean/],
  ["upsert on a misspelled key", `await db.upsert("Category", { name: "x" }, "nmae");`, /'"nmae"' is not assignable/],
  ["wrong result type", `const n: number = (await db.insert("Task", { title: "x" })).views;`, /Type 'bigint' is not assignable to type 'number'/],
];

test("generated types and the client: every form compiles and runs, mistakes fail tsc --strict", { skip: SKIP, timeout: 180_000 }, async () => {
  const schemaText = readFileSync(SCHEMA_FILE, "utf8");
  const client = ModelStoreClient.spawn({ binary: BIN });
  const generated = await client.modelGenerate({ target: "typescript", schema: JSON.parse(schemaText) as Schema });
  await client.close();
  const dir = mkdtempSync(join(PACKAGE, "dist/typed-"));
  try {
    const clientPath = relative(dir, join(PACKAGE, "dist/src/index.js"));
    const header = `import { ModelStoreClient } from "${clientPath}";\nimport { model } from "./models.js";\nconst db = ModelStoreClient.spawn({ model });\n`;
    writeFileSync(join(dir, "package.json"), '{ "type": "module" }\n');
    writeFileSync(join(dir, "tasks.schema.json"), schemaText);
    writeFileSync(join(dir, "models.ts"), generated.files[0]!.text);
    writeFileSync(join(dir, "good.ts"), GOOD.replace("CLIENT", clientPath));
    writeFileSync(join(dir, "readme.ts"), readmeBlock("typed-example", "ts").replace(`"modelstore-client"`, `"${clientPath}"`));
    BAD.forEach(([, line], i) => writeFileSync(join(dir, `bad${i}.ts`), `${header}${line}\nexport {};\n`));
    writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({
      compilerOptions: {
        strict: true, target: "ES2022", lib: ["ES2022"], module: "node16", moduleResolution: "node16", types: [], skipLibCheck: false,
      },
      files: [join(PACKAGE, "src/node.d.ts"), "models.ts", "good.ts", "readme.ts", ...BAD.map((_, i) => `bad${i}.ts`)],
    }));
    const tsc = await runProcess(process.env["TSC"] ?? "tsc", ["-p", "."], { cwd: dir });
    const errors = tsc.out.split("\n").filter((line) => /error TS\d+/.test(line));
    const byFile = (file: string): string => errors.filter((line) => line.startsWith(file + "(")).join("\n");
    assert.equal(byFile("good.ts") + byFile("readme.ts") + byFile("models.ts"), "", "documented forms compile");
    if (process.env["SHOW_TSC"]) console.log(tsc.out);
    BAD.forEach(([what, , pattern], i) => {
      const found = tsc.out.split(/\n(?=\S)/).filter((message) => message.startsWith(`bad${i}.ts(`)).join("\n");
      assert.match(found, pattern, `${what} must fail: ${BAD[i]![1]}`);
      assert.ok(found.startsWith(`bad${i}.ts(4,`) && !found.includes(`bad${i}.ts(1,`), `only the line under test fails: ${found}`);
    });
    const env = { MODELSTORE_BIN: resolve(BIN!) };
    const good = await runProcess(process.execPath, ["good.js"], { cwd: dir, env });
    assert.equal(good.code, 0, good.err);
    assert.equal(good.out, "all forms ran\n");
    const example = await runProcess(process.execPath, ["readme.js"], { cwd: dir, env });
    assert.equal(example.code, 0, example.err);
    assert.equal(example.out, readmeOutput(readmeBlock("typed-example", "ts")));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** The output an example documents: each `// → text` comment of a `console.log` line, in order. */
function readmeOutput(block: string): string {
  return block.split("\n").flatMap((line) => {
    const shown = /console\.log\(.*\/\/ → (.*)$/.exec(line);
    return shown ? [shown[1]! + "\n"] : [];
  }).join("");
}
