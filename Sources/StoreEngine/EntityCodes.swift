import DatabaseKit
import SchemaModel

/// The entity of a row is stored in `_ent` as a small integer code, Core Data's `Z_ENT`:
/// `_ms_entities` maps codes to names, one row per entity any schema of the store ever
/// installed (codes from 1, never reused; renaming an entity renames its row, so no object
/// row is rewritten). This type owns that table and the map read from it: SQL filters on
/// entities and code→name decoding go through it, nowhere else.
final class EntityCodes {
  static let table = "_ms_entities"
  static let createSQL =
    "CREATE TABLE \"_ms_entities\" (\"code\" INTEGER PRIMARY KEY, \"name\" TEXT NOT NULL UNIQUE)"

  private var codes: [String: Int64] = [:]
  private var names: [Int64: String] = [:]
  /// Hierarchy tables without an `_ent` column (a hierarchy of one entity): table → the
  /// code of the entity every row of it has, the one the table is named after.
  private var untagged: [String: Int64] = [:]

  init() {}

  /// The map as `connection` sees `_ms_entities` now.
  init(connection: any DatabaseConnection) throws {
    try connection.prepare("SELECT \"code\", \"name\" FROM \"_ms_entities\"").forEachRow {
      codes[$0.text(1)] = $0.int(0)
      names[$0.int(0)] = $0.text(1)
    }
  }

  /// The code of entity `name`; nil for a name no schema of the store installed.
  func code(_ name: String) -> Int64? { codes[name] }

  /// The entity name of a stored code. A code no row names (a file another program wrote)
  /// becomes `?code`, which no entity can be called, so it never matches a plan.
  func name(_ code: Int64) -> String { names[code] ?? "?\(code)" }

  /// The entity of column `i` of `row` (an `_ent` value).
  func name(_ row: any ResultRow, _ i: Int) -> String { name(row.int(i)) }

  // MARK: - Tables with and without `_ent`

  /// Reads which of `tables` have no `_ent` column (format 2 leaves it out of a hierarchy
  /// of one entity); tables that do not exist count as having one.
  func readLayout(_ tables: some Sequence<String>, connection: any DatabaseConnection) throws {
    untagged = [:]
    for table in tables {
      var columns: Set<String> = []
      try connection.forEachColumn(of: table) { name, _ in columns.insert(name) }
      if !columns.isEmpty && !columns.contains("_ent") { setTagged(table, false) }
    }
  }

  /// Records whether `table` has an `_ent` column (after creating or altering it).
  func setTagged(_ table: String, _ tagged: Bool) {
    untagged[table] = tagged ? nil : (codes[table] ?? 0)
  }

  /// True when `table`'s rows carry their entity in `_ent`.
  func isTagged(_ table: String) -> Bool { untagged[table] == nil }

  /// The entity code of a row of `table` in SQL: `alias."_ent"` (`"_ent"` without an
  /// alias), or the table's one code where it has no such column (a code no entity has,
  /// 0, when no entity is named like the table).
  func column(_ table: String, alias: String? = nil) -> String {
    if let code = untagged[table] { return "\(code)" }
    return alias.map { "\($0).\"_ent\"" } ?? "\"_ent\""
  }

  /// Rows per entity code of `table`, read from `from` (the table, perhaps qualified):
  /// `SELECT "_ent", count(*) ... GROUP BY "_ent"`, or one row with the table's code.
  func countsSQL(_ table: String, from: String) -> String {
    guard isTagged(table) else { return "SELECT \(column(table)), count(*) FROM \(from)" }
    return "SELECT \"_ent\", count(*) FROM \(from) GROUP BY \"_ent\""
  }

  /// `"1, 4"`: the codes of `entities`, for `IN (...)`; `NULL` for none (matches nothing).
  func list(_ entities: [String]) -> String {
    let known = entities.compactMap { codes[$0] }
    return known.isEmpty ? "NULL" : known.map(String.init).joined(separator: ", ")
  }

  /// `column = 3` or `column IN (3, 4)`: the rows of exactly these entities. Codes are
  /// integers written into the SQL, so partial indexes on the same condition apply.
  func filter(_ column: String, _ entities: [String]) -> String {
    if entities.count == 1, let c = codes[entities[0]] { return "\(column) = \(c)" }
    return "\(column) IN (\(list(entities)))"
  }

  /// An SQL expression giving the name of the entity whose code `column` holds, for the
  /// given entities (NULL for any other code): for ids built inside a statement.
  func nameSQL(_ column: String, _ entities: [String]) -> String {
    var sql = "CASE \(column)"
    for e in entities { if let c = codes[e] { sql += " WHEN \(c) THEN \(StringLiteral.quote(e))" } }
    return sql + " END"
  }

  // MARK: - Changing `_ms_entities`

  /// Gives every entity of `schema` that has no code yet the next free one, one past the
  /// largest (inside the caller's transaction, so no other writer takes it meanwhile).
  static func assign(_ schema: Schema, connection: any DatabaseConnection) throws {
    for e in schema.entities {
      let name = SQLValue.text(e.name)
      let p = connection.dialect.parameter("?1", name)
      try connection.run(
        "INSERT INTO \"_ms_entities\" (\"code\", \"name\") SELECT (SELECT coalesce(max(\"code\"), 0) + 1 FROM \"_ms_entities\"), \(p) WHERE NOT EXISTS (SELECT 1 FROM \"_ms_entities\" WHERE \"name\" = \(p))",
        [name])
    }
  }

  /// Records given codes (a Core Data store's `Z_ENT` numbers, for its in-place views).
  static func record(_ pairs: [(code: Int64, name: String)], connection: any DatabaseConnection) throws {
    for (code, name) in pairs {
      try connection.run(
        connection.dialect.insertSkippingDuplicates("\"_ms_entities\" (\"code\", \"name\") VALUES (?, ?)"), [.integer(code), .text(name)])
    }
  }

  /// Renames entities (`originalName`), keeping their codes: one UPDATE per entity, no
  /// object row touched. Names are swapped through temporary ones, and a retired entity's
  /// row (an entity no schema has any more) that holds a new name gets `Name~code`, a name
  /// no entity can have, so its code stays taken.
  static func rename(_ moves: [(from: String, to: String)], connection: any DatabaseConnection) throws {
    let update = "UPDATE \"_ms_entities\" SET \"name\" = ? WHERE \"name\" = ?"
    for (from, _) in moves { try connection.run(update, [.text("\u{1}" + from), .text(from)]) }
    for (_, to) in moves {
      try connection.run(
        "UPDATE \"_ms_entities\" SET \"name\" = \"name\" || '~' || \"code\" WHERE \"name\" = ?", [.text(to)])
    }
    for (from, to) in moves { try connection.run(update, [.text(to), .text("\u{1}" + from)]) }
  }
}
