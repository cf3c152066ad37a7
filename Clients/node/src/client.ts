/**
 * ModelStoreClient: spawns `modelstore serve` and offers one typed method per
 * protocol method (camelCase of the wire name), so scripts read like the
 * protocol and results keep the wire shape (`{objects}`, `{count}`, ...).
 */
import { isAbsolute, resolve } from "node:path";
import { RpcConnection } from "./connection.js";
import type { CallOptions, ConnectionOptions, RequestHandler } from "./connection.js";
import { ChangeRouter, LiveQuery } from "./live.js";
import type { LiveChangeListener } from "./live.js";
import type {
  AggregateParams, AggregateResult, BackupResult, Change, CountParams, CountResult, DeleteResult, FetchParams, FetchResult,
  GetOptions, IdsParams, InitializeResult, InsertOptions, Loose, ObjectsResult, Predicate, PredicateArgs, Schema, StoredObject,
  StoreOpenParams, UpdateOptions, UpsertOptions, UpsertResult, Values, WhereOptions,
} from "./types.js";
import type {
  ExportJsonParams, HistoryFetchParams, ImportCoreDataParams, ImportJsonParams, MigrationApplyParams, MigrationPlanParams,
  QueryParseParams,
} from "./protocol.js";
import type { AuditParams, AuditResult, GenerateParams, GenerateResult, ImportXcdatamodelResult, ModelSource } from "./types.js";
import type { ImportCoreDataResult } from "./types.js";
import type { MigrationHook, MigrationResult, MigrationStage, SchemaChange, SchemaDiffResult } from "./types.js";
import type { HistoryResult, ObserveResult, QueryChange } from "./types.js";

export const CLIENT_NAME = "modelstore-client-node";
export const CLIENT_VERSION = "0.1.0";

export interface SpawnOptions {
  /** Server executable; else $MODELSTORE_BIN; else `modelstore` on PATH. */
  binary?: string;
  /** Full server arguments; default `serve --memory`. Exclusive with `store`. */
  args?: string[];
  /** Store file path: runs `serve --store PATH`. */
  store?: string;
  /** Default per-request timeout in ms (30 000); 0 disables it. */
  timeoutMs?: number;
  /** Extra environment variables for the server. */
  env?: Record<string, string>;
  /** Working directory of the server. */
  cwd?: string;
}

/** The command line `spawn` would run; exported so the choice is testable without a binary. */
export function resolveCommand(
  options: SpawnOptions = {},
  env: Record<string, string | undefined> = process.env,
): { binary: string; args: string[] } {
  if (options.args !== undefined && options.store !== undefined) {
    throw new TypeError("pass either `args` or `store`, not both");
  }
  const binary = absoluteIfPath(options.binary ?? (env["MODELSTORE_BIN"] || "modelstore"));
  const args = options.args ?? (options.store !== undefined ? ["serve", "--store", options.store] : ["serve", "--memory"]);
  return { binary, args: [...args] };
}

/**
 * `./x` or `dir/x` made absolute, so a `cwd` option (or the golden replayer's temp
 * directory) does not change which binary runs; bare names still use PATH.
 */
export function absoluteIfPath(binary: string): string {
  return binary.includes("/") && !isAbsolute(binary) ? resolve(binary) : binary;
}

export class ModelStoreClient extends RpcConnection {
  private readonly changes = new ChangeRouter();

  constructor(command: string, args: readonly string[], options: ConnectionOptions = {}) {
    super(command, args, options);
    this.onNotification("query/changed", (params) => this.changes.deliver(params));
  }

  /** Starts a server process; requests may be sent at once (they queue on its stdin). */
  static spawn(options: SpawnOptions = {}): ModelStoreClient {
    const { binary, args } = resolveCommand(options);
    return new ModelStoreClient(binary, args, { env: options.env, cwd: options.cwd, timeoutMs: options.timeoutMs });
  }

  // Lifecycle and store

  /** Optional handshake; announce capabilities such as server-to-client migration requests. */
  /** `author` is recorded in the history for this session's commits. */
  initialize<T = InitializeResult>(
    clientInfo: { name: string; version?: string } = { name: CLIENT_NAME, version: CLIENT_VERSION },
    capabilities?: Record<string, unknown>,
    author?: string,
  ): Promise<T> {
    return this.call<T>("initialize", { clientInfo, capabilities, author });
  }

  storeOpen<T = Loose>(params: StoreOpenParams): Promise<T> {
    return this.call<T>("store.open", params);
  }

  storeInfo<T = Loose>(): Promise<T> {
    return this.call<T>("store.info");
  }

  /** Online, consistent copy of the store to the file `to`. */
  storeBackup<T = BackupResult>(to: string): Promise<T> {
    return this.call<T>("store.backup", { to });
  }

  storeCheck<T = Loose>(): Promise<T> {
    return this.call<T>("store.check");
  }

  // Model

