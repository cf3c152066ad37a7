import DatabaseKit
import FileAccess
import JSONCore
import SchemaModel

#if canImport(Glibc)
  import Glibc
#endif

/// How `migrate` runs: with or without permission to drop data, a backup first, or as a
/// dry run that measures every stage and then rolls all of it back.
public struct MigrationOptions {
  public var allowDataLoss = false
  /// Write a consistent copy of the file before the first stage (file stores only).
  public var backup = false
  public var dryRun = false
  public init(allowDataLoss: Bool = false, backup: Bool = false, dryRun: Bool = false) {
    self.allowDataLoss = allowDataLoss
    self.backup = backup
    self.dryRun = dryRun
  }
}

/// The client's part of custom stages, and progress reporting.
public struct MigrationHooks {
  /// Called before the schema change, with the old schema installed; the stage commits
  /// only if it returns. Requests the client makes meanwhile run inside the stage.
  public var willMigrate: ((MigrationStage) throws -> Void)?
  /// Called after the structural change and the transforms, with the new schema installed.
  public var didMigrate: ((MigrationStage) throws -> Void)?
  public var progress: ((_ done: Int, _ total: Int, _ message: String) -> Void)?
  public init() {}
}

/// What a migration did (or, for a dry run, would do), stage by stage.
public struct MigrationResult {
  public struct Stage {
    public var stage: MigrationStage
    public var changes: [SchemaChange]
    public var report: MigrationReport
    public var outcome: Status
    /// `outcome` as the wire spells it.
    public var status: String { outcome.rawValue }
  }
  /// Where a stage stands; the raw values are the wire's.
  public enum Status: String, Sendable, CaseIterable {
    case applied
    /// A dry run's stage that would apply.
    case planned
    case blocked
    /// After a blocked stage.
    case notReached
  }
  public var from: String?
  public var to: String
  public var stages: [Stage] = []
  public var backupPath: String?
}

extension Store {
  /// True while `migrate` runs (a client hook's requests are served meanwhile).
  public var isMigrating: Bool { writes.migrating }

  /// No client transaction is open and no migration runs (`WriteState.atRest`).
  public var isAtRest: Bool { writes.atRest }

  /// Decodes and validates one schema; errors name `path`.
  public static func decodeSchema(_ json: JSONValue, path: ErrorPlace) throws -> Schema {
    let (schema, issues) = SchemaValidator.check(json)
    let errors = issues.filter { $0.severity == .error }
    if !errors.isEmpty {
      throw StoreError(
        .invalidModel,
        "\(place: path) has \(errors.count) problem\(errors.count == 1 ? "" : "s"); first: \(errors[0].path): \(errors[0].message)"
          as ErrorText,
        ["issues": .array(issues.map(\.json))], about: path)
    }
    return schema
  }

  /// Decodes and validates a chain of schema versions, oldest first.
  public func decodeChain(_ schemas: [JSONValue], path: ErrorPlace) throws -> [Schema] {
    guard !schemas.isEmpty else { throw StoreError(.invalidArgument, at: path, "give at least one schema") }
    var seen: Set<String> = []
    return try schemas.enumerated().map { i, json in
      let schema = try Store.decodeSchema(json, path: path.index(i))
      guard seen.insert(schema.version).inserted else {
        throw StoreError(
          .invalidArgument, at: path.index(i), "version '\(schema.version)' appears twice in the chain")
      }
      return schema
    }
  }

  /// Where the store stands in `chain`: the index of its version, or an error saying why
  /// it has none (a newer store, or one written by another chain).
  public func position(in chain: [Schema]) throws -> Int? {
    guard let current = schema else { return nil }
    if let i = chain.lastIndex(where: { $0.versionHash == current.versionHash && $0.version == current.version })
      ?? chain.lastIndex(where: { $0.versionHash == current.versionHash })
    {
      return i
    }
    let held = Set(try schemaHistory().map(\.hash))
    if let passed = chain.lastIndex(where: { held.contains($0.versionHash) }) {
      throw StoreError(
        .schemaMismatch,
        "the store is at version '\(current.version)', newer than this chain: it already moved on from version '\(chain[passed].version)'; the store is left unchanged",
        ["storeVersion": .string(current.version), "storeHash": .string(current.versionHash), "newer": true])
    }
    throw StoreError(
      .schemaMismatch,
      "the store's schema (version '\(current.version)', hash \(current.versionHash.prefix(12))…) is not one of the chain's versions",
      [
        "storeVersion": .string(current.version), "storeHash": .string(current.versionHash),
        "chain": .array(chain.map { .object(["version": .string($0.version), "hash": .string($0.versionHash)]) }),
      ])
  }

