/// SQLite's answers to the engine's dialect questions.
public struct SQLiteDialect: SQLDialect {
  public init() {}

  public var name: String { "sqlite" }

  /// The column's affinity: the storage class SQLite keeps for such values.
  public func columnType(_ content: ColumnContent) -> String {
    switch content {
    case .integer, .boolean: return "INTEGER"
    case .real, .date: return "REAL"
    case .uuid, .bytes: return "BLOB"
    case .decimal, .text, .json: return "TEXT"
    }
  }

  public func literal(_ value: SQLValue) -> String? { value.sqlLiteral }

  public func insertSkippingDuplicates(_ rest: String) -> String { "INSERT OR IGNORE INTO " + rest }

  public func insertReplacing(into table: String, columns: [String], key: [String]) -> String {
    "INSERT OR REPLACE INTO \(table) (\(columns.joined(separator: ", "))) VALUES (\(Array(repeating: "?", count: columns.count).joined(separator: ", ")))"
  }
}
