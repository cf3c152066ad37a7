import DatabaseKit

extension DatabaseConnection {
  /// Calls `body` with each column of `table` (the engine's name, looked up by the name the
  /// database keeps: PostgreSQL's short form past 63 bytes, `SQLDialect.storedName`) and its
  /// declared type, as the catalog lists them.
  func forEachColumn(of table: String, _ body: (_ name: String, _ type: String) throws -> Void) throws {
    try cached(dialect.columnsSQL).forEachRow([.text(dialect.storedName(table))]) { try body($0.text(0), $0.text(1)) }
  }
}
