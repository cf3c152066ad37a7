import DatabaseKit
import JSONCore
import SchemaModel

/// The tables of one store copied into a new store (`StoreCopy`), row by row as stored, in
/// one snapshot of the source and inside the target's open write transaction:
/// `_ms_entities` (so `_ent` codes mean the same), `_ms_meta` (the schema, its hashes, when
/// the store was made), `_ms_schema_versions` (every version with its number), `_ms_keys`,
/// then each hierarchy table and join table of the schema, made in the target's dialect and
/// filled in key order, their indexes built after the rows, and the history if asked. Rows
/// are read a page at a time by key (a PostgreSQL result is held whole, so pages bound the
/// memory) and written many to a statement. Each table's count is checked at the end.
struct TableCopier {
  let source: Store
  let target: Store
  let history: Bool
  let progress: StoreCopy.Progress

  /// Rows read per statement from the source.
  static let pageRows = 2000
  /// Parameters per INSERT statement into the target (SQLite before 3.32 took at most 999).
  static let parametersPerInsert = 999

  func run() throws -> StoreCopy.Summary {
    // Written to the target as it is read: the source's schema is checked before anything is.
    try source.readingOneSnapshot(rerunnable: false) { try target.translatingErrors { try copyAll() } }
  }

  private var from: any DatabaseConnection { source.connection }
  private var to: any DatabaseConnection { target.connection }

  private func copyAll() throws -> StoreCopy.Summary {
    var summary = StoreCopy.Summary()
    _ = try copy(EntityCodes.table, columns: ["code", "name"], key: ["code"])
    try from.prepare("SELECT \"key\", \"value\" FROM \(StorageLayout.metaTable) ORDER BY \"key\"").forEachRow { row in
      // `commits` counts a PostgreSQL store's own commits (the target keeps its own).
      if row.text(0) != "commits" { try target.setMeta(row.text(0), row.text(1)) }
    }
    summary.schemaVersions = try copy(
      StorageLayout.versionsTable, columns: ["seq", "version", "hash", "schema", "appliedAt"], key: ["seq"])
    try from.prepare("SELECT \"name\", \"max\" FROM \(KeyAllocator.table)").forEachRow {
      try KeyAllocator.raise($0.text(0), to: $0.int(1), connection: to)
    }
    try target.database.followCopiedIdentities()
    if let text = try Store.meta("schema", from) {
      let (schema, issues) = SchemaValidator.check(try JSONParser.parse(text))
      if let e = issues.first(where: { $0.severity == .error }) {
        throw StoreError(.schemaMismatch, "the schema stored in the source does not validate: \(e.message)")
      }
      try copyObjects(ModelGraph(schema), &summary)
    }
    try copyHistory(&summary)
    return summary
  }

  // MARK: - Objects and links

