import JSONCore
import SQLiteCore
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

  /// Installs `json` as the store's schema. A change that only adds (entities, optional or
  /// defaulted attributes, relationships, indexes) or removes empty structure is applied in
  /// place; anything that would lose or rewrite stored values fails with
  /// `migrationRequired`, naming each reason, and changes nothing.
  public func define(_ json: JSONValue) throws -> DefineResult {
    try checkWritable()
    if userTransactions > 0 {
      // A rollback would undo the tables but not the installed schema.
      throw StoreError(.transaction, "model.define cannot run inside a client transaction; commit or roll back first")
    }
    let (schema, issues) = SchemaValidator.check(json)
    let errors = issues.filter { $0.severity == .error }
    if !errors.isEmpty {
      throw StoreError(
        .invalidModel,
        "the schema has \(errors.count) problem\(errors.count == 1 ? "" : "s"); first: \(errors[0].path): \(errors[0].message)",
        ["issues": .array(issues.map(\.json))])
    }
    if let current = graph?.schema, current == schema { return DefineResult(schema: schema, changed: false, steps: []) }
    let target = ModelGraph(schema)
    var steps: [String] = []
    try translatingErrors {
      try connection.inTransaction {
        connection.clearCache()
        var applier = SchemaApplier(connection: connection, old: graph, new: target)
        steps = try applier.apply()
        try setMeta("schema", JSONWriter.encodeString(schema.json))
        try setMeta("schemaVersion", schema.version)
        try setMeta("schemaHash", schema.versionHash)
        try setMeta("entityHashes", JSONWriter.encodeString(Store.entityHashes(schema)))
        try connection.run(
          "INSERT INTO \(StorageLayout.versionsTable) (\"version\", \"hash\", \"schema\", \"appliedAt\") VALUES (?, ?, ?, ?)",
          [.text(schema.version), .text(schema.versionHash), .text(JSONWriter.encodeString(schema.json)), .real(currentTimeSeconds())])
      }
    }
    install(schema)
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
}

/// Brings the tables from one schema's layout to another's, refusing anything that
/// would drop or rewrite stored values (that is `migration.apply`'s job).
struct SchemaApplier {
  let connection: Connection
  let old: ModelGraph?
  let new: ModelGraph
  var steps: [String] = []
  var blockers: [JSONValue] = []

  init(connection: Connection, old: ModelGraph?, new: ModelGraph) {
    self.connection = connection
    self.old = old
    self.new = new
  }

  mutating func apply() throws -> [String] {
    try dropManagedIndexes()
    var wantedTables: Set<String> = []
    for root in new.ordered where root.isRoot {
      wantedTables.insert(root.name)
      if try tableExists(root.name) {
        try alter(root)
      } else {
        try connection.execute(StorageLayout.createTableSQL(root, graph: new))
        steps.append("create table \(root.name)")
      }
    }
    for (name, sql) in StorageLayout.joinTables(new) {
      wantedTables.insert(name)
      if try !tableExists(name) {
        for s in sql { try connection.execute(s) }
        steps.append("create join table \(name)")
      }
    }
    for table in try managedTables() where !wantedTables.contains(table) {
      if try rowCount(table) > 0 {
        blockers.append(reason("table '\(table)' holds objects of an entity or relationship the new schema removes", entity: table))
      } else {
        try connection.execute("DROP TABLE \(Identifier.quote(table))")
        steps.append("drop empty table \(table)")
      }
    }
    if old != nil { try checkMovedEntities() }
    guard blockers.isEmpty else {
      throw StoreError(
        .migrationRequired,
        "the new schema cannot be applied in place: \(blockers.count) change\(blockers.count == 1 ? "" : "s") would lose or rewrite stored data",
        ["reasons": .array(blockers)])
    }
    for root in new.ordered where root.isRoot {
      for sql in StorageLayout.indexSQL(root, graph: new) {
        do { try connection.execute(sql) } catch let e as SQLiteError where e.isConstraint {
          throw StoreError(
            .constraint, "a uniqueness constraint of '\(root.name)' does not hold for the stored objects: \(e.message)",
            ["entity": .string(root.name)])
        }
      }
    }
    return steps
  }

