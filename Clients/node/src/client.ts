/**
 * ModelStoreClient: spawns `modelstore serve` and offers one typed method per
 * protocol method (camelCase of the wire name), so scripts read like the
 * protocol and results keep the wire shape (`{objects}`, `{count}`, ...).
 */
import { findBinary } from "./binary.js";
import { RpcConnection } from "./connection.js";
import type { CallOptions, ConnectionOptions, RequestHandler } from "./connection.js";
import { ObjectConverter } from "./convert.js";
import type { ModelDescription } from "./convert.js";
import { ChangeRouter, LiveQuery } from "./live.js";
import type { LiveChangeListener } from "./live.js";
import type {
  ChangesOf, ConcreteName, EntityName, KeyOf, Result, ShapeOptions, SortItem, TypedChange, TypedFetchParams, UntypedEntities,
  ValuesOf, Versioned,
} from "./typed.js";
import type {
  AggregateParams, AggregateResult, BackupResult, CountParams, CountResult, DeleteResult, FetchParams, FetchResult,
  GetOptions, IdsParams, InitializeResult, InsertOptions, Loose, Predicate, PredicateArgs, Schema,
  StoreOpenParams, ToMany, UpdateOptions, UpsertOptions, UpsertResult, WhereOptions,
} from "./types.js";
import type {
  ExportJsonParams, HistoryFetchParams, InitializeParams, ImportCoreDataParams, ImportJsonParams, MigrationApplyParams, MigrationPlanParams,
  QueryParseParams,
} from "./protocol.js";
import type { AuditParams, AuditResult, DiagramParams, DiagramResult, GenerateParams, GenerateResult, ImportXcdatamodelResult, ModelSource } from "./types.js";
import type { ImportCoreDataResult } from "./types.js";
import type { MigrationHook, MigrationResult, MigrationStage, SchemaChange, SchemaDiffResult } from "./types.js";
import type { HistoryResult, ObserveResult, QueryChange } from "./types.js";

export const CLIENT_NAME = "modelstore-client-node";
export const CLIENT_VERSION = "0.1.0";

export interface SpawnOptions {
  /** Server executable; else $MODELSTORE_BIN; else `modelstore` on PATH (else spawn throws BinaryNotFoundError). */
  binary?: string;
  /** Full server arguments; default `serve --memory`. Exclusive with `store`. */
  args?: string[];
  /** Store file path: runs `serve --store PATH`. */
  store?: string;
  /**
   * Default time limit in ms of a request (30 000; 0: none), except import, export and
   * migration methods (LONG_METHODS), which have none unless a call sets `timeoutMs`.
   * A time-out stops waiting and never cancels (see CallOptions).
   */
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
  const binary = findBinary(options.binary, env);
  const args = options.args ?? (options.store !== undefined ? ["serve", "--store", options.store] : ["serve", "--memory"]);
  return { binary, args: [...args] };
}

/**
 * `M` is the entity map the object methods are typed by: `Entities` of the models.ts that
 * `model.generate typescript` writes, inferred from `spawn({ model })`; without a model,
 * any entity and wire objects (`StoredObject`, `Values`).
 */
export class ModelStoreClient<M = UntypedEntities> extends RpcConnection {
  private readonly changes = new ChangeRouter();
  /** Converts returned objects by the model (dates, data, int64); a no-op without one. */
  readonly converter: ObjectConverter;

  constructor(command: string, args: readonly string[], options: ConnectionOptions & { model?: ModelDescription<M> } = {}) {
    super(command, args, options);
    this.converter = new ObjectConverter(options.model);
    this.onNotification("query/changed", (params) => this.changes.deliver(this.converter.change(params)));
  }

  /**
   * Starts a server process; requests may be sent at once (they queue on its stdin). With
   * `model` (generated models.ts's), the methods are typed by its entities and returned
   * objects converted to its types.
   */
  static spawn<M = UntypedEntities>(options: SpawnOptions & { model?: ModelDescription<M> } = {}): ModelStoreClient<M> {
    const { binary, args } = resolveCommand(options);
    const { env, cwd, timeoutMs, model } = options;
    return new ModelStoreClient<M>(binary, args, { env, cwd, timeoutMs, model });
  }

  // Lifecycle and store

