import DatabaseKit

/// Where the rows of a Core Data table are read from, for the in-place views and the
/// import alike: the table itself, or, when a key column (Z_PK, Z_ENT, Z_OPT, a to-one
/// key, a join key, a Z_FOK_ position) is declared with an affinity that keeps text as
/// text (a table created by loading CSV: TEXT, or no type), a subquery that reads those
/// keys as integers. Core Data writes them all INTEGER; a store loaded by hand may hold
/// `'12'`, which would then match no key (SQLite compares text and integers as unequal)
/// and sort as text. A key whose text is not an integer (`'x1'`, `'012'`) reads as NULL:
/// a row without its Z_PK (or a link without one of its keys) is left out in place; the
/// import refuses an object row without Z_PK and notes the rest.
struct CoreDataRows {
  /// Table → the FROM expression (its rows, keys read as integers).
  private(set) var sources: [String: String] = [:]
  /// Tables whose keys are read through a subquery, with the columns that are converted.
  private(set) var converted: [String: [String]] = [:]

  init(_ mapping: CoreDataMapping) {
    let layout = mapping.layout
    var keys: [String: Set<String>] = [:]
    /// The keys without which a row is no row: an object's Z_PK, a link's two keys.
    var required: [String: Set<String>] = [:]
    for (_, _, table) in mapping.entities {
      keys[table, default: []].formUnion(["Z_PK", "Z_ENT", "Z_OPT"])
      required[table] = ["Z_PK"]
      for c in layout.tables[table]?.columns ?? [] where c.name.hasPrefix("Z_FOK_") || CoreDataMapping.companion(c.name) != nil {
        keys[table, default: []].insert(c.name)
      }
    }
    for r in mapping.toOnes {
      if let table = mapping.entities.first(where: { $0.entity.name == r.entity })?.table { keys[table, default: []].insert(r.column) }
    }
    for j in mapping.joins {
      keys[j.table, default: []].formUnion(j.sides.map(\.column) + j.sides.compactMap(\.positionColumn))
      // Links kept in a destination's table are its rows: those rows stay rows.
      if j.ownerKey == nil { required[j.table] = Set(j.sides.map(\.column)) }
    }
    for (table, columns) in keys {
      guard let t = layout.tables[table] else { continue }
      let plain = "\(layout.schema).\(Identifier.quote(table))"
      let textual = t.columns.filter { columns.contains($0.name) && Self.keepsText($0.type) }.map(\.name)
      guard !textual.isEmpty else {
        sources[table] = plain
        continue
      }
      let select = t.columns.map { c in
        textual.contains(c.name) ? "\(Self.integer(Identifier.quote(c.name))) AS \(Identifier.quote(c.name))" : Identifier.quote(c.name)
      }
      let needed = textual.filter { required[table]?.contains($0) == true }.map { "\(Self.integer(Identifier.quote($0))) IS NOT NULL" }
      let filter = needed.isEmpty ? "" : " WHERE " + needed.joined(separator: " AND ")
      sources[table] = "(SELECT \(select.joined(separator: ", ")) FROM \(plain)\(filter))"
      converted[table] = textual
    }
  }

  /// The FROM expression for `table` (the table itself when it is no table of the mapping).
  func source(_ table: String, _ layout: CoreDataLayout) -> String {
    sources[table] ?? "\(layout.schema).\(Identifier.quote(table))"
  }

  /// True when a column declared `type` keeps text as text (SQLite's TEXT affinity, or
  /// BLOB's, which converts nothing): an INTEGER, NUMERIC or REAL column turns `'12'` into
  /// a number on insert.
  static func keepsText(_ type: String) -> Bool {
    let t = type.uppercased()
    if t.contains("INT") { return false }
    if t.contains("CHAR") || t.contains("CLOB") || t.contains("TEXT") || t.contains("BLOB") || t.isEmpty { return true }
    return false
  }

  /// `column` (quoted, maybe qualified) as an integer: an integer as it is, the text of an
  /// integer (`'12'`, `' 12 '`) or a whole real as that integer, anything else NULL.
  static func integer(_ column: String) -> String {
    "CASE WHEN typeof(\(column)) = 'integer' THEN \(column)"
      + " WHEN typeof(\(column)) = 'text' AND CAST(CAST(\(column) AS INTEGER) AS TEXT) = trim(\(column)) THEN CAST(\(column) AS INTEGER)"
      + " WHEN typeof(\(column)) = 'real' AND \(column) = CAST(\(column) AS INTEGER) THEN CAST(\(column) AS INTEGER) END"
  }
}
