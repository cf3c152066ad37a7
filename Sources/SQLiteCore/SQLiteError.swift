import CSQLite

/// A failed SQLite call. Carries the extended result code and the SQL text, never the
/// bound values, so user data does not leak into logs.
public struct SQLiteError: DatabaseError {
  public var code: Int32
  public var message: String
  public var sql: String?
  /// The error a Swift function (`Connection.createFunction`) threw to fail the statement,
  /// so that it reaches the caller intact rather than as SQLite's text.
  public var cause: Error?

  public init(code: Int32, message: String, sql: String? = nil, cause: Error? = nil) {
    self.code = code
    self.message = message
    self.sql = sql
    self.cause = cause
  }

  /// The primary result code (extended codes keep it in the low byte).
  public var primaryCode: Int32 { code & 0xFF }
  public var isBusy: Bool { primaryCode == SQLITE_BUSY || primaryCode == SQLITE_LOCKED }
  public var isInterrupted: Bool { primaryCode == SQLITE_INTERRUPT }
  public var isConstraint: Bool { primaryCode == SQLITE_CONSTRAINT }
  public var isReadOnly: Bool { primaryCode == SQLITE_READONLY }
  public var isNotADatabase: Bool { primaryCode == SQLITE_NOTADB }
  /// `sum()` (or `abs()`) of integers whose result does not fit in 64 bits: SQLite reports
  /// it as a plain SQLITE_ERROR with this message.
  public var isIntegerOverflow: Bool { primaryCode == SQLITE_ERROR && message == "integer overflow" }

  /// SQLite's English name of the code (sqlite3_errstr).
  public var codeName: String { String(cString: sqlite3_errstr(code)) }

  public var description: String {
    "SQLite error \(code) (\(codeName)): \(message)" + (sql.map { " in \($0)" } ?? "")
  }
}
