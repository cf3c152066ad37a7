import DatabaseKit
import JSONCore
import SchemaModel

/// Brings the tables from one schema's layout to the next one's, once renames are done
/// (`LayoutRenamer`), in two phases so a custom stage can work in between:
/// `expand` adds tables and columns, converts retyped values and moves relationship links
/// to their new storage, all without dropping anything; `contract` drops what the new
/// schema no longer has (refused when it holds data, unless data loss is allowed), fills
/// required attributes, checks the stored data against the new constraints and rebuilds
/// the indexes. Either phase throws `migrationRequired` with every reason it found.
struct StageApplier {
  let connection: any DatabaseConnection
  /// Entity codes of `_ent`, with every entity of the new schema (and the renamed old one).
  let codes: EntityCodes
  /// Keys of objects a transform creates.
  let keys: KeyAllocator
  /// The store's schema under the new names; nil for a store without one.
  let old: ModelGraph?
  let new: ModelGraph
  var allowDataLoss = false
  /// `Entity.attribute` → what to do with values that do not convert (custom stages).
  var conversionRules: [String: ValueConversion.Rule] = [:]
  var report = MigrationReport()
  /// Columns (`table.column`) and tables whose contents moved elsewhere: dropped freely.
  var moved: Set<String> = []
  var deletedObjects = false
  /// Columns (`table.column`) this stage added, added with a `DEFAULT`, or cleared for
  /// entities that gain them (StageApplier+Defaults); and whether a transform wrote rows.
  var addedColumns: Set<String> = []
  var defaultedColumns: Set<String> = []
  var clearedColumns: Set<String> = []
  var transformsRan = false

  init(connection: any DatabaseConnection, codes: EntityCodes, keys: KeyAllocator, old: ModelGraph?, new: ModelGraph) {
    self.connection = connection
    self.codes = codes
    self.keys = keys
    self.old = old
    self.new = new
  }

  // MARK: - Expand

  mutating func expand() throws {
    try dropStaleIndexes()
    for root in new.ordered where root.isRoot {
      if try tableExists(root.name) {
        try addEntityColumn(root)
        try addAndConvertColumns(root)
      } else {
        try connection.execute(StorageLayout.createTableSQL(root, graph: new, dialect: connection.dialect))
        codes.setTagged(root.name, root.hasSubentities)
        report.steps.append(.init("create table \(root.name)"))
      }
    }
    for (name, sql) in StorageLayout.joinTables(new, dialect: connection.dialect) {
      if try !tableExists(name) {
        for s in sql { try connection.execute(s) }
        report.steps.append(.init("create join table \(name)"))
      } else {
        try upgradeDestinationIndex(name)
      }
    }
    try moveRelationshipLinks()
    try throwIfBlocked("the new schema cannot be applied")
  }

  /// A hierarchy of one entity that gains sub-entities gets `_ent`, its rows reading the
  /// root's code from the column's `DEFAULT` (no row rewritten). A hierarchy that loses its
  /// last sub-entity keeps the column.
  private mutating func addEntityColumn(_ root: EntityModel) throws {
    guard root.hasSubentities, !codes.isTagged(root.name), let code = codes.code(root.name) else { return }
    try connection.execute(StorageLayout.addEntityColumnSQL(root.name, code: code, dialect: connection.dialect))
    codes.setTagged(root.name, true)
    report.steps.append(.init("add column \(root.name)._ent"))
  }

  private mutating func addAndConvertColumns(_ root: EntityModel) throws {
    let table = Identifier.quote(root.name)
    let existing = try existingColumns(root.name)
    for c in StorageLayout.columns(ofHierarchy: root, graph: new) {
      guard let type = existing[c.name] else {
        try addColumn(root, c)
        continue
      }
      if type != connection.dialect.columnType(c.content), try !isConverted(c.name, in: root) {
        // The column held something else (a removed property of another type).
        let values = try count(root.name, where: "t.\(Identifier.quote(c.name)) IS NOT NULL")
        if values > 0 {
          try loseData(
            MigrationReport.place(
              root.name, "'\(c.name)' is replaced by a property of another type; its \(values) stored values are dropped",
              attribute: c.name, count: values))
        }
        try dropIndexes(on: root.name, column: c.name)
        try connection.execute("ALTER TABLE \(table) DROP COLUMN \(Identifier.quote(c.name))")
        try addColumn(root, c, step: false)
        report.steps.append(.init("retype column \(root.name).\(c.name) to \(connection.dialect.columnType(c.content))"))
      }
    }
    try convertRetypedValues(root, existing: existing)
    try clearGainedColumns(root)
  }

  /// True when the column belongs to an attribute that changes type (converted below).
  private func isConverted(_ column: String, in root: EntityModel) throws -> Bool {
    guard let old else { return false }
    for m in root.hierarchy {
      if let a = m.entity.attributes.first(where: { $0.name == column && !$0.transient }),
        let b = old[m.name]?.attribute(column), !b.transient, b.type != a.type
      {
        return true
      }
    }
    return false
  }

