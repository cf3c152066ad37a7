/**
 * Wire types of the ModelStore protocol, as the convenience methods use them.
 * They describe what the server sends; results the protocol leaves open are
 * typed loosely and every convenience method lets callers narrow with `<T>`.
 */

export type RequestId = number | string;

/** An object on the wire: relationships travel as ids (`"Category/3"`, `["Task/1"]`) or null. */
export interface StoredObject {
  _id: string;
  _entity: string;
  [key: string]: unknown;
}

/** Attribute values by name, for insert/update; relationships are given as ids. */
export type Values = Record<string, unknown>;

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
}

export interface Schema {
  version?: string;
  entities: EntityDef[];
}

export interface SortKey {
  key: string;
  ascending?: boolean;
}

/** A predicate: NSPredicate-format text, or its JSON tree form. */
export type Predicate = string | Record<string, unknown>;
/** Fills `%@`/`%K` (array) or `$var` (object) in a predicate. */
export type PredicateArgs = unknown[] | Record<string, unknown>;

/** One change of an all-or-nothing `context.save`; `ref` ("$t1") names a new object for later values. */
export type Change =
  | { op: "insert"; entity: string; ref?: string; values: Values }
  | { op: "update"; id: string; values: Values }
  | { op: "delete"; id: string };

export interface StoreOpenParams {
  path?: string;
  memory?: boolean;
  readOnly?: boolean;
  create?: boolean;
}

export interface FetchParams {
  entity: string;
  where?: Predicate;
  args?: PredicateArgs;
  sort?: SortKey[];
  limit?: number;
  offset?: number;
  include?: string[];
  select?: string[];
  sectionBy?: GroupingKey;
  includeSubentities?: boolean;
}

/** A key path, or the calendar period of a date attribute in a time zone. */
export type GroupingKey =
  | string
  | { keyPath: string; bucket?: "day" | "week" | "month" | "year"; timeZone?: string; as?: string };

export interface AggregateParams {
  entity: string;
  where?: Predicate;
  args?: PredicateArgs;
  variables?: Record<string, unknown>;
  groupBy?: GroupingKey[];
  aggregates: { fn: "count" | "sum" | "avg" | "min" | "max"; key?: string; distinct?: boolean; as: string }[];
  having?: string;
  sort?: (string | SortKey)[];
  limit?: number;
  offset?: number;
  includeSubentities?: boolean;
}

export interface AggregateResult {
  groups: { key: Record<string, unknown>; values: Record<string, unknown> }[];
}

export interface CountParams {
  entity: string;
  where?: Predicate;
  args?: PredicateArgs;
}

export interface InitializeResult {
  serverInfo: { name: string; version: string };
  protocolVersion: string;
  capabilities: Record<string, unknown>;
}

export interface ObjectsResult {
  objects: StoredObject[];
}

export interface FetchResult extends ObjectsResult {
  sections?: { key: unknown; count: number; range: [number, number] }[];
}

export interface DeleteResult {
  deleted: string[];
}

export interface CountResult {
  count: number;
}

export interface BackupResult {
  path: string;
  bytes: number;
}

/** Results whose exact shape belongs to protocol.md; narrow with the method's `<T>`. */
export type Loose = Record<string, unknown>;