  /// Runs every stage from the store's version to the chain's last, each in its own
  /// transaction: a failing stage leaves the store at the last good version.
  public func migrate(
    chain: [Schema], stages: [MigrationStage], options: MigrationOptions, hooks: MigrationHooks = MigrationHooks()
  ) throws -> MigrationResult {
    if !options.dryRun { try checkWritable() }
    try writes.checkSchemaCanChange(.migration)
    // Planned from the schema of one snapshot; each stage checks the store is still there.
    let start = try readingOneSnapshot { try position(in: chain) }
    var result = MigrationResult(from: start.map { chain[$0].version }, to: chain.last!.version)
    let steps = try plannedStages(chain, start: start, stages: stages)
    if steps.isEmpty { return result }
    // A dry run runs every stage for real inside a transaction it rolls back: it writes too.
    if options.dryRun { try checkWritable() }
    var backup: MigrationBackup?
    if options.backup && !options.dryRun {
      backup = try backupBeforeMigration(from: result.from ?? "empty", to: result.to)
      result.backupPath = backup?.shown
    }
    writes.migrating = true
    defer { writes.migrating = false }
    if options.dryRun {
      // Every stage runs for real inside one transaction, which is then rolled back.
      try beginCheckingSchema()
      defer {
        connection.rollback()
        reloadSchemaAfterRollback()
      }
      for (k, (old, new, stage)) in steps.enumerated() {
        if result.stages.last.map({ $0.outcome == .blocked }) ?? false {
          result.stages.append(.init(stage: stage, changes: diff(old, new), report: MigrationReport(), outcome: .notReached))
          continue
        }
        hooks.progress?(k, steps.count, "plan \(stage.from) → \(stage.to)")
        result.stages.append(try dryRunStage(old: old, new: new, stage: stage, options: options))
      }
      return result
    }
    for (k, (old, new, stage)) in steps.enumerated() {
      hooks.progress?(k, steps.count, "migrate \(stage.from) → \(stage.to)")
      do {
        var cookie: Int64?
        let report = try translatingErrors {
          try inStageTransaction {
            let report = try runStage(old: old, new: new, stage: stage, options: options, hooks: hooks)
            cookie = try database.schemaCookie()
            return report
          }
        }
        try install(new, cookie: cookie)
        result.stages.append(.init(stage: stage, changes: diff(old, new), report: report, outcome: .applied))
      } catch var e as StoreError {
        reloadSchemaAfterRollback()
        removeUnusedBackup(backup, result)
        e.details["stage"] = stage.json
        e.details["storeVersion"] = .string(schema?.version ?? "")
        e.text = e.text + " (stage \(stage.from) → \(stage.to) rolled back; the store is at version '\(schema?.version ?? "none")')"
        throw e
      } catch {
        reloadSchemaAfterRollback()
        removeUnusedBackup(backup, result)
        throw error
      }
    }
    hooks.progress?(steps.count, steps.count, "done")
    return result
  }

  private func diff(_ old: Schema?, _ new: Schema) -> [SchemaChange] {
    guard let old else { return new.entities.map { SchemaChange(.addEntity, $0.name, nil, "add entity \($0.name)") } }
    return SchemaDiff(from: old, to: new).changes
  }

  /// The consecutive pairs from `start` to the end, each with its stage (lightweight when
  /// the plan gives none, as SwiftData infers it).
  private func plannedStages(_ chain: [Schema], start: Int?, stages: [MigrationStage]) throws -> [(Schema?, Schema, MigrationStage)] {
    let versions = Set(chain.map(\.version))
    for (i, s) in stages.enumerated() {
      for v in [s.from, s.to] where !versions.contains(v) {
        throw StoreError(
          .invalidArgument, at: ErrorPlace(.stages).index(i), "version '\(v)' is not in the chain")
      }
    }
    guard let start else { return [(nil, chain.last!, MigrationStage(kind: .lightweight, from: "none", to: chain.last!.version))] }
    var out: [(Schema?, Schema, MigrationStage)] = []
    for k in start..<(chain.count - 1) {
      let (a, b) = (chain[k], chain[k + 1])
      let stage =
        stages.first { $0.from == a.version && $0.to == b.version } ?? MigrationStage(kind: .lightweight, from: a.version, to: b.version)
      out.append((a, b, stage))
    }
    return out
  }