  /// Converts each stored value of an attribute whose type changes; a column whose storage
  /// class changes is rebuilt through a temporary column, an O(n) step only for it.
  private mutating func convertRetypedValues(_ root: EntityModel, existing: [String: String]) throws {
    guard let old else { return }
    let table = Identifier.quote(root.name)
    for m in root.hierarchy {
      for a in m.entity.attributes where !a.transient {
        guard let b = old[m.name]?.attribute(a.name), !b.transient, b.type != a.type else { continue }
        let place = "\(m.name).\(a.name)"
        let rule = conversionRules[place] ?? .fail
        let col = Identifier.quote(a.name)
        let newClass = existing[a.name] != connection.dialect.columnType(a.type.columnContent)
        let target = newClass ? "\"_ms_convert\"" : col
        if newClass {
          try connection.execute(
            "ALTER TABLE \(table) ADD COLUMN \"_ms_convert\" \(connection.dialect.columnDefinition(a.type.columnContent))")
        }
        let defaultValue = try a.storedLiteralDefault()
        var writes: [(Int64, SQLValue)] = []
        var failing: [String] = []
        var failures = 0
        let filter = "\(codes.filter(codes.column(root.name), m.concreteNames)) AND \(col) IS NOT NULL"
        try connection.prepare("SELECT \(codes.column(root.name)), \"_pk\", \(col) FROM \(table) WHERE \(filter) ORDER BY \"_pk\"")
          .forEachRow {
            row in
            let stored = row.value(2)
            guard let converted = ValueConversion.convert(stored, from: b.type, to: a.type, rule: rule, defaultValue: defaultValue) else {
              failures += 1
              if failing.count < 20 { failing.append(ObjectID.text(codes.name(row, 0), row.int(1))) }
              return
            }
            if newClass || converted != stored { writes.append((row.int(1), converted)) }
          }
        if failures > 0 {
          report.blockers.append(
            MigrationReport.place(
              m.name,
              "'\(a.name)' changes type from \(b.type.rawValue) to \(a.type.rawValue), and \(failures) stored value\(failures == 1 ? " does" : "s do") not convert exactly"
                + (rule == .fail
                  ? " (a custom stage can convert them with a 'convert' transform and a rule)" : " with rule '\(rule.rawValue)'"),
              attribute: a.name, count: failures, ids: failing))
          if newClass { try connection.execute("ALTER TABLE \(table) DROP COLUMN \"_ms_convert\"") }
          continue
        }
        let update = try connection.prepare("UPDATE \(table) SET \(target) = ? WHERE \"_pk\" = ?")
        for (pk, value) in writes { try update.execute([value, .integer(pk)]) }
        if newClass {
          try dropIndexes(on: root.name, column: a.name)
          try connection.execute("ALTER TABLE \(table) DROP COLUMN \(col)")
          try connection.execute("ALTER TABLE \(table) RENAME COLUMN \"_ms_convert\" TO \(col)")
        }
        report.steps.append(.init("convert \(place) from \(b.type.rawValue) to \(a.type.rawValue)", rows: writes.count))
      }
    }
  }

  // MARK: - Contract

  mutating func contract() throws {
    var wantedTables = Set(new.ordered.filter(\.isRoot).map(\.name))
    for name in StorageLayout.joinTableNames(new) { wantedTables.insert(name) }
    for table in try managedTables() where !wantedTables.contains(table) {
      let rows = try count(table)
      if rows > 0 && !moved.contains(table) {
        let isJoin = table.hasPrefix("_J_")
        try loseData(
          MigrationReport.place(
            isJoin ? String(table.dropFirst(3)) : table,
            isJoin
              ? "the relationship stored in '\(table)' is removed with its \(rows) links"
              : "entity '\(table)' is removed with its \(rows) objects", count: rows))
      }
      guard allowDataLoss || rows == 0 || moved.contains(table) else { continue }
      try connection.execute("DROP TABLE \(Identifier.quote(table))")
      report.steps.append(.init(rows == 0 ? "drop empty table \(table)" : "drop table \(table)", rows: rows))
      if rows > 0 && !table.hasPrefix("_J_") { deletedObjects = true }
    }
    for root in new.ordered where root.isRoot {
      try removeObjectsOfRemovedEntities(root)
      try dropRemovedColumns(root)
    }
    if old != nil { try checkMovedEntities() }
    if deletedObjects { try clearDanglingLinks() }
    for root in new.ordered where root.isRoot { try fillRequired(root) }
    try throwIfBlocked("the new schema cannot be applied")
    try createIndexes()
  }

