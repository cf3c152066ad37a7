import DatabaseKit
import JSONCore
import SchemaModel

/// The outcome of `define`: what the store now holds and what changed.
public struct DefineResult {
  public var schema: Schema
  public var changed: Bool
  /// Human-readable steps applied (`create table Task`, `add column Task.priority`, ...).
  public var steps: [String]
}

extension Store {
  public var schema: Schema? { graph?.schema }

  /// Checks a schema without installing it.
  public func validate(_ json: JSONValue) -> (Schema, [SchemaIssue]) { SchemaValidator.check(json) }

  /// Installs `json` as the store's schema, migrating the store to it in one lightweight
  /// stage when that is safe: renames (`originalName`), additions, removals of empty
  /// structure, widenings and conversions every stored value allows. Anything that would
  /// drop stored data or needs a custom stage fails with `migrationRequired`, naming each
  /// reason, and changes nothing.
  public func define(_ json: JSONValue) throws -> DefineResult {
    try checkWritable()
    try writes.checkSchemaCanChange(.define)
    let (schema, issues) = SchemaValidator.check(json)
    let errors = issues.filter { $0.severity == .error }
    if !errors.isEmpty {
      throw StoreError(
        .invalidModel,
        "the schema has \(errors.count) problem\(errors.count == 1 ? "" : "s"); first: \(errors[0].path): \(errors[0].message)",
        ["issues": .array(issues.map(\.json))])
    }
    let unchanged = DefineResult(schema: schema, changed: false, steps: [])
    // Already the store's schema, as one snapshot sees it: nothing to write.
    if try readingOneSnapshot({ graph?.schema == schema }) { return unchanged }
    var steps: [String]?
    var cookie: Int64?
    try translatingErrors {
      // Run again after a conflict (DDL waiting for another server's readers may deadlock).
      try retryingConflicts(connection.transactionDepth == 0 ? {} : nil) {
        // The stage is planned from the schema this transaction sees, under the write lock.
        try inWriteTransaction(rerun: nil) {
          steps = nil
          guard graph?.schema != schema else { return }
          connection.clearCache()
          // A lightweight stage: renames through originalName, additive changes, and changes
          // the stored data allows; never dropping data.
          let stage = MigrationStage(kind: .lightweight, from: graph?.schema.version ?? "none", to: schema.version)
          steps = try runStage(old: graph?.schema, new: schema, stage: stage, options: MigrationOptions(), hooks: MigrationHooks()).steps
            .map(\.action)
          cookie = try database.schemaCookie()
        }
      }
    }
    guard let steps else { return unchanged }
    try install(schema, cookie: cookie)
    return DefineResult(schema: schema, changed: true, steps: steps)
  }

  /// `{entity: versionHash}` for every entity, as stored beside the schema.
  static func entityHashes(_ schema: Schema) -> JSONValue {
    .object(JSONObject(schema.entities.map { JSONObject.Member($0.name, .string($0.versionHash)) }))
  }

  /// Every schema version this store has held, oldest first.
  public func schemaHistory() throws -> [(version: String, hash: String, appliedAt: Double)] {
    var out: [(String, String, Double)] = []
    try connection.cached("SELECT \"version\", \"hash\", \"appliedAt\" FROM \(StorageLayout.versionsTable) ORDER BY \"seq\"")
      .forEachRow { out.append(($0.text(0), $0.text(1), $0.double(2))) }
    return out
  }

  /// The schema of every version this store has held, oldest first (`model.diagram` draws
  /// one, or two side by side). A stored schema that does not validate is `schemaMismatch`.
  public func heldSchemas() throws -> [Schema] {
    var texts: [(String, String)] = []
    try connection.cached("SELECT \"version\", \"schema\" FROM \(StorageLayout.versionsTable) ORDER BY \"seq\"")
      .forEachRow { texts.append(($0.text(0), $0.text(1))) }
    return try texts.map { version, text in
      let (schema, issues) = SchemaValidator.check(try JSONParser.parse(text))
      if let error = issues.first(where: { $0.severity == .error }) {
        throw StoreError(.schemaMismatch, "the schema of version '\(version)' stored in this file does not validate: \(error.message)")
      }
      return schema
    }
  }
}
