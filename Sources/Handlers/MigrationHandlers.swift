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

  private static func status(_ s: Session, _ p: MigrationStatusParams) throws -> JSONValue {
    let store = try s.requireStore()
    var o: JSONObject = [:]
    guard let current = store.schema else {
      o.append("version", .null)
      o.append("status", .string(p.schema != nil ? "noSchema" : "empty"))
      return .object(o)
    }
    o.append("version", .string(current.version))
    o.append("hash", .string(current.versionHash))
    o.append("entities", .object(JSONObject(current.entities.map { .init($0.name, .string($0.versionHash)) })))
    o.append(
      "history",
      .array(
        try store.schemaHistory().map {
          .object(["version": .string($0.version), "hash": .string($0.hash), "appliedAt": ISODate.wireValue($0.appliedAt)])
        }))
    guard let json = p.schema else { return .object(o) }
    let target = try store.decodeChain([json], path: ErrorPlace(.schema))[0]
    let diff = SchemaDiff(from: current, to: target)
    o.append("changes", .array(diff.changes.map(\.json)))
    if target.versionHash == current.versionHash {
      o.append("status", "current")
    } else if try store.schemaHistory().contains(where: { $0.hash == target.versionHash }) {
      o.append("status", "newer")
      o.append("reasons", .array([.string("the store already moved on from this schema; it is refused, never altered")]))
    } else if !diff.isLightweight {
      o.append("status", "custom")
      o.append("reasons", .array(diff.changes.filter { !$0.lightweight }.map { .string($0.message) }))
    } else {
      // Measured against the data: a dry run of the one lightweight stage.
      let planned = try store.migrate(chain: [current, target], stages: [], options: MigrationOptions(dryRun: true))
      let stage = planned.stages.first
      let blocked = stage?.outcome == .blocked
      o.append("status", .string(blocked ? "blocked" : "lightweight"))
      if let stage {
        if blocked { o.append("reasons", .array(stage.report.blockers(rendering: \.jsonPath))) }
        o.append("dataLoss", .array(stage.report.dataLoss))
      }
    }
    return .object(o)
  }

  private static func run(_ s: Session, _ p: MigrationRun, _ context: RequestContext, dryRun: Bool) throws -> JSONValue {
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
    let backup = p.backup ?? (store.path != nil)
    options.backup = !dryRun && backup
    if options.backup && store.path == nil {
      throw RPCError.invalidParams("params.backup: an in-memory store cannot be backed up", ["path": "params.backup"])
    }
    var hooks = MigrationHooks()
    hooks.willMigrate = { stage in try callHook("migration/willMigrate", stage, store, context) }
    hooks.didMigrate = { stage in try callHook("migration/didMigrate", stage, store, context) }
    if let reporter = context.progressReporter(token: token) {
      hooks.progress = { done, total, message in reporter.report(done: done, total: total, message: message) }
    }
    let result = try store.migrate(chain: chain, stages: stages, options: options, hooks: hooks)
    return describe(result)
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

  static func describe(_ result: MigrationResult) -> JSONValue {
    var o: JSONObject = ["from": result.from.map { .string($0) } ?? .null, "to": .string(result.to)]
    if let backup = result.backupPath { o.append("backup", .string(backup)) }
    o.append(
      "stages",
      .array(
        result.stages.map { st in
          .object([
            "from": .string(st.stage.from), "to": .string(st.stage.to), "kind": .string(st.stage.kind.rawValue),
            "status": .string(st.status),
            "changes": .array(st.changes.map(\.json)), "steps": .array(st.report.steps.map(\.json)),
            "dataLoss": .array(st.report.dataLoss), "blockers": .array(st.report.blockers(rendering: \.jsonPath)),
          ])
        }))
    o.append("dataLoss", .bool(result.stages.contains { !$0.report.dataLoss.isEmpty }))
    return .object(o)
  }
}

/// The JSON form of a migration's outcome, as `migration.apply` returns it (the CLI prints it too).
public func migrationResultJSON(_ result: MigrationResult) -> JSONValue { MigrationHandlers.describe(result) }