  /// Objects whose entity the new hierarchy no longer has (or that became abstract).
  private mutating func removeObjectsOfRemovedEntities(_ root: EntityModel) throws {
    guard mayHoldOtherEntities(root) else { return }
    let table = Identifier.quote(root.name)
    var counts: [(Int64, String, Int)] = []
    let ent = codes.column(root.name)
    try connection.prepare(
      codes.countsSQL(root.name, from: "\(table) WHERE \(ent) NOT IN (\(codes.list(root.hierarchy.flatMap(\.concreteNames))))")
    ).forEachRow { if $0.int(1) > 0 { counts.append(($0.int(0), codes.name($0, 0), Int($0.int(1)))) } }
    for (code, entity, n) in counts {
      if let model = new[entity], model.root === root {
        var ids: [String] = []
        try connection.prepare("SELECT \"_pk\" FROM \(table) WHERE \(ent) = ? ORDER BY \"_pk\" LIMIT 20").forEachRow([.integer(code)]) {
          ids.append(ObjectID.text(entity, $0.int(0)))
        }
        report.blockers.append(
          MigrationReport.place(entity, "\(entity) becomes abstract, but \(n) objects are exactly \(entity)", count: n, ids: ids))
        continue
      }
      if new[entity] != nil { continue }  // moved to another hierarchy: checkMovedEntities reports it
      let merged = moved.contains("entity:\(entity)")
      if !merged { try loseData(MigrationReport.place(entity, "entity '\(entity)' is removed with its \(n) objects", count: n)) }
      if allowDataLoss || merged {
        try connection.run("DELETE FROM \(table) WHERE \(ent) = ?", [.integer(code)])
        report.steps.append(.init("delete the objects of removed entity \(entity)", rows: n))
        deletedObjects = true
      }
    }
  }

  private mutating func dropRemovedColumns(_ root: EntityModel) throws {
    let table = Identifier.quote(root.name)
    let wanted = Set(StorageLayout.columns(ofHierarchy: root, graph: new).map(\.name))
    for (name, _) in try existingColumns(root.name).sorted(by: { $0.key < $1.key }) where !wanted.contains(name) {
      if name == "_pk" || name == "_ent" || name == "_opt" { continue }
      let values = name.hasPrefix("_") ? 0 : try count(root.name, where: "t.\(Identifier.quote(name)) IS NOT NULL")
      if values > 0 && !moved.contains("\(root.name).\(name)") {
        // The column held an attribute or a to-one relationship of the old version.
        let link = old?.ordered.first { $0.root.name == root.name && $0.entity.relationships.contains { $0.name == name && !$0.toMany } }
        try loseData(
          link.map {
            MigrationReport.place(
              $0.name, "relationship '\($0.name).\(name)' is removed with its \(values) link\(values == 1 ? "" : "s")", relationship: name,
              count: values)
          }
            ?? MigrationReport.place(
              root.name, "'\(name)' is removed with its \(values) stored value\(values == 1 ? "" : "s")", attribute: name, count: values))
        guard allowDataLoss else { continue }
      }
      try dropIndexes(on: root.name, column: name)
      try connection.execute("ALTER TABLE \(table) DROP COLUMN \(Identifier.quote(name))")
      if !name.hasPrefix("_") {
        report.steps.append(
          .init(values == 0 ? "drop empty column \(root.name).\(name)" : "drop column \(root.name).\(name)", rows: values))
      }
    }
  }

  /// An entity moving to another hierarchy would need its rows moved between tables.
  private mutating func checkMovedEntities() throws {
    guard let old else { return }
    for m in new.ordered {
      guard let before = old[m.name], before.root.name != m.root.name, try tableExists(before.root.name) else { continue }
      let n = try count(before.root.name, where: codes.filter(codes.column(before.root.name, alias: "t"), [m.name]))
      if n > 0 {
        report.blockers.append(
          MigrationReport.place(
            m.name, "entity '\(m.name)' moves from hierarchy '\(before.root.name)' to '\(m.root.name)' and has \(n) stored objects",
            count: n))
      }
    }
  }

  // MARK: - Helpers

  /// Records data the stage drops; without permission it also stops the stage (the
  /// blocker is the same entry as in `dataLoss`: `MigrationReport.blockers(rendering:)`
  /// adds the advice, naming the permission as the caller's transport does).
  mutating func loseData(_ place: JSONValue) throws {
    report.dataLoss.append(place)
    if !allowDataLoss { report.blockers.append(place) }
  }