  /** Installs or updates the schema; incompatible changes reject with MigrationRequiredError. */
  modelDefine<T = Loose>(schema: Schema, options?: CallOptions): Promise<T> {
    return this.call<T>("model.define", { schema }, options);
  }

  modelGet<T = Loose>(): Promise<T> {
    return this.call<T>("model.get");
  }

  /** Checks a schema without installing it. */
  modelValidate<T = Loose>(schema: Schema): Promise<T> {
    return this.call<T>("model.validate", { schema });
  }

  /** The changes from `from` (default: the store's schema) to `to`, each classified. */
  modelDiff(to: Schema, from?: Schema): Promise<SchemaDiffResult> {
    return this.call<SchemaDiffResult>("model.diff", from === undefined ? { to } : { from, to });
  }

  // Migrations

  /** Where the store stands; with `schema`, what migrating to it would take. */
  migrationStatus<T = Loose>(schema?: Schema): Promise<T> {
    return this.call<T>("migration.status", schema === undefined ? {} : { schema });
  }

  /** A dry run of `migrationApply`: exact steps, rows touched and data loss; changes nothing. */
  migrationPlan(
    params: Omit<MigrationPlanParams, "schemas" | "stages"> & { schemas: Schema[]; stages?: MigrationStage[] },
    options?: CallOptions,
  ): Promise<MigrationResult> {
    return this.call<MigrationResult>("migration.plan", params, options);
  }

  /**
   * Runs the chain's stages from the store's version to the last. `willMigrate` / `didMigrate`
   * answer the server's hook requests for custom stages that ask for them (call
   * `initialize(..., { migrationHooks: true })` first); they may use this client meanwhile,
   * and a rejection rolls the stage back.
   */
  async migrationApply(
    params: Omit<MigrationApplyParams, "schemas" | "stages"> & { schemas: Schema[]; stages?: MigrationStage[] },
    hooks: { willMigrate?: MigrationHook; didMigrate?: MigrationHook } = {},
    options?: CallOptions,
  ): Promise<MigrationResult> {
    const removers: (() => void)[] = [];
    if (hooks.willMigrate) removers.push(this.onRequest("migration/willMigrate", hooks.willMigrate as RequestHandler));
    if (hooks.didMigrate) removers.push(this.onRequest("migration/didMigrate", hooks.didMigrate as RequestHandler));
    try {
      return await this.call<MigrationResult>("migration.apply", params, options);
    } finally {
      for (const remove of removers) remove();
    }
  }

  // Core Data models

  /** Reads a Core Data model (a path the server reads, or the text of a contents file). */
  modelImportXcdatamodel<T = ImportXcdatamodelResult>(source: Omit<ModelSource, "schema">): Promise<T> {
    return this.call<T>("model.importXcdatamodel", { ...source });
  }

  /** SwiftData migration assessment; `compareWith` adds the coexistence check. */
  modelAudit<T = AuditResult>(params: AuditParams): Promise<T> {
    return this.call<T>("model.audit", { ...params });
  }

  /** Source code for a model: SwiftData, Core Data, TypeScript or Python. */
  modelGenerate<T = GenerateResult>(params: GenerateParams): Promise<T> {
    return this.call<T>("model.generate", { ...params });
  }

  // Objects

  // Every method returning objects takes `toMany` (`options.toMany`, `FetchParams.toMany`):
  // to-many relationships are left out unless it asks for "ids" or "count".

  /** Inserts one object; resolves with it, defaults applied. */
  insert<T extends StoredObject = StoredObject>(entity: string, values: Values, options?: InsertOptions): Promise<T> {
    return this.call<T>("objects.insert", { ...options, entity, values });
  }

  /** `options.ifVersion`: apply only if the object's version is still this one (else ConflictError). */
  update<T extends StoredObject = StoredObject>(id: string, values: Values, options?: UpdateOptions): Promise<T> {
    return this.call<T>("objects.update", { ...options, id, values });
  }

  /**
   * Inserts, or updates the object matching on a unique key (`on`, else the server's
   * choice); `inserted` says which happened.
   */
  upsert<T extends StoredObject = StoredObject>(
    entity: string,
    values: Values,
    on?: string | string[],
    options?: UpsertOptions,
  ): Promise<UpsertResult<T>> {
    return this.call<UpsertResult<T>>("objects.upsert", { ...options, entity, values, on: typeof on === "string" ? [on] : on });
  }

  /** Deletes with delete rules applied; `deleted` lists every id removed (cascades included). */
  delete(id: string): Promise<DeleteResult> {
    return this.call<DeleteResult>("objects.delete", { id });
  }

  /** Rejects with NotFoundError when the object does not exist; `options.withVersion` adds `_version`. */
  get<T extends StoredObject = StoredObject>(id: string, include?: string[], options?: GetOptions): Promise<T> {
    return this.call<T>("objects.get", { ...options, id, include });
  }