  private func reason(_ message: String, entity: String, attribute: String? = nil, ids: [String] = []) -> JSONValue {
    var o: JSONObject = ["entity": .string(entity), "message": .string(message)]
    if let attribute { o.append("attribute", .string(attribute)) }
    if !ids.isEmpty { o.append("ids", .array(ids.map { .string($0) })) }
    return .object(o)
  }

  private func tableExists(_ name: String) throws -> Bool {
    try connection.scalar("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?", [.text(name)]) != nil
  }

  private func managedTables() throws -> [String] {
    var out: [String] = []
    try connection.prepare(
      "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE '\\_ms\\_%' ESCAPE '\\' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'"
    ).forEachRow { out.append($0.text(0)) }
    return out
  }

  private func rowCount(_ table: String, where filter: String = "") throws -> Int64 {
    let statement = try connection.prepare("SELECT count(*) FROM \(Identifier.quote(table)) t\(filter)")
    if case .integer(let n)? = try statement.first([], { $0.value(0) }) {
      return n
    }
    return 0
  }

  private func dropManagedIndexes() throws {
    var names: [String] = []
    try connection.prepare(
      "SELECT name FROM sqlite_schema WHERE type = 'index' AND (name LIKE '\\_ix\\_%' ESCAPE '\\' OR name LIKE '\\_ux\\_%' ESCAPE '\\' OR name LIKE '\\_fk\\_%' ESCAPE '\\')"
    ).forEachRow { names.append($0.text(0)) }
    for n in names { try connection.execute("DROP INDEX \(Identifier.quote(n))") }
  }

  private func existingColumns(_ table: String) throws -> [String: String] {
    var out: [String: String] = [:]
    try connection.prepare("SELECT name, type FROM pragma_table_info(?)").forEachRow([.text(table)]) {
      out[$0.text(0)] = $0.text(1)
    }
    return out
  }

  /// Adds missing columns, drops unused empty ones, fills defaults, and records blockers.
  private mutating func alter(_ root: EntityModel) throws {
    let table = Identifier.quote(root.name)
    let existing = try existingColumns(root.name)
    let wanted = StorageLayout.columns(ofHierarchy: root, graph: new)
    let wantedNames = Set(wanted.map(\.name))
    for c in wanted {
      if let type = existing[c.name] {
        if type != c.affinity {
          if try rowCount(root.name, where: " WHERE t.\(Identifier.quote(c.name)) IS NOT NULL") > 0 {
            blockers.append(
              reason(
                "'\(c.name)' changes storage type from \(type) to \(c.affinity) and has stored values", entity: root.name, attribute: c.name
              ))
          } else {
            try connection.execute("ALTER TABLE \(table) DROP COLUMN \(Identifier.quote(c.name))")
            try connection.execute("ALTER TABLE \(table) ADD COLUMN \(Identifier.quote(c.name)) \(c.affinity)")
            steps.append("retype empty column \(root.name).\(c.name) to \(c.affinity)")
          }
        }
      } else {
        try connection.execute("ALTER TABLE \(table) ADD COLUMN \(Identifier.quote(c.name)) \(c.affinity)")
        steps.append("add column \(root.name).\(c.name)")
      }
    }
    for (name, _) in existing where !name.hasPrefix("_") && !wantedNames.contains(name) {
      if try rowCount(root.name, where: " WHERE t.\(Identifier.quote(name)) IS NOT NULL") > 0 {
        blockers.append(reason("'\(name)' is removed but has stored values", entity: root.name, attribute: name))
      } else {
        try connection.execute("ALTER TABLE \(table) DROP COLUMN \(Identifier.quote(name))")
        steps.append("drop empty column \(root.name).\(name)")
      }
    }
    for (name, _) in existing where name.hasPrefix("_pos_") && !wantedNames.contains(name) {
      try connection.execute("ALTER TABLE \(table) DROP COLUMN \(Identifier.quote(name))")
    }
    try recheckRetypedValues(root)
    try fillRequired(root)
  }

