/**
 * Wire types of the ModelStore protocol, as the convenience methods use them.
 * They describe what the server sends; results the protocol leaves open are
 * typed loosely (narrow with the method's `<T>`). The object methods are typed by
 * entity instead (typed.ts).
 */

import type {
  ModelAuditParams, ModelDiagramParams, ModelGenerateParams, ObjectsDeleteWhereParams, ObjectsGetParams, ObjectsInsertParams, ObjectsUpdateParams,
  ObjectsUpsertParams, QueryAggregateParams, QueryCountParams, QueryFetchParams, QueryIdsParams, StoreOpenParams,
} from "./protocol.js";

export type RequestId = number | string;

/**
 * An object on the wire: to-one relationships travel as ids (`"Category/3"`) or null;
 * to-many relationships are left out unless the request's `toMany` asks for them as
 * ids (`["Task/1"]`) or counts (`3`).
 */
export interface StoredObject {
  _id: string;
  _entity: string;
  [key: string]: unknown;
}

/** Attribute values by name, for insert/update; relationships are given as ids. */
export type Values = Record<string, unknown>;

/** How returned objects carry their to-many relationships: left out (`"none"`, the server's default), arrays of ids, or counts. */
export type ToMany = "none" | "ids" | "count";

/** Options of the methods returning objects. */
export interface ObjectOptions {
  toMany?: ToMany;
}

/** `insert`'s params besides entity and values (generated from protocol.json). */
export type InsertOptions = Omit<ObjectsInsertParams, "entity" | "values">;
/** `update`'s: `ifVersion` (optimistic locking, see protocol.md) and `toMany`. */
export type UpdateOptions = Omit<ObjectsUpdateParams, "id" | "values">;
/** `upsert`'s besides entity, values and on. */
export type UpsertOptions = Omit<ObjectsUpsertParams, "entity" | "values" | "on">;
/** `get`'s and `getMany`'s: `withVersion` adds `_version` to each object, and `toMany`. */
export type GetOptions = Omit<ObjectsGetParams, "id" | "ids" | "include">;
/** `updateWhere`'s and `deleteWhere`'s besides entity, where, values and args. */
export type WhereOptions = Omit<ObjectsDeleteWhereParams, "entity" | "where" | "args">;

export type AttributeType =
  | "string" | "int" | "int16" | "int32" | "int64" | "double" | "float"
  | "decimal" | "bool" | "date" | "uuid" | "data" | "url" | "json";

export type DeleteRule = "nullify" | "cascade" | "deny" | "noAction";

export interface AttributeDef {
  name: string;
  type: AttributeType;
  optional?: boolean;
  unique?: boolean;
  /** A literal, or a generator such as `{generate: "uuid"}` / `{generate: "now"}`. */
  default?: unknown;
  originalName?: string;
  /** Core Data's renaming identifier: same identifier (or name, without one) = same element. */
  renamingIdentifier?: string;
  transient?: boolean;
}

export interface RelationshipDef {
  name: string;
  destination: string;
  inverse?: string;
  toMany?: boolean;
  optional?: boolean;
  ordered?: boolean;
  deleteRule?: DeleteRule;
  min?: number;
  max?: number;
  originalName?: string;
  renamingIdentifier?: string;
}

export interface EntityDef {
  name: string;
  /** Super-entity name: fetching the parent also returns this entity's objects. */
  parent?: string;
  abstract?: boolean;
  attributes?: AttributeDef[];
  relationships?: RelationshipDef[];
  indexes?: string[][];
  uniqueness?: string[][];
  originalName?: string;
  renamingIdentifier?: string;
}

export interface Schema {
  version?: string;
  entities: EntityDef[];
}

export interface SortKey {
  key: string;
  ascending?: boolean;
  caseInsensitive?: boolean;
}

/** A predicate: NSPredicate-format text, or its JSON tree form. */
export type Predicate = string | Record<string, unknown>;
/** Fills `%@`/`%K`/`%d` in a predicate, in order (`$NAME` values go in `variables`). */
export type PredicateArgs = unknown[];

/** One change of an all-or-nothing `context.save`; `ref` ("$t1") names a new object for later values. */
export type Change =
  | { op: "insert"; entity: string; ref?: string; values: Values }
  | { op: "update"; id: string; values: Values }
  | { op: "delete"; id: string };

/** `store.open`'s params (generated from protocol.json). */
export type { StoreOpenParams };

