/// The SQL a database engine writes differently, as the engine (`StoreEngine`) asks for
/// it. Everything else the engine writes is SQL both engines read the same way; what is
/// still SQLite's alone is listed in CONTRIBUTING.md, "Database seam".
public protocol SQLDialect: Sendable {
  /// The engine's name, for messages and `store.info` ("sqlite").
  var name: String { get }
  /// The declared type of a column holding values of `content`.
  func columnType(_ content: ColumnContent) -> String
  /// `value` as a literal in statement text (a column's `DEFAULT`, which cannot be a bound
  /// parameter); nil when no literal can carry it.
  func literal(_ value: SQLValue) -> String?
  /// An INSERT that skips rows whose key or unique columns are already taken: `rest` is
  /// what follows `INSERT INTO` (the table, its columns and `VALUES (...)` or a SELECT).
  func insertSkippingDuplicates(_ rest: String) -> String
  /// An INSERT of `columns` (all bound, in order) into `table` that replaces the row whose
  /// `key` columns match. Names are quoted already.
  func insertReplacing(into table: String, columns: [String], key: [String]) -> String
}

/// What a column holds, in the engine's terms: a dialect picks the column type of each.
/// The stored values are `SQLValue`s of one class each (integer, boolean 0/1: integer;
/// real, date in seconds since 1970: real; decimal as canonical text, text, json text:
/// text; uuid as 16 bytes, bytes: blob).
public enum ColumnContent: Sendable, CaseIterable {
  case integer, boolean, real, date, decimal, text, uuid, bytes, json
}
