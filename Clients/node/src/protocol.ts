// Generated from protocol.json by src/protocol-gen.ts; do not edit (see that file).
import type { Schema } from "./types.js";

/** The params of `initialize`. */
export interface InitializeParams {
  clientInfo?: unknown;
  capabilities?: Record<string, unknown>;
  author?: string;
  initializationOptions?: { logMessages?: "error" | "warning" | "info" | "debug" };
}

/** The params of `shutdown`. */
export type ShutdownParams = Record<string, never>;

/** The params of `exit`. */
export type ExitParams = Record<string, never>;

/** The params of `store.open`. */
export interface StoreOpenParams {
  memory?: boolean;
  path?: string;
  readOnly?: boolean;
  create?: boolean;
  historyRetention?: string;
  format?: "modelstore" | "coredata";
  model?: string;
  modelVersion?: string;
  versionOrder?: Array<string>;
}

/** The params of `store.info`. */
export type StoreInfoParams = Record<string, never>;

/** The params of `store.backup`. */
export interface StoreBackupParams {
  to: string;
}

/** The params of `store.check`. */
export type StoreCheckParams = Record<string, never>;

/** The params of `model.define`. */
export interface ModelDefineParams {
  schema: Schema;
}

/** The params of `model.get`. */
export type ModelGetParams = Record<string, never>;

/** The params of `model.diff`. */
export interface ModelDiffParams {
  from?: Schema;
  to: Schema;
}

/** The params of `model.validate`. */
export interface ModelValidateParams {
  schema: Schema;
}

/** The params of `model.importXcdatamodel`. */
export interface ModelImportXcdatamodelParams {
  name?: string;
  versionOrder?: Array<string>;
  path?: string;
  xml?: string;
}

/** The params of `model.audit`. */
export interface ModelAuditParams {
  name?: string;
  versionOrder?: Array<string>;
  path?: string;
  xml?: string;
  schema?: Schema;
  cloudKit?: boolean;
  compareWith?: string | Schema;
}

/** The params of `model.generate`. */
export interface ModelGenerateParams {
  target: "swiftdata" | "coredata" | "typescript" | "python";
  baseName?: string;
  name?: string;
  versionOrder?: Array<string>;
  path?: string;
  xml?: string;
  schema?: Schema;
}

/** The params of `model.diagram`. */
export interface ModelDiagramParams {
  format?: "mermaid" | "dot" | "svg";
  name?: string;
  versionOrder?: Array<string>;
  path?: string;
  xml?: string;
  schema?: Schema;
  version?: string;
  from?: string | Schema;
  to?: string | Schema;
  measure?: boolean;
}

/** The params of `objects.insert`. */
export interface ObjectsInsertParams {
  entity: string;
  values?: Record<string, unknown>;
  toMany?: "none" | "ids" | "count";
}

/** The params of `objects.update`. */
export interface ObjectsUpdateParams {
  id: string;
  values?: Record<string, unknown>;
  ifVersion?: number;
  toMany?: "none" | "ids" | "count";
}

/** The params of `objects.upsert`. */
export interface ObjectsUpsertParams {
  entity: string;
  values?: Record<string, unknown>;
  on?: Array<string>;
  toMany?: "none" | "ids" | "count";
}

/** The params of `objects.delete`. */
export interface ObjectsDeleteParams {
  id: string;
  dryRun?: boolean;
}

/** The params of `objects.get`. */
export interface ObjectsGetParams {
  include?: Array<string>;
  withVersion?: boolean;
  toMany?: "none" | "ids" | "count";
  ids?: Array<string>;
  id?: string;
}

/** The params of `objects.updateWhere`. */
export interface ObjectsUpdateWhereParams {
  entity: string;
  where?: string | Record<string, unknown>;
  args?: Array<unknown>;
  variables?: Record<string, unknown>;
  includeSubentities?: boolean;
  values: Record<string, unknown>;
}

/** The params of `objects.deleteWhere`. */
export interface ObjectsDeleteWhereParams {
  entity: string;
  where?: string | Record<string, unknown>;
  args?: Array<unknown>;
  variables?: Record<string, unknown>;
  includeSubentities?: boolean;
}

/** The params of `context.save`. */
export interface ContextSaveParams {
  changes: Array<{ op: "insert"; entity: string; ref?: string; values?: Record<string, unknown> } | { op: "update"; id: string; values?: Record<string, unknown> } | { op: "delete"; id: string }>;
  author?: string;
}

/** The params of `transaction.begin`. */
export type TransactionBeginParams = Record<string, never>;

/** The params of `transaction.commit`. */
export type TransactionCommitParams = Record<string, never>;

/** The params of `transaction.rollback`. */
export type TransactionRollbackParams = Record<string, never>;

/** The params of `query.fetch`. */
export interface QueryFetchParams {
  entity: string;
  where?: string | Record<string, unknown>;
  args?: Array<unknown>;
  variables?: Record<string, unknown>;
  sort?: Array<string | { key: string; ascending?: boolean; caseInsensitive?: boolean }>;
  limit?: number;
  offset?: number;
  select?: Array<string>;
  include?: Array<string>;
  includeSubentities?: boolean;
  toMany?: "none" | "ids" | "count";
  sectionBy?: string | { keyPath: string; bucket?: "day" | "week" | "month" | "year"; timeZone?: string };
}

