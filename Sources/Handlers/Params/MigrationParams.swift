import JSONCore
import RPCCore
import StoreEngine

/// `migration.status`.
struct MigrationStatusParams: MethodParams {
  static let method = "migration.status"
  static let effect = MethodEffect.reads
  static let shape = ParamShape(describing: Self.self)
  typealias Result = MigrationStatusResult
  let schema: JSONValue?
  init(_ r: ParamReader) throws { schema = r.value("schema", schema: JSONSchema.ref("Schema")) }
}

/// What `migration.plan` and `migration.apply` share: the chain of schemas and its stages.
struct MigrationRun {
  let progressToken: JSONValue?
  let schemas: [JSONValue]
  let stages: JSONValue
  let allowDataLoss: Bool
  let backup: Bool?

  init(_ r: ParamReader, apply: Bool) throws {
    progressToken = apply ? try (r.read("progressToken") as ProgressToken?)?.value : nil
    let schemas = r.value("schemas", schema: JSONSchema.array(JSONSchema.ref("Schema")), required: true)
    if case .array(let list)? = schemas {
      self.schemas = list
    } else {
      try r.check(
        false,
        RPCError.invalidParams(
          "params.schemas: expected an array of schemas, oldest first", ["path": "params.schemas", "expected": "array"]))
      self.schemas = []
    }
    stages = r.value("stages", schema: JSONSchema.array(JSONSchema.object)) ?? .array([])
    allowDataLoss = try r.read("allowDataLoss") ?? false
    backup = apply ? try r.read("backup") : nil
  }
}

/// `migration.plan`: a dry run of `migration.apply`.
struct MigrationPlanParams: MethodParams {
  static let method = "migration.plan"
  static let effect = MethodEffect.reads
  static let shape = ParamShape(describing: Self.self)
  typealias Result = MigrationRunResult
  let run: MigrationRun
  init(_ r: ParamReader) throws { run = try MigrationRun(r, apply: false) }
}

/// `migration.apply`.
struct MigrationApplyParams: MethodParams {
  static let method = "migration.apply"
  static let effect = MethodEffect.writes
  static let shape = ParamShape(describing: Self.self)
  typealias Result = MigrationRunResult
  let run: MigrationRun
  init(_ r: ParamReader) throws { run = try MigrationRun(r, apply: true) }
}

/// `history.fetch`.
struct HistoryFetchParams: MethodParams {
  static let method = "history.fetch"
  static let effect = MethodEffect.reads
  static let shape = ParamShape(describing: Self.self)
  typealias Result = HistoryFetchResult
  let after: Int64
  let limit: Int?
  let entities: Set<String>?
  let author: String?
  init(_ r: ParamReader) throws {
    after = try r.int("after", min: 0) ?? 0
    limit = try r.int("limit", min: 1).map(Int.init)
    entities = try (r.read("entities") as [String]?).map(Set.init)
    author = try r.read("author")
  }
}

/// `history.delete`.
struct HistoryDeleteParams: MethodParams {
  static let method = "history.delete"
  static let effect = MethodEffect.writes
  static let shape = ParamShape(describing: Self.self)
  typealias Result = DeletedCountResult
  let before: Int64?
  init(_ r: ParamReader) throws { before = try r.int("before", min: 0, required: true) }
}