  /// A migration refused or failed before any stage was applied leaves the store as the
  /// backup has it: the backup made for it is removed (best effort: it is only a copy).
  private func removeUnusedBackup(_ backup: MigrationBackup?, _ result: MigrationResult) {
    guard result.stages.isEmpty, let backup else { return }
    switch backup {
    case .file(let path): unlink(path)
    case .schema(let location, _): Store.dropBackupStore(location)
    }
  }

  /// Backs the store up before a migration: into a file beside a store file, or into a new
  /// schema of a PostgreSQL store's database; nil for a store that cannot be (in memory).
  private func backupBeforeMigration(from: String, to: String) throws -> MigrationBackup? {
    if let path { return .file(try backupFileBeforeMigration(path, from: from, to: to)) }
    guard let server = database as? PostgresDatabase else { return nil }
    return try backupSchemaBeforeMigration(server, from: from, to: to)
  }

  private func backupFileBeforeMigration(_ path: String, from: String, to: String) throws -> String {
    let safe = MigrationBackup.safe
    var target = "\(path).before-\(safe(from))-to-\(safe(to)).backup"
    var n = 1
    while true {
      do {
        try createBackupFile(target, place: nil)
        break
      } catch let e as StoreError where e.details["reason"] == .string(FileAccessError.Reason.exists.rawValue) {
        n += 1
        target = "\(path).before-\(safe(from))-to-\(safe(to)).\(n).backup"
      }
    }
    do {
      _ = try translatingErrors { try connection.backup(to: target) }
    } catch {
      unlink(target)
      throw error
    }
    return target
  }

  /// One stage inside the caller's transaction.
  func runStage(old: Schema?, new: Schema, stage: MigrationStage, options: MigrationOptions, hooks: MigrationHooks) throws
    -> MigrationReport
  {
    try checkCancelled()
    try database.willChangeSchema()
    if stage.kind == .custom && stage.willMigrate { try hooks.willMigrate?(stage) }
    try checkClientTransactions(stage, "willMigrate")
    var applier = try prepareStage(old: old, new: new, stage: stage, options: options)
    try applier.expand()
    if stage.kind == .custom {
      try install(new)
      for (i, t) in stage.transforms.enumerated() {
        try applier.run(t, path: ErrorPlace(.stages).stage(from: stage.from, to: stage.to).key("transforms").index(i), store: self)
      }
      if stage.didMigrate { try hooks.didMigrate?(stage) }
      try checkClientTransactions(stage, "didMigrate")
    }
    try applier.contract()
    if let old {
      // One history summary per stage: objects change shape, ids may change (renames).
      let log = ChangeLog()
      log.addBulk([
        "op": "bulk", "kind": "migration", "from": .string(old.version), "to": .string(new.version),
        "entities": .array(Set(old.entities.map(\.name)).union(new.entities.map(\.name)).sorted().map { .string($0) }),
      ])
      try appendHistory(log)
    }
    try record(new)
    return applier.report
  }

  private func checkClientTransactions(_ stage: MigrationStage, _ hook: String) throws {
    guard writes.userTransactions > 0 else { return }
    throw StoreError(.transaction, "the client left a transaction open when it answered \(hook) of stage \(stage.from) → \(stage.to)")
  }

