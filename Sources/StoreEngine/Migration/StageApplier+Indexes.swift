import DatabaseKit
import SchemaModel

/// Indexes are compared by definition, not by name: an index whose table, columns,
/// uniqueness and filter the new schema still wants stays as it is, whatever the layout
/// would call it now (renames of tables and columns rewrite the stored definition, and an
/// index added before it shifts the numbers in the names), so a stage builds only the
/// indexes that really change.
extension StageApplier {
  /// `sql` without the index's name: `CREATE [UNIQUE] INDEX ON "T" (…) [WHERE …]`. Managed
  /// index names are quoted and never contain a quote.
  static func indexDefinition(_ sql: String) -> String {
    let parts = sql.split(separator: "\"", maxSplits: 2, omittingEmptySubsequences: false)
    guard parts.count == 3 else { return sql }
    return String(parts[0]) + String(parts[2])
  }

  /// Creates the index `sql` under its own name, or under the first free `name_2`,
  /// `name_3`, … when an index the stage kept already has that name.
  func createIndex(_ sql: String) throws {
    let parts = sql.split(separator: "\"", maxSplits: 2, omittingEmptySubsequences: false)
    guard parts.count == 3 else { return try connection.execute(sql) }
    let name = String(parts[1])
    var candidate = name
    var n = 1
    while try connection.scalar(connection.dialect.nameTakenSQL, [.text(connection.dialect.storedName(candidate))]) != nil {
      n += 1
      candidate = "\(name)_\(n)"
    }
    try connection.execute(String(parts[0]) + Identifier.quote(candidate) + String(parts[2]))
  }
}