  /// An attribute whose type changes within one storage class (`string` → `uuid`,
  /// `int64` → `int16`) keeps its column, so each stored value is converted to the new
  /// type here: rewritten when its canonical form differs, reported when it does not fit.
  private mutating func recheckRetypedValues(_ root: EntityModel) throws {
    guard let old else { return }
    let table = Identifier.quote(root.name)
    for m in root.hierarchy {
      guard let before = old[m.name] else { continue }
      for a in m.entity.attributes where !a.transient {
        guard let previous = before.attribute(a.name), !previous.transient, previous.type != a.type,
          previous.type.columnAffinity == a.type.columnAffinity
        else { continue }
        let col = Identifier.quote(a.name)
        let filter = "\"_ent\" IN (\(m.concreteNames.map { "'\($0)'" }.joined(separator: ", "))) AND \(col) IS NOT NULL"
        var rewrites: [(Int64, SQLValue)] = []
        var failing: [String] = []
        try connection.prepare("SELECT \"_ent\", \"_pk\", \(col) FROM \(table) WHERE \(filter)").forEachRow { row in
          let stored = row.value(2)
          if let converted = try? a.type.encode(previous.type.decode(stored)) {
            if converted != stored { rewrites.append((row.int(1), converted)) }
          } else if failing.count < 20 {
            failing.append("\(row.text(0))/\(row.int(1))")
          }
        }
        if !failing.isEmpty {
          blockers.append(
            reason(
              "'\(a.name)' changes type from \(previous.type.rawValue) to \(a.type.rawValue), and stored values do not fit the new type",
              entity: m.name, attribute: a.name, ids: failing))
          continue
        }
        let update = try connection.prepare("UPDATE \(table) SET \(col) = ? WHERE \"_pk\" = ?")
        for (pk, value) in rewrites { try update.execute([value, .integer(pk)]) }
        steps.append("retype \(m.name).\(a.name) from \(previous.type.rawValue) to \(a.type.rawValue)" + (rewrites.isEmpty ? "" : " (\(rewrites.count) values rewritten)"))
      }
    }
  }

  /// Required attributes with nulls get their default; without one, the ids are reported.
  private mutating func fillRequired(_ root: EntityModel) throws {
    let table = Identifier.quote(root.name)
    for m in root.hierarchy {
      let filter = "t.\"_ent\" IN (\(m.concreteNames.map { "'\($0)'" }.joined(separator: ", ")))"
      for a in m.entity.attributes where !a.transient && !a.optional {
        let col = Identifier.quote(a.name)
        let nullFilter = " WHERE \(filter) AND t.\(col) IS NULL"
        guard try rowCount(root.name, where: nullFilter) > 0 else { continue }
        switch a.defaultValue {
        case .literal(let v)?:
          try connection.prepare("UPDATE \(table) AS t SET \(col) = ?\(nullFilter)").execute([try a.type.encode(v)])
          steps.append("fill \(m.name).\(a.name) with its default")
        case .generate(let g)?:
          var pks: [Int64] = []
          try connection.prepare("SELECT t.\"_pk\" FROM \(table) t\(nullFilter)").forEachRow { pks.append($0.int(0)) }
          let update = try connection.prepare("UPDATE \(table) SET \(col) = ? WHERE \"_pk\" = ?")
          for pk in pks {
            let value: SQLValue = g == .uuid ? .text(UUIDText.random()) : .real(currentTimeSeconds())
            try update.execute([value, .integer(pk)])
          }
          steps.append("fill \(m.name).\(a.name) with generated values")
        case nil:
          var ids: [String] = []
          try connection.prepare("SELECT t.\"_ent\", t.\"_pk\" FROM \(table) t\(nullFilter) LIMIT 20").forEachRow {
            ids.append("\($0.text(0))/\($0.int(1))")
          }
          blockers.append(
            reason(
              "'\(a.name)' is required and has no default, but stored objects have no value for it", entity: m.name, attribute: a.name,
              ids: ids))
        }
      }
    }
  }

  /// An entity moving to another hierarchy would need its rows moved between tables.
  private mutating func checkMovedEntities() throws {
    guard let old else { return }
    for m in new.ordered {
      guard let before = old[m.name], before.root.name != m.root.name else { continue }
      if try rowCount(before.root.name, where: " WHERE t.\"_ent\" = '\(m.name)'") > 0 {
        blockers.append(
          reason("entity '\(m.name)' moves from hierarchy '\(before.root.name)' to '\(m.root.name)' and has stored objects", entity: m.name)
        )
      }
    }
  }
}
