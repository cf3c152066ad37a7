/**
 * Writes `src/protocol.ts`, the params type of every protocol method, from the server's
 * own description (`protocol.json` at the repository root, the output of
 * `modelstore protocol --json`). After a params change on the server:
 *
 *     tsc -p . && node dist/src/protocol-gen.js
 *
 * `test/protocol.test.ts` fails while `src/protocol.ts` is not this generator's output.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export interface JSONSchema {
  type?: string;
  enum?: string[];
  const?: string;
  oneOf?: JSONSchema[];
  items?: JSONSchema;
  properties?: Record<string, JSONSchema>;
  required?: string[];
  additionalProperties?: boolean | JSONSchema;
  $ref?: string;
}

export interface MethodDescription {
  name: string;
  params: { name: string; required: boolean; schema: JSONSchema }[];
}

export interface ProtocolDescription {
  methods: MethodDescription[];
}

/** Named schemas of the description and the types.ts type each stands for. */
const REFS: Record<string, string> = { Schema: "Schema", Object: "StoredObject" };

/** `objects.insert` -> `ObjectsInsertParams`. */
export function paramsTypeName(method: string): string {
  return method.split(".").map((part) => part[0]!.toUpperCase() + part.slice(1)).join("") + "Params";
}

export function typeOf(schema: JSONSchema): string {
  if (schema.$ref !== undefined) return REFS[schema.$ref.split("/").pop()!] ?? "Record<string, unknown>";
  if (schema.oneOf !== undefined) return schema.oneOf.map(typeOf).join(" | ");
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.enum !== undefined) return schema.enum.map((word) => JSON.stringify(word)).join(" | ");
  switch (schema.type) {
    case "string": return "string";
    case "integer": case "number": return "number";
    case "boolean": return "boolean";
    case "null": return "null";
    case "array": return `Array<${typeOf(schema.items ?? {})}>`;
    case "object": {
      if (schema.properties === undefined) return "Record<string, unknown>";
      const required = new Set(schema.required ?? []);
      const members = Object.entries(schema.properties).map(([key, value]) => `${key}${required.has(key) ? "" : "?"}: ${typeOf(value)}`);
      return `{ ${members.join("; ")} }`;
    }
    default: return "unknown";
  }
}

export function generate(description: ProtocolDescription): string {
  const lines = [
    "// Generated from protocol.json by src/protocol-gen.ts; do not edit (see that file).",
    'import type { Schema } from "./types.js";',
    "",
  ];
  for (const method of description.methods) {
    lines.push(`/** The params of \`${method.name}\`. */`);
    if (method.params.length === 0) {
      lines.push(`export type ${paramsTypeName(method.name)} = Record<string, never>;`, "");
      continue;
    }
    lines.push(`export interface ${paramsTypeName(method.name)} {`);
    for (const p of method.params) lines.push(`  ${p.name}${p.required ? "" : "?"}: ${typeOf(p.schema)};`);
    lines.push("}", "");
  }
  lines.push("/** Every method's params by wire name. */", "export interface MethodParams {");
  for (const method of description.methods) lines.push(`  ${JSON.stringify(method.name)}: ${paramsTypeName(method.name)};`);
  lines.push("}", "");
  return lines.join("\n");
}

const HERE = dirname(fileURLToPath(import.meta.url)); // dist/src
export const DESCRIPTION_PATH = resolve(HERE, "../../../../protocol.json");
export const OUTPUT_PATH = resolve(HERE, "../../src/protocol.ts");

export function readDescription(): ProtocolDescription {
  return JSON.parse(readFileSync(DESCRIPTION_PATH, "utf8")) as ProtocolDescription;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  writeFileSync(OUTPUT_PATH, generate(readDescription()));
}
