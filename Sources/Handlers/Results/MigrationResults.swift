import JSONCore
import SchemaModel
import StoreEngine

/// One applied schema version (`model.get`, `migration.status`).
struct SchemaHistoryEntry: ResultObject {
  let version: String
  let hash: String
  let appliedAt: WireDateJSON
  init(_ entry: (version: String, hash: String, appliedAt: Double)) {
    version = entry.version
    hash = entry.hash
    appliedAt = WireDateJSON(seconds: entry.appliedAt)
  }
  static var members: [ResultMember<Self>] { [.init("version", \.version), .init("hash", \.hash), .init("appliedAt", \.appliedAt)] }
}

/// A date as the wire writes it (`ISODate.wireValue`): ISO 8601 text, or seconds since
/// 1970 as a number outside the calendar's range.
struct WireDateJSON: OpenJSON {
  let json: JSONValue
  init(_ json: JSONValue) { self.json = json }
  init(seconds: Double) { json = ISODate.wireValue(seconds) }
  static var openSchema: JSONValue { JSONSchema.oneOf(JSONSchema.string, JSONSchema.number) }
}

/// Where a migration loses data or is blocked (`MigrationReport`'s data loss and blockers).
struct MigrationPlaceJSON: OpenJSON {
  let json: JSONValue
  init(_ json: JSONValue) { self.json = json }
  static var openSchema: JSONValue {
    JSONSchema.described(
      JSONSchema.object(["entity": JSONSchema.string, "message": JSONSchema.string], optional: ["entity"]),
      "names its entity and, where they apply, the attribute, relationship, count of rows and object ids (open-ended)")
  }
}

/// Why `migration.status` says what it says: a sentence, or a blocker.
struct MigrationReasonJSON: OpenJSON {
  let json: JSONValue
  init(_ json: JSONValue) { self.json = json }
  static var openSchema: JSONValue { JSONSchema.oneOf(JSONSchema.string, MigrationPlaceJSON.resultSchema) }
}

/// `migration.status`: what defining `schema` would do to this store's data.
struct MigrationStatusResult: ResultObject {
  var version: String? = nil
  var hash: String?
  var entities: ResultMap<String>?
  var history: [SchemaHistoryEntry]?
  var changes: [SchemaChangeJSON]?
  var status: Status?
  var reasons: [MigrationReasonJSON]?
  var dataLoss: [MigrationPlaceJSON]?

  enum Status: String, ResultWord {
    case empty, noSchema, current, newer, custom, blocked, lightweight
  }

  static var members: [ResultMember<Self>] {
    [
      .init("version", \.version), .init(ifPresent: "hash", \.hash), .init(ifPresent: "entities", \.entities),
      .init(ifPresent: "history", \.history), .init(ifPresent: "changes", \.changes), .init(ifPresent: "status", \.status),
      .init(ifPresent: "reasons", \.reasons), .init(ifPresent: "dataLoss", \.dataLoss),
    ]
  }
}

/// `migration.plan` and `migration.apply` (and `modelstore migrate`): the outcome per stage.
struct MigrationRunResult: ResultObject {
  struct Stage: ResultObject {
    let from: String
    let to: String
    let kind: MigrationStage.Kind
    let status: MigrationResult.Status
    let changes: [SchemaChangeJSON]
    let steps: [OpenObjectJSON]
    let dataLoss: [MigrationPlaceJSON]
    let blockers: [MigrationPlaceJSON]
    init(_ st: MigrationResult.Stage) {
      from = st.stage.from
      to = st.stage.to
      kind = st.stage.kind
      status = st.outcome
      changes = st.changes.map { SchemaChangeJSON($0.json) }
      steps = st.report.steps.map { OpenObjectJSON($0.json) }
      dataLoss = st.report.dataLoss.map(MigrationPlaceJSON.init)
      blockers = st.report.blockers(rendering: \.jsonPath).map(MigrationPlaceJSON.init)
    }
    static var members: [ResultMember<Self>] {
      [
        .init("from", \.from), .init("to", \.to), .init("kind", \.kind), .init("status", \.status), .init("changes", \.changes),
        .init("steps", \.steps), .init("dataLoss", \.dataLoss), .init("blockers", \.blockers),
      ]
    }
  }

  let from: String?
  let to: String
  let backup: String?
  let stages: [Stage]
  let dataLoss: Bool
  static let component: String? = "MigrationResult"
  init(_ result: MigrationResult) {
    from = result.from
    to = result.to
    backup = result.backupPath
    stages = result.stages.map(Stage.init)
    dataLoss = result.stages.contains { !$0.report.dataLoss.isEmpty }
  }
  static var members: [ResultMember<Self>] {
    [
      .init("from", \.from), .init("to", \.to), .init(ifPresent: "backup", \.backup), .init("stages", \.stages),
      .init("dataLoss", \.dataLoss),
    ]
  }
}

extension MigrationStage.Kind: ResultWord {}
extension MigrationResult.Status: ResultWord {}

/// One transaction of the persistent history (`HistoryTransaction.json()`).
struct HistoryTransactionJSON: OpenJSON {
  let json: JSONValue
  init(_ json: JSONValue) { self.json = json }
  static var openSchema: JSONValue {
    JSONSchema.describedClosed(
      JSONSchema.object([
        "token": JSONSchema.integer, "timestamp": JSONSchema.string, "author": JSONSchema.oneOf(JSONSchema.string, JSONSchema.null),
        "changes": JSONSchema.array(OpenObjectJSON.resultSchema),
      ]), "each change names its object, its kind and, for an update, the changed attributes with their values (open-ended)")
  }
}

/// `history.fetch`.
struct HistoryFetchResult: ResultObject {
  let transactions: [HistoryTransactionJSON]
  let lastToken: Int64
  static var members: [ResultMember<Self>] { [.init("transactions", \.transactions), .init("lastToken", \.lastToken)] }
}

/// `history.delete`: the number of transactions deleted.
struct DeletedCountResult: ResultObject {
  let deleted: Int
  static var members: [ResultMember<Self>] { [.init("deleted", \.deleted)] }
}