  private func copyObjects(_ graph: ModelGraph, _ summary: inout StoreCopy.Summary) throws {
    let roots = graph.ordered.filter(\.isRoot)
    let joins = StorageLayout.joinTables(graph, dialect: to.dialect)
    for table in roots.map(\.name) + joins.map(\.name) where !(try from.hasTable(table)) {
      throw StoreError(.schemaMismatch, "the source has no table '\(table)', which its schema needs", ["table": .string(table)])
    }
    let objects = try roots.reduce(0) { $0 + (try count([$1.name], on: from)) }
    var copied = 0
    for root in roots {
      let have = try source.database.columnNames(root.name)
      // The target's layout is this version's (`_ent` for several entities, `_opt` once a
      // row was updated), from what the source's rows hold.
      let table = Identifier.quote(root.name)
      let code = try EntityCodes(connection: from).code(root.name) ?? 0
      let foreign = have.contains("_ent") ? try from.scalar("SELECT 1 FROM \(table) WHERE \"_ent\" <> ? LIMIT 1", [.integer(code)]) : nil
      let tagged = root.hasSubentities || foreign != nil
      let updated = have.contains("_opt") ? try from.scalar("SELECT 1 FROM \(table) WHERE \"_opt\" <> 1 LIMIT 1") : nil
      let versioned = updated != nil
      try to.execute(
        StorageLayout.createTableSQL(root, graph: graph, dialect: to.dialect, entityColumn: tagged, versionColumn: versioned))
      let columns =
        ["_pk"] + (tagged ? ["_ent"] : []) + (versioned ? ["_opt"] : [])
        + StorageLayout.columns(ofHierarchy: root, graph: graph).map(\.name)
      if let missing = columns.first(where: { !have.contains(from.dialect.storedName($0)) }) {
        throw StoreError(
          .schemaMismatch, "the source's table '\(root.name)' has no column '\(missing)', which its schema needs",
          ["table": .string(root.name), "column": .string(missing)])
      }
      let rows = try copy(root.name, columns: columns, key: ["_pk"]) {
        copied += $0; try progress(.objects, copied, objects)
      }
      if rows > 0, case .integer(let top)? = try to.scalar("SELECT max(\"_pk\") FROM \(Identifier.quote(root.name))") {
        try KeyAllocator.raise(root.name, to: top, connection: to)
      }
    }
    let links = try count(joins.map(\.name), on: from)
    var linked = 0
    for join in joins {
      try to.execute(join.sql[0])
      try copy(join.name, columns: ["src", "dst", "spos", "dpos"], key: ["src", "dst"]) {
        linked += $0; try progress(.links, linked, links)
      }
    }
    summary.links = linked
    let codes = try EntityCodes(connection: to)
    try codes.readLayout(roots.map(\.name), connection: to)
    for root in roots { try buildIndexes(root.name, StorageLayout.indexSQL(root, graph: graph, codes: codes)) }
    for join in joins { try buildIndexes(join.name, Array(join.sql.dropFirst())) }
    summary.objects = try entityCounts(graph, roots: roots)
  }

  /// Builds a table's indexes once its rows are in (a source whose rows break a uniqueness
  /// its schema declares fails here, naming the table).
  private func buildIndexes(_ table: String, _ statements: [String]) throws {
    for sql in statements {
      do {
        try to.execute(sql)
      } catch let e as any DatabaseError {
        var error = StoreError(sqlite: e)
        error.text = "cannot build the indexes of '\(table)' in the target: " + error.text
        error.details["table"] = .string(table)
        throw error
      }
    }
  }

  /// Objects per concrete entity, as the source holds them.
  private func entityCounts(_ graph: ModelGraph, roots: [EntityModel]) throws -> [(entity: String, count: Int)] {
    let codes = try EntityCodes(connection: from)
    try codes.readLayout(roots.map(\.name), connection: from)
    var counts: [String: Int] = [:]
    for root in roots {
      try from.prepare(codes.countsSQL(root.name, from: Identifier.quote(root.name))).forEachRow {
        counts[codes.name($0, 0), default: 0] += Int($0.int(1))
      }
    }
    return graph.ordered.filter { !$0.entity.abstract }.map { ($0.name, counts[$0.name] ?? 0) }
  }

  // MARK: - History

  /// The history transactions, or without them the largest token (in `_ms_keys`), so that
  /// the copy's tokens go on after every one the source gave.
  private func copyHistory(_ summary: inout StoreCopy.Summary) throws {
    guard try from.hasTable(Store.historyTable) else { return }
    if history {
      let total = try count([Store.historyTable], on: from)
      summary.historyTransactions = try copy(Store.historyTable, columns: ["token", "timestamp", "author", "changes"], key: ["token"]) {
        try progress(.history, $0, total)
      }
    }
    if !history, case .integer(let top)? = try from.scalar("SELECT max(\"token\") FROM \(Store.historyTable)") {
      try KeyAllocator.raise(Store.historyTable, to: top, connection: to)
    }
  }

  // MARK: - Rows

  private func count(_ tables: [String], on connection: any DatabaseConnection) throws -> Int {
    try tables.reduce(0) { total, table in
      guard case .integer(let n)? = try connection.scalar("SELECT count(*) FROM \(Identifier.quote(table))") else { return total }
      return total + Int(n)
    }
  }

