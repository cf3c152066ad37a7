/**
 * ModelStoreClient: spawns `modelstore serve` and offers one typed method per
 * protocol method (camelCase of the wire name), so scripts read like the
 * protocol and results keep the wire shape (`{objects}`, `{count}`, ...).
 */
import { isAbsolute, resolve } from "node:path";
import { RpcConnection } from "./connection.js";
import type { CallOptions } from "./connection.js";
import type {
  AggregateParams, AggregateResult, BackupResult, Change, CountParams, CountResult, DeleteResult, FetchParams, FetchResult,
  InitializeResult, Loose, ObjectsResult, Predicate, PredicateArgs, Schema, StoredObject, StoreOpenParams, Values,
} from "./types.js";

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
  /** Starts a server process; requests may be sent at once (they queue on its stdin). */
  static spawn(options: SpawnOptions = {}): ModelStoreClient {
    const { binary, args } = resolveCommand(options);
    return new ModelStoreClient(binary, args, { env: options.env, cwd: options.cwd, timeoutMs: options.timeoutMs });
  }

  // Lifecycle and store

  /** Optional handshake; announce capabilities such as server-to-client migration requests. */
  initialize<T = InitializeResult>(
    clientInfo: { name: string; version?: string } = { name: CLIENT_NAME, version: CLIENT_VERSION },
    capabilities?: Record<string, unknown>,
  ): Promise<T> {
    return this.call<T>("initialize", { clientInfo, capabilities });
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

  // Objects

  /** Inserts one object; resolves with it, defaults applied. */
  insert<T extends StoredObject = StoredObject>(entity: string, values: Values): Promise<T> {
    return this.call<T>("objects.insert", { entity, values });
  }

  update<T extends StoredObject = StoredObject>(id: string, values: Values): Promise<T> {
    return this.call<T>("objects.update", { id, values });
  }

  /** Inserts, or updates the object matching on a unique key (`on`, else the server's choice). */
  upsert<T extends StoredObject = StoredObject>(entity: string, values: Values, on?: string | string[]): Promise<T> {
    return this.call<T>("objects.upsert", { entity, values, on });
  }

  /** Deletes with delete rules applied; `deleted` lists every id removed (cascades included). */
  delete(id: string): Promise<DeleteResult> {
    return this.call<DeleteResult>("objects.delete", { id });
  }

  /** Rejects with NotFoundError when the object does not exist. */
  get<T extends StoredObject = StoredObject>(id: string, include?: string[]): Promise<T> {
    return this.call<T>("objects.get", { id, include });
  }

  getMany(ids: string[], include?: string[]): Promise<ObjectsResult> {
    return this.call<ObjectsResult>("objects.get", { ids, include });
  }

  updateWhere<T = Loose>(entity: string, where: Predicate, values: Values, args?: PredicateArgs): Promise<T> {
    return this.call<T>("objects.updateWhere", { entity, where, values, args });
  }

  deleteWhere<T = Loose>(entity: string, where: Predicate, args?: PredicateArgs): Promise<T> {
    return this.call<T>("objects.deleteWhere", { entity, where, args });
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

  count(params: CountParams): Promise<CountResult> {
    return this.call<CountResult>("query.count", params);
  }

  /** `query.parse`: a predicate (text or JSON form) as its JSON form; `template` keeps unbound `%@`/`%K`/`$NAME`. */
  queryParse(params: {
    where: Predicate;
    args?: unknown[];
    variables?: Record<string, unknown>;
    template?: boolean;
  }): Promise<{ predicate: Record<string, unknown> }> {
    return this.call<{ predicate: Record<string, unknown> }>("query.parse", params);
  }

  aggregate(params: AggregateParams, options?: CallOptions): Promise<AggregateResult> {
    return this.call<AggregateResult>("query.aggregate", params, options);
  }

  /** `export.json`: to a new file (`path`) or inline (`data`, below 8 MiB). */
  exportJson(
    params: {
      entities?: string[];
      where?: Predicate;
      args?: unknown[];
      format?: "ndjson" | "json";
      path?: string;
      progressToken?: string | number;
    } = {},
    options?: CallOptions,
  ): Promise<{ format: string; objects: number; counts: Record<string, number>; bytes: number; path?: string; data?: string }> {
    return this.call("export.json", params, options);
  }

  /** `import.json` of a file (`path`) or an export's text (`data`), all or nothing. */
  importJson(
    params: { path?: string; data?: string; mode?: "insert" | "upsert" | "replace"; progressToken?: string | number },
    options?: CallOptions,
  ): Promise<{
    format: string;
    mode: string;
    objects: number;
    inserted: number;
    updated: number;
    deleted: number;
    schemaDefined: boolean;
  }> {
    return this.call("import.json", params, options);
  }
}