  /// Renames, codes for the new schema's entities, then an applier for the rest; a
  /// lightweight stage refuses custom changes.
  private func prepareStage(old: Schema?, new: Schema, stage: MigrationStage, options: MigrationOptions) throws -> StageApplier {
    var applier: StageApplier
    /// The applier sees `_ms_entities` after the renames, with a code for every new entity.
    func codes(_ graphs: ModelGraph...) throws -> EntityCodes {
      try EntityCodes.assign(new, connection: connection)
      let codes = try EntityCodes(connection: connection)
      try codes.readLayout(Set(graphs.flatMap { $0.ordered.filter(\.isRoot).map(\.name) }), connection: connection)
      return codes
    }
    if let old {
      let d = SchemaDiff(from: old, to: new)
      if !d.mapping.conflicts.isEmpty {
        throw StoreError(
          .invalidModel, "the renames of version '\(new.version)' are ambiguous: \(d.mapping.conflicts[0])",
          ["reasons": .array(d.mapping.conflicts.map { .string($0) })])
      }
      if stage.kind == .lightweight && !d.isLightweight {
        let custom = d.changes.filter { !$0.lightweight }
        throw StoreError(
          .migrationRequired,
          "version '\(old.version)' → '\(new.version)' needs a custom stage: \(custom.map(\.message).joined(separator: "; "))",
          ["reasons": .array(custom.map(\.json))])
      }
      var renamer = LayoutRenamer(connection: connection, keys: keys, mapping: d.mapping)
      connection.clearCache()
      try renamer.apply()
      let renamedOld = ModelGraph(d.mapping.renamedOld)
      let newGraph = ModelGraph(new)
      applier = StageApplier(
        connection: connection, codes: try codes(renamedOld, newGraph), keys: keys, old: renamedOld, new: newGraph)
      applier.report.steps = renamer.steps
    } else {
      let newGraph = ModelGraph(new)
      applier = StageApplier(connection: connection, codes: try codes(newGraph), keys: keys, old: nil, new: newGraph)
    }
    applier.allowDataLoss = options.allowDataLoss
    for t in stage.transforms {
      if case .convert(let e, let a, let rule) = t { applier.conversionRules["\(e).\(a)"] = rule }
    }
    return applier
  }

  /// Stores `schema` as the current version, in the caller's transaction.
  func record(_ schema: Schema) throws {
    try setMeta("schema", JSONWriter.encodeString(schema.json))
    try setMeta("schemaVersion", schema.version)
    try setMeta("schemaHash", schema.versionHash)
    try setMeta("entityHashes", JSONWriter.encodeString(Store.entityHashes(schema)))
    try connection.run(
      "INSERT INTO \(StorageLayout.versionsTable) (\"version\", \"hash\", \"schema\", \"appliedAt\") VALUES (?, ?, ?, ?)",
      [.text(schema.version), .text(schema.versionHash), .text(JSONWriter.encodeString(schema.json)), .real(currentTimeSeconds())])
  }

  /// A stage run for real inside the dry run's transaction: its report is exact.
  private func dryRunStage(old: Schema?, new: Schema, stage: MigrationStage, options: MigrationOptions) throws -> MigrationResult.Stage {
    let changes = diff(old, new)
    var report = MigrationReport()
    var status = MigrationResult.Status.planned
    do {
      var applier = try prepareStage(old: old, new: new, stage: stage, options: options)
      defer { report = applier.report }
      if stage.kind == .custom && stage.willMigrate { applier.report.steps.append(.init("client hook willMigrate (not run in a dry run)")) }
      do { try applier.expand() } catch let e as StoreError where e.kind == .migrationRequired { status = .blocked }
      if stage.kind == .custom {
        try install(new)
        for (i, t) in stage.transforms.enumerated() {
          try applier.run(t, path: ErrorPlace(.stages).stage(from: stage.from, to: stage.to).key("transforms").index(i), store: self)
        }
        if stage.didMigrate { applier.report.steps.append(.init("client hook didMigrate (not run in a dry run)")) }
      }
      do { try applier.contract() } catch let e as StoreError where e.kind == .migrationRequired || e.kind == .constraint {
        status = .blocked
        if e.kind == .constraint {
          var o = e.details
          o.append("message", .string(e.message))
          applier.report.blockers.append(.object(o))
        }
      }
    } catch let e as StoreError where e.kind == .migrationRequired || e.kind == .invalidModel {
      status = .blocked
      report.failure = e
    }
    if status == .planned && (!report.blockers.isEmpty || report.failure != nil) { status = .blocked }
    // The next stage starts from this one's result (the caller rolls everything back).
    if status == .planned {
      try record(new)
      try install(new)
    }
    return .init(stage: stage, changes: changes, report: report, outcome: status)
  }
}
