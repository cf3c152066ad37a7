import JSONCore
import RPCCore
import SchemaModel
import StoreEngine

/// `migration.status`, `migration.plan`, `migration.apply`, and `model.diff`'s result form.
enum MigrationHandlers {
  static func methods(_ s: Session) -> [MethodEntry] {
    [
      MethodEntry(MigrationStatusParams.self) { p, _ in try status(s, p) },
      MethodEntry(MigrationPlanParams.self) { p, context in try run(s, p.run, context, dryRun: true) },
      MethodEntry(MigrationApplyParams.self) { p, context in try run(s, p.run, context, dryRun: false) },
    ]
  }

  private static func status(_ s: Session, _ p: MigrationStatusParams) throws -> MigrationStatusResult {
    let store = try s.requireStore()
    var o = MigrationStatusResult()
    // The schema and its history as one snapshot has them.
    let (schema, history) = try store.readingOneSnapshot { (store.schema, store.schema == nil ? [] : try store.schemaHistory()) }
    guard let current = schema else {
      o.status = p.schema != nil ? .noSchema : .empty
      return o
    }
    o.version = current.version
    o.hash = current.versionHash
    o.entities = ResultMap(current.entities.map { ($0.name, $0.versionHash) })
    o.history = history.map(SchemaHistoryEntry.init)
    guard let json = p.schema else { return o }
    let target = try store.decodeChain([json], path: ErrorPlace(.schema))[0]
    let diff = SchemaDiff(from: current, to: target)
    o.changes = diff.changes.map { SchemaChangeJSON($0.json) }
    if target.versionHash == current.versionHash {
      o.status = .current
    } else if history.contains(where: { $0.hash == target.versionHash }) {
      o.status = .newer
      o.reasons = [MigrationReasonJSON(.string("the store already moved on from this schema; it is refused, never altered"))]
    } else if !diff.isLightweight {
      o.status = .custom
      o.reasons = diff.changes.filter { !$0.lightweight }.map { MigrationReasonJSON(.string($0.message)) }
    } else {
      // Measured against the data: a dry run of the one lightweight stage.
      let planned = try store.migrate(chain: [current, target], stages: [], options: MigrationOptions(dryRun: true))
      let stage = planned.stages.first
      let blocked = stage?.outcome == .blocked
      o.status = blocked ? .blocked : .lightweight
      if let stage {
        if blocked { o.reasons = stage.report.blockers(rendering: \.jsonPath).map(MigrationReasonJSON.init) }
        o.dataLoss = stage.report.dataLoss.map(MigrationPlaceJSON.init)
      }
    }
    return o
  }

  private static func run(_ s: Session, _ p: MigrationRun, _ context: RequestContext, dryRun: Bool) throws -> MigrationRunResult {
    let store = try s.requireStore()
    let token = p.progressToken
    let chain = try store.decodeChain(p.schemas, path: ErrorPlace(.schemas))
    let stages = try MigrationStageDecoder.decode(p.stages, path: ErrorPlace(.stages))
    let hooksWanted = stages.contains { $0.willMigrate || $0.didMigrate }
    if hooksWanted && !dryRun && s.clientCapabilities["migrationHooks"] != .bool(true) {
      throw RPCError.invalidParams(
        "params.stages: a stage asks for willMigrate/didMigrate, but the client did not announce capabilities.migrationHooks: true in initialize",
        ["path": "params.stages"])
    }
    var options = MigrationOptions(allowDataLoss: p.allowDataLoss, dryRun: dryRun)
    let backup = p.backup ?? store.migrationBacksUpByDefault
    options.backup = !dryRun && backup
    if options.backup, let why = store.migrationBackupRefusal {
      throw RPCError.invalidParams("params.backup: \(why)", ["path": "params.backup"])
    }
    var hooks = MigrationHooks()
    hooks.willMigrate = { stage in try callHook("migration/willMigrate", stage, store, context) }
    hooks.didMigrate = { stage in try callHook("migration/didMigrate", stage, store, context) }
    if let reporter = context.progressReporter(token: token) {
      hooks.progress = { done, total, message in reporter.report(done: done, total: total, message: message) }
    }
    let result = try store.migrate(chain: chain, stages: stages, options: options, hooks: hooks)
    return MigrationRunResult(result)
  }

  /// Asks the client to run its hook; its error rolls the stage back.
  private static func callHook(_ method: String, _ stage: MigrationStage, _ store: Store, _ context: RequestContext) throws {
    let params: JSONValue = .object([
      "from": .string(stage.from), "to": .string(stage.to), "schema": store.schema?.json ?? .null,
    ])
    do {
      _ = try context.callClient(method, params)
    } catch let e as RPCError where e.kind != "cancelled" && e.kind != "clientGone" {
      throw ErrorCodes.hookFailed(
        "the client's \(method) failed: \(e.message); stage \(stage.from) → \(stage.to) was rolled back",
        ["stage": stage.json, "clientError": e.json])
    }
  }
}

/// The JSON form of a migration's outcome, as `migration.apply` returns it (the CLI prints it too).
public func migrationResultJSON(_ result: MigrationResult) -> JSONValue { MigrationRunResult(result).resultJSON }