  /** Optional handshake; announce capabilities such as server-to-client migration requests. */
  /** `author` is recorded in the history for this session's commits. */
  initialize<T = InitializeResult>(
    clientInfo: { name: string; version?: string } = { name: CLIENT_NAME, version: CLIENT_VERSION },
    capabilities?: Record<string, unknown>,
    author?: string,
    /** `{ logMessages: "warning" }`: the server's log lines of that level come as `window/logMessage`. */
    initializationOptions?: InitializeParams["initializationOptions"],
  ): Promise<T> {
    return this.call<T>("initialize", { clientInfo, capabilities, author, initializationOptions });
  }

  storeOpen<T = Loose>(params: StoreOpenParams): Promise<T> {
    return this.call<T>("store.open", params);
  }

  storeInfo<T = Loose>(): Promise<T> {
    return this.call<T>("store.info");
  }

  /** Online, consistent copy of the store to the file `to`. */
  storeBackup<T = BackupResult>(to: string, options?: CallOptions): Promise<T> {
    return this.call<T>("store.backup", { to }, options);
  }

  storeCheck<T = Loose>(options?: CallOptions): Promise<T> {
    return this.call<T>("store.check", undefined, options);
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

  /**
   * An entity-relationship diagram as Mermaid, DOT or SVG text: of the open store's model,
   * or of `path` / `xml` / `schema`; `from` / `to` (a version name or a schema) draw a
   * migration, `measure` marks the data it would drop from the store.
   */
  modelDiagram(params: DiagramParams = {}): Promise<DiagramResult> {
    return this.call<DiagramResult>("model.diagram", { ...params });
  }

  // Objects

  // Every method returning objects takes `toMany` (`options.toMany`, `FetchParams.toMany`):
  // to-many relationships are left out unless it asks for "ids" or "count".

  /** Inserts one object; resolves with it, defaults applied. */
  async insert<E extends ConcreteName<M>, TM extends ToMany = "none">(
    entity: E,
    values: ValuesOf<M, E>,
    options?: ShapeOptions<InsertOptions, TM>,
  ): Promise<Result<M, E, TM>> {
    return this.converter.object(await this.call<Result<M, E, TM>>("objects.insert", { ...options, entity, values }));
  }

  /**
   * Changes the given keys of one object. `E` (the object's entity) types `values` and the
   * result; by default any concrete entity's. `options.ifVersion`: apply only if the
   * object's version is still this one (else ConflictError).
   */
  async update<E extends ConcreteName<M> = ConcreteName<M>, TM extends ToMany = "none">(
    id: string,
    values: ChangesOf<M, E>,
    options?: ShapeOptions<UpdateOptions, TM>,
  ): Promise<Result<M, E, TM>> {
    return this.converter.object(await this.call<Result<M, E, TM>>("objects.update", { ...options, id, values }));
  }

  /**
   * Inserts, or updates the object matching on a unique key (`on`, else the server's
   * choice); `inserted` says which happened.
   */
  async upsert<E extends ConcreteName<M>, TM extends ToMany = "none">(
    entity: E,
    values: ValuesOf<M, E>,
    on?: KeyOf<M, E> | KeyOf<M, E>[],
    options?: ShapeOptions<UpsertOptions, TM>,
  ): Promise<UpsertResult<Result<M, E, TM>>> {
    const result = await this.call<UpsertResult<Result<M, E, TM>>>(
      "objects.upsert", { ...options, entity, values, on: typeof on === "string" ? [on] : on });
    this.converter.object(result.object);
    return result;
  }

  /**
   * Deletes with delete rules applied; `deleted` lists every id removed (cascades included).
   * With `dryRun: true` nothing is deleted: the result (or the error) is what the delete
   * would do, and `updated` lists the objects that would stay with relationships changed.
   */
  delete(id: string, options?: { dryRun?: boolean }): Promise<DeleteResult> {
    return this.call<DeleteResult>("objects.delete", { ...options, id });
  }

  /**
   * Rejects with NotFoundError when the object does not exist. `E` (the object's entity,
   * `get<"Task">(id)`) types the result; by default the union of the concrete entities'
   * objects, which `_entity` narrows. `options.withVersion` adds `_version`.
   */
  async get<E extends ConcreteName<M> = ConcreteName<M>, TM extends ToMany = "none", W extends boolean = false>(
    id: string,
    include?: string[],
    options?: ShapeOptions<GetOptions, TM> & { withVersion?: W },
  ): Promise<Result<M, E, TM> & Versioned<W>> {
    return this.converter.object(await this.call<Result<M, E, TM> & Versioned<W>>("objects.get", { ...options, id, include }));
  }

  async getMany<E extends ConcreteName<M> = ConcreteName<M>, TM extends ToMany = "none", W extends boolean = false>(
    ids: string[],
    include?: string[],
    options?: ShapeOptions<GetOptions, TM> & { withVersion?: W },
  ): Promise<{ objects: (Result<M, E, TM> & Versioned<W>)[] }> {
    const result = await this.call<{ objects: (Result<M, E, TM> & Versioned<W>)[] }>("objects.get", { ...options, ids, include });
    this.converter.objects(result.objects);
    return result;
  }

  /** `where` undefined: every object of `entity`; `options.variables` fills `$NAME`. */
  updateWhere<E extends ConcreteName<M>, T = Loose>(
    entity: E,
    where: Predicate | undefined,
    values: ChangesOf<M, E>,
    args?: PredicateArgs,
    options?: WhereOptions,
  ): Promise<T> {
    return this.call<T>("objects.updateWhere", { ...options, entity, where, values, args });
  }

  deleteWhere<T = Loose>(entity: EntityName<M>, where: Predicate | undefined, args?: PredicateArgs, options?: WhereOptions): Promise<T> {
    return this.call<T>("objects.deleteWhere", { ...options, entity, where, args });
  }

  /** Applies all changes or none; the result maps `ref`s to the new ids. */
  save<T = Loose>(changes: TypedChange<M>[], author?: string): Promise<T> {
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

  /**
   * `query.fetch`. Typed by `params.entity`: `sort` and `select` take its keys, and the
   * objects' type follows `toMany`, `select` and `include` (included keys are `unknown`).
   */
  async fetch<E extends EntityName<M>, TM extends ToMany = "none", S extends KeyOf<M, E> = never, I extends string = never>(
    params: TypedFetchParams<M, E, TM, S, I>,
    options?: CallOptions,
  ): Promise<FetchResult<Result<M, E, TM, S, I>>> {
    const result = await this.call<FetchResult<Result<M, E, TM, S, I>>>("query.fetch", params, options);
    this.converter.objects(result.objects);
    return result;
  }

  /**
   * `query.observe` as a LiveQuery: `objects` follow every change, `waitFor(token)`,
   * `nextChange()` and `for await` read them (see live.ts); `onChange(change, live)` runs
   * after each change is applied, from the first. Typed as `fetch`.
   */
  async observe<E extends EntityName<M>, TM extends ToMany = "none", S extends KeyOf<M, E> = never, I extends string = never>(
    params: TypedFetchParams<M, E, TM, S, I>,
    onChange?: LiveChangeListener<Result<M, E, TM, S, I>>,
  ): Promise<LiveQuery<Result<M, E, TM, S, I>>> {
    const first = await this.queryObserve(params);
    return new LiveQuery<Result<M, E, TM, S, I>>(this, first as ObserveResult<Result<M, E, TM, S, I>>, onChange);
  }

  /**
   * `query.observe`: the first result. Its `query/changed` notifications are held from
   * the reply on until `onQueryChanged` attaches a listener (or `queryUnobserve`).
   */
  async queryObserve(params: FetchParams): Promise<ObserveResult> {
    const result = await this.changes.observe(() => this.call<ObserveResult>("query.observe", params));
    this.converter.objects(result.objects);
    return result;
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

  historyFetch(params: HistoryFetchParams = {}, options?: CallOptions): Promise<HistoryResult> {
    return this.call<HistoryResult>("history.fetch", params, options);
  }

  historyDelete(before: number): Promise<{ deleted: number }> {
    return this.call<{ deleted: number }>("history.delete", { before });
  }

  count(params: CountParams & { entity: EntityName<M> }): Promise<CountResult> {
    return this.call<CountResult>("query.count", params);
  }

  /** `query.ids`: the ids of the matching objects, in sort order. */
  ids<E extends EntityName<M>>(
    params: Omit<IdsParams, "entity" | "sort"> & { entity: E; sort?: SortItem<M, E>[] },
    options?: CallOptions,
  ): Promise<{ ids: string[] }> {
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
