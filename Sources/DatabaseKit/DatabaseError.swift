/// A failure of the database, as the engine needs to tell failures apart. Carries the
/// SQL text, never the bound values, so user data does not leak into logs.
public protocol DatabaseError: Error, CustomStringConvertible {
  /// The engine's numeric code (SQLite's extended result code).
  var code: Int32 { get }
  /// The engine's name of the code (SQLite: `sqlite3_errstr`).
  var codeName: String { get }
  var message: String { get }
  var sql: String? { get }
  /// The error a Swift function (`DatabaseConnection.createFunction`) threw to fail the
  /// statement, so that it reaches the caller intact.
  var cause: Error? { get }
  /// Another connection holds a lock the statement needs.
  var isBusy: Bool { get }
  /// The database rolled the whole transaction back to resolve a conflict with another
  /// connection (PostgreSQL's serialization failure 40001 or deadlock 40P01): running the
  /// transaction again may succeed. Never for SQLite.
  var isConflict: Bool { get }
  /// `DatabaseConnection.interrupt()` stopped the statement.
  var isInterrupted: Bool { get }
  /// A UNIQUE, NOT NULL or CHECK constraint refused the change.
  var isConstraint: Bool { get }
  /// The database cannot be written (opened read-only, or a read-only file).
  var isReadOnly: Bool { get }
  /// The file or server is not a database of this engine.
  var isNotADatabase: Bool { get }
  /// `sum()` (or `abs()`) of integers whose result does not fit in 64 bits.
  var isIntegerOverflow: Bool { get }
  /// The SQLSTATE of the failure, for engines that report one (PostgreSQL); nil for SQLite.
  var sqlState: String? { get }
  /// The connection to a database server failed or was lost (never for SQLite): the server
  /// rolled back whatever transaction was open.
  var isConnectionFailure: Bool { get }
}

extension DatabaseError {
  public var sqlState: String? { nil }
  public var isConflict: Bool { false }
  public var isConnectionFailure: Bool { false }
}