  /// Copies every row of `table` (`columns`, in the order of `key`, the table's primary
  /// key, whose first column comes first) into the target's table of that name, then
  /// checks that the target holds as many rows as were read; `copied` sees the rows of
  /// each page read. Returns the rows.
  @discardableResult
  private func copy(_ table: String, columns: [String], key: [String], copied: (Int) throws -> Void = { _ in }) throws -> Int {
    let t = Identifier.quote(table)
    let list = columns.map(Identifier.quote).joined(separator: ", ")
    let keyList = key.map(Identifier.quote).joined(separator: ", ")
    let keyIndexes = key.map { columns.firstIndex(of: $0)! }
    let order = " ORDER BY \(keyList) LIMIT \(Self.pageRows)"
    let first = try from.prepare("SELECT \(list) FROM \(t)\(order)")
    let after = key.count == 1 ? "\(keyList) > ?" : "(\(keyList)) > (\(key.map { _ in "?" }.joined(separator: ", ")))"
    let next = try from.prepare("SELECT \(list) FROM \(t) WHERE \(after)\(order)")
    let insert = BatchInsert(connection: to, table: table, columns: columns)
    var last: [SQLValue] = []
    var rows = 0
    while true {
      var page = 0
      let body: (any ResultRow) throws -> Void = { row in
        var values: [SQLValue] = []
        values.reserveCapacity(columns.count)
        for i in 0..<columns.count { values.append(row.value(i)) }
        last = keyIndexes.map { values[$0] }
        try insert.add(values)
        page += 1
      }
      if rows == 0 { try first.forEachRow([], body) } else { try next.forEachRow(last, body) }
      rows += page
      if page > 0 { try copied(page) }
      try source.checkCancelled()
      if page < Self.pageRows { break }
    }
    try insert.flush()
    if case .integer(let n)? = try to.scalar("SELECT count(*) FROM \(t)"), n != Int64(rows) {
      throw StoreError(.storage, "the copy of '\(table)' holds \(n) rows where \(rows) were read", ["table": .string(table)])
    }
    return rows
  }
}

/// Rows written into one table many to a statement (`INSERT ... VALUES (...), (...)`, as
/// many rows as `TableCopier.parametersPerInsert` parameters allow), the full statement
/// prepared once. A failure names the table and the first key of the rows it refused.
private final class BatchInsert {
  private let connection: any DatabaseConnection
  private let table: String
  private let columns: [String]
  private let rowsPerStatement: Int
  private var values: [SQLValue] = []

  init(connection: any DatabaseConnection, table: String, columns: [String]) {
    self.connection = connection
    self.table = table
    self.columns = columns
    rowsPerStatement = max(1, TableCopier.parametersPerInsert / columns.count)
    values.reserveCapacity(rowsPerStatement * columns.count)
  }

  private func sql(rows: Int) -> String {
    let row = "(" + columns.map { _ in "?" }.joined(separator: ", ") + ")"
    return "INSERT INTO \(Identifier.quote(table)) (\(columns.map(Identifier.quote).joined(separator: ", "))) VALUES "
      + Array(repeating: row, count: rows).joined(separator: ", ")
  }

  func add(_ row: [SQLValue]) throws {
    values += row
    if values.count == rowsPerStatement * columns.count { try write() }
  }

  /// Writes the rows held.
  func flush() throws { if !values.isEmpty { try write() } }

  private func write() throws {
    let rows = values.count / columns.count
    do {
      let statement = rows == rowsPerStatement ? try connection.cached(sql(rows: rows)) : try connection.prepare(sql(rows: rows))
      try statement.execute(values)
    } catch let e as any DatabaseError {
      var error = StoreError(sqlite: e)
      var first = ""
      if case .integer(let k) = values[0] { first = " from \(columns[0]) \(k)" }
      error.text = "cannot write the rows of '\(table)'\(first) into the target: " + error.text
      error.details["table"] = .string(table)
      throw error
    }
    values.removeAll(keepingCapacity: true)
  }
}