  getMany(ids: string[], include?: string[], options?: GetOptions): Promise<ObjectsResult> {
    return this.call<ObjectsResult>("objects.get", { ...options, ids, include });
  }

  /** `where` undefined: every object of `entity`; `options.variables` fills `$NAME`. */
  updateWhere<T = Loose>(entity: string, where: Predicate | undefined, values: Values, args?: PredicateArgs, options?: WhereOptions): Promise<T> {
    return this.call<T>("objects.updateWhere", { ...options, entity, where, values, args });
  }

  deleteWhere<T = Loose>(entity: string, where: Predicate | undefined, args?: PredicateArgs, options?: WhereOptions): Promise<T> {
    return this.call<T>("objects.deleteWhere", { ...options, entity, where, args });
  }

  /** Applies all changes or none; the result maps `ref`s to the new ids. */
  save<T = Loose>(changes: Change[], author?: string): Promise<T> {
    return this.call<T>("context.save", { changes, author });
  }

  // Transactions: group several requests into one atomic unit.

  begin<T = unknown>(): Promise<T> {
    return this.call<T>("transaction.begin");
  }

  commit<T = unknown>(): Promise<T> {
    return this.call<T>("transaction.commit");
  }

  rollback<T = unknown>(): Promise<T> {
    return this.call<T>("transaction.rollback");
  }

  // Query

  fetch(params: FetchParams, options?: CallOptions): Promise<FetchResult> {
    return this.call<FetchResult>("query.fetch", params, options);
  }

  /**
   * `query.observe` as a LiveQuery: `objects` follow every change, `waitFor(token)`,
   * `nextChange()` and `for await` read them (see live.ts); `onChange(change, live)` runs
   * after each change is applied, from the first.
   */
  async observe(params: FetchParams, onChange?: LiveChangeListener): Promise<LiveQuery> {
    return new LiveQuery(this, await this.queryObserve(params), onChange);
  }

  /**
   * `query.observe`: the first result. Its `query/changed` notifications are held from
   * the reply on until `onQueryChanged` attaches a listener (or `queryUnobserve`).
   */
  queryObserve(params: FetchParams): Promise<ObserveResult> {
    return this.changes.observe(() => this.call<ObserveResult>("query.observe", params));
  }

  async queryUnobserve(subscription: string): Promise<null> {
    try {
      return await this.call<null>("query.unobserve", { subscription });
    } finally {
      this.changes.forget(subscription);
    }
  }

  /**
   * Calls `listener` with each `query/changed` of `subscription`, in order, starting with
   * those that arrived before it was attached; returns the function that detaches it.
   */
  onQueryChanged(subscription: string, listener: (change: QueryChange) => void): () => void {
    return this.changes.listen(subscription, listener);
  }

  historyFetch(params: HistoryFetchParams = {}): Promise<HistoryResult> {
    return this.call<HistoryResult>("history.fetch", params);
  }

  historyDelete(before: number): Promise<{ deleted: number }> {
    return this.call<{ deleted: number }>("history.delete", { before });
  }

  count(params: CountParams): Promise<CountResult> {
    return this.call<CountResult>("query.count", params);
  }

  /** `query.ids`: the ids of the matching objects, in sort order. */
  ids(params: IdsParams, options?: CallOptions): Promise<{ ids: string[] }> {
    return this.call<{ ids: string[] }>("query.ids", params, options);
  }

  /** `query.parse`: a predicate (text or JSON form) as its JSON form; `template` keeps unbound `%@`/`%K`/`$NAME`. */
  queryParse(params: QueryParseParams): Promise<{ predicate: Record<string, unknown> }> {
    return this.call<{ predicate: Record<string, unknown> }>("query.parse", params);
  }

  aggregate(params: AggregateParams, options?: CallOptions): Promise<AggregateResult> {
    return this.call<AggregateResult>("query.aggregate", params, options);
  }

  /** `export.json`: to a new file (`path`) or inline (`data`, below 8 MiB). */
  exportJson(
    params: ExportJsonParams = {},
    options?: CallOptions,
  ): Promise<{ format: string; objects: number; counts: Record<string, number>; bytes: number; path?: string; data?: string }> {
    return this.call("export.json", params, options);
  }

  /** `import.json` of a file (`path`) or an export's text (`data`), all or nothing. */
  importJson(
    params: ImportJsonParams,
    options?: CallOptions,
  ): Promise<{
    format: string;
    mode: string;
    objects: number;
    inserted: number;
    updated: number;
    deleted: number;
    schemaDefined: boolean;
    /** The changes the records were migrated through (an older file's schema). */
    migrated: SchemaChange[];
  }> {
    return this.call("import.json", params, options);
  }

  /** `import.coreData`: copies a Core Data SQLite store into the open store, all or nothing. */
  importCoreData(
    params: ImportCoreDataParams,
    options?: CallOptions,
  ): Promise<ImportCoreDataResult> {
    return this.call("import.coreData", params, options);
  }
}