/** The result of `import.coreData`. */
export interface ImportCoreDataResult {
  objects: number;
  /** Objects per entity, each equal to the source's rows. */
  counts: Record<string, number>;
  /** Links per many-to-many, `"Entity.relationship"`. */
  links: Record<string, number>;
  schemaDefined: boolean;
  skipped: Array<{ entity: string; table: string; rows: number }>;
  warnings: Array<{ message: string; [key: string]: unknown }>;
  /** The Core Data facts: `path`, `access`, `storeUUID`, `modelVersionHashes`, `entities`, ... */
  source: Record<string, unknown>;
}

/** `query.fetch`'s (and `query.observe`'s) params: `sort` items are key paths or `SortKey`s,
 * `where` is text or its JSON form (with `args` and `variables`). */
export type FetchParams = QueryFetchParams;
/** `query.ids`'s params: those of `query.fetch` without select, include, toMany and sectionBy. */
export type IdsParams = QueryIdsParams;

/** A key path, or the calendar period of a date attribute in a time zone. */
export type GroupingKey =
  | string
  | { keyPath: string; bucket?: "day" | "week" | "month" | "year"; timeZone?: string; as?: string };

export type AggregateParams = QueryAggregateParams;

export interface AggregateResult {
  groups: { key: Record<string, unknown>; values: Record<string, unknown> }[];
}

export type CountParams = QueryCountParams;

export interface InitializeResult {
  serverInfo: { name: string; version: string };
  protocolVersion: string;
  capabilities: {
    framing: string[];
    attributeTypes: AttributeType[];
    deleteRules: DeleteRule[];
    cancellation: boolean;
    batches: boolean;
    /** The server can call `migration/willMigrate` / `migration/didMigrate` hooks. */
    migrationHooks: boolean;
    /** A request's `workDoneToken` gets LSP's `$/progress` begin/report/end. */
    workDoneProgress: boolean;
    /** `initializationOptions.logMessages` gets the server's log lines as `window/logMessage`. */
    logMessages: boolean;
    /** Every method the server has, in its table's order. */
    methods: string[];
  };
  sqliteVersion: string;
}

/** `objects.upsert`'s result: the object, and whether it was inserted (else updated). */
export interface UpsertResult<T = StoredObject> {
  object: T;
  inserted: boolean;
}

export interface ObjectsResult {
  objects: StoredObject[];
}

export interface FetchResult<O = StoredObject> {
  objects: O[];
  sections?: { key: unknown; count: number; range: [number, number] }[];
}

export interface DeleteResult {
  deleted: string[];
  /** With `dryRun`: the objects that would stay with relationships changed. */
  updated?: string[];
}

export interface CountResult {
  count: number;
}

export interface BackupResult {
  path: string;
  bytes: number;
}

/** Where a Core Data model comes from (exactly one of path, xml or, for audit and generate, schema). */
export interface ModelSource {
  /** A .xcdatamodeld, .xcdatamodel or contents path, read by the server. */
  path?: string;
  /** The text of a contents file. */
  xml?: string;
  /** With `xml`: the version's name. */
  name?: string;
  schema?: Schema;
  /** With `path`: the versions' names, oldest first (else read from their names). */
  versionOrder?: string[];
}

/** A finding of a model import, at its file, line and column. */
export interface ModelIssue {
  severity: "error" | "warning";
  code: string;
  message: string;
  file: string;
  line?: number;
  column?: number;
  entity?: string;
  property?: string;
}

export interface ImportedModelVersion {
  name: string;
  file: string;
  current: boolean;
  versionIdentifier?: string;
  usedWithCloudKit: boolean;
  unsupported?: string;
  schema: Schema | null;
  warnings: ModelIssue[];
  errors: ModelIssue[];
}

export interface ImportXcdatamodelResult {
  path?: string;
  kind: "bundle" | "model";
  current: string | null;
  ok: boolean;
  schema: Schema | null;
  versions: ImportedModelVersion[];
  /** How `versions` (oldest first) were ordered: given, or read from their names. */
  order: { rule: "given" | "names"; confidence: "high" | "medium" | "low"; reason: string };
  warnings: ModelIssue[];
  errors: ModelIssue[];
}

export interface AuditFinding {
  code: string;
  message: string;
  action: string;
  entity?: string;
  property?: string;
  file?: string;
  line?: number;
}

export type AuditParams = ModelAuditParams;

export interface AuditResult {
  cloudKit: boolean;
  summary: { entities: number; supportedProperties: number; needsAttention: number; unsupported: number };
  supported: { entity: string; properties: string[] }[];
  needsAttention: AuditFinding[];
  unsupported: AuditFinding[];
  current: string | null;
  coexistence?: { compatible: boolean; differences: { code: string; message: string; entity: string; property?: string }[] } | null;
}