  func throwIfBlocked(_ what: String) throws {
    guard !report.blockers.isEmpty else { return }
    let n = report.blockers.count
    var details: JSONObject = ["reasons": .array(report.blockers)]
    if !report.dataLoss.isEmpty { details.append("dataLoss", .array(report.dataLoss)) }
    let first = report.blockers[0]
    let place = [first["entity"]?.stringValue, first["attribute"]?.stringValue ?? first["relationship"]?.stringValue].compactMap { $0 }
    var text: ErrorText = "\(what): \(place.joined(separator: ".")): \(first["message"]?.stringValue ?? "")"
    if report.blockers.contains(where: { report.dataLoss.contains($0) }) { text = text + MigrationReport.dataLossAdvice }
    if n > 1 { text = text + " (and \(n - 1) more reasons in data.reasons)" }
    throw StoreError(.migrationRequired, text, details)
  }

  func tableExists(_ name: String) throws -> Bool { try connection.hasTable(name) }

  /// The store's tables but its bookkeeping, by the engine's names of them.
  func managedTables() throws -> [String] {
    var out: [String] = []
    let names = knownNames()
    try connection.prepare(connection.dialect.tablesSQL).forEachRow { out.append(names[$0.text(0)] ?? $0.text(0)) }
    return out
  }

  func count(_ table: String, where filter: String? = nil) throws -> Int {
    let sql = "SELECT count(*) FROM \(Identifier.quote(table)) t" + (filter.map { " WHERE \($0)" } ?? "")
    if case .integer(let n)? = try connection.scalar(sql) { return Int(n) }
    return 0
  }

  /// The columns of `table` (their types), by the engine's names of them.
  func existingColumns(_ table: String) throws -> [String: String] {
    var out: [String: String] = [:]
    let names = knownNames()
    try connection.forEachColumn(of: table) { name, type in out[names[name] ?? name] = type }
    return out
  }

  /// The names of the tables and columns of both versions, by the names the database keeps
  /// (PostgreSQL's short forms of names longer than 63 bytes, `SQLDialect.storedName`), so
  /// what a catalog lists is compared with the schemas' names.
  private func knownNames() -> [String: String] {
    let dialect = connection.dialect
    guard dialect.identifierLimit != nil else { return [:] }
    var out: [String: String] = [:]
    for graph in [old, new].compactMap({ $0 }) {
      for root in graph.ordered where root.isRoot {
        for name in [root.name] + StorageLayout.columns(ofHierarchy: root, graph: graph).map(\.name) {
          out[dialect.storedName(name)] = name
        }
      }
      for name in StorageLayout.joinTableNames(graph) { out[dialect.storedName(name)] = name }
    }
    return out
  }

  /// The managed indexes (`_ix_`, `_ux_`, `_fk_`) in the store: name → CREATE statement.
  func managedIndexes() throws -> [String: String] {
    var out: [String: String] = [:]
    try connection.prepare(connection.dialect.managedIndexesSQL).forEachRow { out[$0.text(0)] = $0.text(1) }
    return out
  }

  /// The index statements the new schema wants.
  func wantedIndexes() -> Set<String> {
    Set(new.ordered.filter(\.isRoot).flatMap { StorageLayout.indexSQL($0, graph: new, codes: codes) })
  }

  /// Drops the managed indexes whose definition the new schema does not want (and second
  /// copies of one); the others stay under their names, so a stage rebuilds only the
  /// indexes it changes (big tables migrate fast). See StageApplier+Indexes.
  private func dropStaleIndexes() throws {
    let wanted = Set(wantedIndexes().map { Self.indexDefinition(connection.dialect.storedNames(inSQL: $0)) })
    var kept: Set<String> = []
    for (name, sql) in try managedIndexes().sorted(by: { $0.key < $1.key }) {
      let definition = Self.indexDefinition(sql)
      if wanted.contains(definition) && kept.insert(definition).inserted { continue }
      try connection.execute("DROP INDEX \(Identifier.quote(name))")
    }
  }

  /// Files written before the destination index covered `dpos` get the current one.
  private func upgradeDestinationIndex(_ table: String) throws {
    let wanted = StorageLayout.destinationIndexSQL(table)
    let current = try connection.scalar(connection.dialect.indexDefinitionSQL, [.text(connection.dialect.storedName(table + "_dst"))])
    guard current != .text(connection.dialect.storedNames(inSQL: wanted)) else { return }
    try connection.execute("DROP INDEX IF EXISTS \(Identifier.quote(table + "_dst"))")
    try connection.execute(wanted)
  }

  /// Drops every index that covers `column` of `table` (before the column is dropped).
  func dropIndexes(on table: String, column: String) throws {
    var names: [String] = []
    let (storedTable, storedColumn) = (connection.dialect.storedName(table), connection.dialect.storedName(column))
    try connection.prepare(connection.dialect.indexesOnColumnSQL).forEachRow([.text(storedTable), .text(storedColumn)]) {
      names.append($0.text(0))
    }
    let destinationIndex = connection.dialect.storedName(table + "_dst")
    for n in names where !n.hasSuffix("_dst") && n != destinationIndex { try connection.execute("DROP INDEX \(Identifier.quote(n))") }
  }
}