/** The params of `query.observe`. */
export interface QueryObserveParams {
  entity: string;
  where?: string | Record<string, unknown>;
  args?: Array<unknown>;
  variables?: Record<string, unknown>;
  sort?: Array<string | { key: string; ascending?: boolean; caseInsensitive?: boolean }>;
  limit?: number;
  offset?: number;
  select?: Array<string>;
  include?: Array<string>;
  includeSubentities?: boolean;
  toMany?: "none" | "ids" | "count";
  sectionBy?: string | { keyPath: string; bucket?: "day" | "week" | "month" | "year"; timeZone?: string };
}

/** The params of `query.unobserve`. */
export interface QueryUnobserveParams {
  subscription: string;
}

/** The params of `query.count`. */
export interface QueryCountParams {
  entity: string;
  where?: string | Record<string, unknown>;
  args?: Array<unknown>;
  variables?: Record<string, unknown>;
  includeSubentities?: boolean;
}

/** The params of `query.ids`. */
export interface QueryIdsParams {
  entity: string;
  where?: string | Record<string, unknown>;
  args?: Array<unknown>;
  variables?: Record<string, unknown>;
  sort?: Array<string | { key: string; ascending?: boolean; caseInsensitive?: boolean }>;
  limit?: number;
  offset?: number;
  includeSubentities?: boolean;
}

/** The params of `query.parse`. */
export interface QueryParseParams {
  where: string | Record<string, unknown>;
  template?: boolean;
  args?: Array<unknown>;
  variables?: Record<string, unknown>;
}

/** The params of `query.aggregate`. */
export interface QueryAggregateParams {
  entity: string;
  where?: string | Record<string, unknown>;
  args?: Array<unknown>;
  variables?: Record<string, unknown>;
  groupBy?: Array<string | { keyPath: string; as?: string; bucket?: "day" | "week" | "month" | "year"; timeZone?: string }>;
  aggregates: Array<{ fn: "count" | "sum" | "avg" | "min" | "max"; key?: string; distinct?: boolean; as: string }>;
  having?: string;
  sort?: Array<string | { key: string; ascending?: boolean }>;
  limit?: number;
  offset?: number;
  includeSubentities?: boolean;
}

/** The params of `migration.status`. */
export interface MigrationStatusParams {
  schema?: Schema;
}

/** The params of `migration.plan`. */
export interface MigrationPlanParams {
  schemas: Array<Schema>;
  stages?: Array<Record<string, unknown>>;
  allowDataLoss?: boolean;
}

/** The params of `migration.apply`. */
export interface MigrationApplyParams {
  progressToken?: string | number;
  schemas: Array<Schema>;
  stages?: Array<Record<string, unknown>>;
  allowDataLoss?: boolean;
  backup?: boolean;
}

/** The params of `history.fetch`. */
export interface HistoryFetchParams {
  after?: number;
  limit?: number;
  entities?: Array<string>;
  author?: string;
}

/** The params of `history.delete`. */
export interface HistoryDeleteParams {
  before: number;
}

/** The params of `export.json`. */
export interface ExportJsonParams {
  entities?: Array<string>;
  format?: "ndjson" | "json";
  withRelated?: boolean;
  where?: string | Record<string, unknown>;
  args?: Array<unknown>;
  variables?: Record<string, unknown>;
  progressToken?: string | number;
  path?: string;
}

/** The params of `import.json`. */
export interface ImportJsonParams {
  path?: string;
  data?: string;
  mode?: "insert" | "upsert" | "replace";
  progressToken?: string | number;
}

/** The params of `import.coreData`. */
export interface ImportCoreDataParams {
  store: string;
  progressToken?: string | number;
  model?: string;
  modelVersion?: string;
  versionOrder?: Array<string>;
}

/** Every method's params by wire name. */
export interface MethodParams {
  "initialize": InitializeParams;
  "shutdown": ShutdownParams;
  "exit": ExitParams;
  "store.open": StoreOpenParams;
  "store.info": StoreInfoParams;
  "store.backup": StoreBackupParams;
  "store.check": StoreCheckParams;
  "model.define": ModelDefineParams;
  "model.get": ModelGetParams;
  "model.diff": ModelDiffParams;
  "model.validate": ModelValidateParams;
  "model.importXcdatamodel": ModelImportXcdatamodelParams;
  "model.audit": ModelAuditParams;
  "model.generate": ModelGenerateParams;
  "model.diagram": ModelDiagramParams;
  "objects.insert": ObjectsInsertParams;
  "objects.update": ObjectsUpdateParams;
  "objects.upsert": ObjectsUpsertParams;
  "objects.delete": ObjectsDeleteParams;
  "objects.get": ObjectsGetParams;
  "objects.updateWhere": ObjectsUpdateWhereParams;
  "objects.deleteWhere": ObjectsDeleteWhereParams;
  "context.save": ContextSaveParams;
  "transaction.begin": TransactionBeginParams;
  "transaction.commit": TransactionCommitParams;
  "transaction.rollback": TransactionRollbackParams;
  "query.fetch": QueryFetchParams;
  "query.observe": QueryObserveParams;
  "query.unobserve": QueryUnobserveParams;
  "query.count": QueryCountParams;
  "query.ids": QueryIdsParams;
  "query.parse": QueryParseParams;
  "query.aggregate": QueryAggregateParams;
  "migration.status": MigrationStatusParams;
  "migration.plan": MigrationPlanParams;
  "migration.apply": MigrationApplyParams;
  "history.fetch": HistoryFetchParams;
  "history.delete": HistoryDeleteParams;
  "export.json": ExportJsonParams;
  "import.json": ImportJsonParams;
  "import.coreData": ImportCoreDataParams;
}