export type GenerateTarget = "swiftdata" | "coredata" | "typescript" | "python";

export type GenerateParams = ModelGenerateParams;

export interface GenerateResult {
  target: GenerateTarget;
  files: { name: string; text: string }[];
  skippedVersions?: { name: string; reason: string }[];
}

export type DiagramParams = ModelDiagramParams;

/** `model.diagram`: the diagram's text and what it draws (protocol.md, model.diagram). */
export interface DiagramResult {
  format: "mermaid" | "dot" | "svg";
  kind: "model" | "migration";
  /** The version drawn (`kind: "model"`). */
  version?: string;
  /** The two versions of a migration diagram. */
  from?: string;
  to?: string;
  text: string;
  /** With `measure`: the data the migration drops, as `migrationPlan` reports it. */
  dataLoss?: { entity?: string; message: string; [key: string]: unknown }[];
}

/** Results whose exact shape belongs to protocol.md; narrow with the method's `<T>`. */
export type Loose = Record<string, unknown>;

/** One change of `model.diff` / a migration stage (protocol.md, model.diff). */
export interface SchemaChange {
  kind: string;
  entity: string;
  property?: string;
  message: string;
  lightweight: boolean;
  requires?: string;
  mayLoseData: boolean;
}

export interface SchemaDiffResult {
  from: string;
  to: string;
  identical: boolean;
  lightweight: boolean;
  changes: SchemaChange[];
  ambiguous: string[];
}

/** A migration stage: `{lightweight: {from, to}}` or `{custom: {...}}` (protocol.md, Migrations). */
export type MigrationStage =
  | { lightweight: { from: string; to: string } }
  | {
      custom: {
        from: string;
        to: string;
        transforms?: Record<string, Record<string, unknown>>[];
        willMigrate?: boolean;
        didMigrate?: boolean;
      };
    };

/** A place where a migration drops data or is blocked. */
export interface MigrationPlace {
  entity: string;
  attribute?: string;
  relationship?: string;
  count?: number;
  message: string;
  ids?: string[];
}

export interface MigrationResult {
  from: string | null;
  to: string;
  backup?: string;
  stages: {
    from: string;
    to: string;
    kind: "lightweight" | "custom";
    status: "applied" | "planned" | "blocked" | "notReached";
    changes: SchemaChange[];
    steps: { action: string; rows?: number }[];
    dataLoss: MigrationPlace[];
    blockers: MigrationPlace[];
  }[];
  dataLoss: boolean;
}

/** The params of `migration/willMigrate` and `migration/didMigrate`. */
export interface MigrationHookParams {
  from: string;
  to: string;
  schema: Schema;
}

export type MigrationHook = (params: MigrationHookParams) => unknown | Promise<unknown>;

/** The reply of `query.observe`. */
export interface ObserveResult<O = StoredObject> {
  subscription: string;
  token: number;
  objects: O[];
  sections?: Record<string, unknown>[];
}

/** A `query/changed` notification's params (protocol.md, query/changed). */
export interface QueryChange<O = StoredObject> {
  subscription: string;
  token: number;
  inserted: { index: number; object: O }[];
  deleted: { index: number; id: string }[];
  updated: { index: number; object: O }[];
  moved: { from: number; to: number; object: O }[];
  sections?: Record<string, unknown>[];
  error?: string;
}

/** The reply of `history.fetch`. */
export interface HistoryResult {
  transactions: {
    token: number;
    timestamp: string;
    author: string | null;
    changes: { op: string; entity?: string; ids?: string[]; keys?: string[]; tombstone?: Record<string, unknown> }[];
  }[];
  lastToken: number;
}

/** The list after `change`: deletions and move sources by old index (highest first), then insertions and move targets by new index (lowest first), then updates. */
export function applyChange<O = StoredObject>(objects: O[], change: QueryChange<O>): O[] {
  const out = objects.slice();
  const removals = [...change.deleted.map((d) => d.index), ...change.moved.map((m) => m.from)].sort((a, b) => b - a);
  for (const i of removals) out.splice(i, 1);
  const insertions: [number, O][] = [
    ...change.inserted.map((x): [number, O] => [x.index, x.object]),
    ...change.moved.map((m): [number, O] => [m.to, m.object]),
  ].sort((a, b) => a[0] - b[0]);
  for (const [i, o] of insertions) out.splice(i, 0, o);
  for (const u of change.updated) out[u.index] = u.object;
  return out;
}

