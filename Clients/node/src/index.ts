/** Public entry point of modelstore-client: the client, its errors, wire types and the golden replayer. */
export { ModelStoreClient, resolveCommand, CLIENT_NAME, CLIENT_VERSION } from "./client.js";
export type { SpawnOptions } from "./client.js";
export { HOW_TO_FIX, findBinary } from "./binary.js";
export { RpcConnection } from "./connection.js";
export type { CallOptions, ConnectionOptions, NotificationListener, RequestHandler } from "./connection.js";
export * from "./errors.js";
export type {
  AggregateParams, AggregateResult, AttributeDef, AttributeType, BackupResult, Change, CountParams, CountResult,
  DeleteResult, DeleteRule, EntityDef, FetchParams, FetchResult, GroupingKey, InitializeResult, Loose, ObjectOptions,
  ObjectsResult, Predicate, PredicateArgs, RequestId, RelationshipDef, Schema, SortKey, StoredObject, StoreOpenParams,
  ToMany, Values,
} from "./types.js";
export type {
  AuditFinding, AuditParams, AuditResult, DiagramParams, DiagramResult, GenerateParams, GenerateResult, GenerateTarget,
  ImportedModelVersion,
  ImportXcdatamodelResult, ModelIssue, ModelSource,
} from "./types.js";
export type { ImportCoreDataResult } from "./types.js";
export type {
  GetOptions, IdsParams, InsertOptions, UpdateOptions, UpsertOptions, UpsertResult, WhereOptions,
} from "./types.js";
/** The params of every method, generated from protocol.json (the server's description). */
export type { MethodParams } from "./protocol.js";
export { applyChange } from "./types.js";
export { LiveQuery } from "./live.js";
export { LONG_METHODS } from "./connection.js";
export { ObjectConverter } from "./convert.js";
export type { ConvertedType, ModelDescription } from "./convert.js";
export { parseJson, stringifyJson } from "./wire.js";
export type {
  ChangesOf, ConcreteName, EntityName, KeyOf, ObjectOf, Result, SortItem, SortPath, TypedChange, TypedFetchParams, UntypedEntities,
  ValuesOf,
} from "./typed.js";
export type { LiveChangeListener } from "./live.js";
export type { HistoryResult, ObserveResult, QueryChange } from "./types.js";
export type {
  MigrationHook, MigrationHookParams, MigrationPlace, MigrationResult, MigrationStage, SchemaChange, SchemaDiffResult,
} from "./types.js";
export {
  ANY, IGNORE, GoldenMismatchError, findTranscripts, loadTranscript, matchJson, parseTranscript, replayTranscript,
} from "./golden.js";
export type { Mismatch, ReplayOptions, Transcript, TranscriptStep } from "./golden.js";
