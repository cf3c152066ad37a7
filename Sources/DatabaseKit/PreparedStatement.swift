/// A prepared statement of a `DatabaseConnection`, owned by it (directly or through its
/// cache). Each use binds, steps and resets it, so no read stays open after it.
public protocol PreparedStatement: AnyObject {
  var sql: String { get }
  var parameterCount: Int { get }
  var columnCount: Int { get }
  func columnName(_ i: Int) -> String
  /// True when running the statement cannot change the database.
  var isReadOnly: Bool { get }
  /// Binds one value (1-based index).
  func bind(_ value: SQLValue, at index: Int) throws
  /// Steps once: true while a row is available, false when done.
  @discardableResult func step() throws -> Bool
  /// Ends the current run and clears the bindings.
  func reset()
  /// Binds, runs to completion, resets. For INSERT/UPDATE/DELETE.
  func execute(_ values: [SQLValue]) throws
  /// Like `execute`, for a write inside a transaction whose outcome nobody reads (no rows,
  /// no `changes`): a connection to a server may hold it back and send it with its next
  /// message (the next statement, at the latest the level's end or the COMMIT), one round
  /// trip fewer; its failure is then thrown by that later call. It never outlives the
  /// level it was queued in: closing the level sends it, rolling it back drops it.
  func executeLater(_ values: [SQLValue]) throws
  /// Binds, calls `body` once per row, resets. The rows are read as they come, never held
  /// whole (a large result takes the memory of one row); `body` may run other statements
  /// of the connection meanwhile.
  func forEachRow(_ values: [SQLValue], _ body: (any ResultRow) throws -> Void) throws
  /// Binds and returns the first row mapped by `body`, or nil. Only that row is held (the
  /// rest of the result is not kept, and may not be read at all); a statement meant to
  /// give one row says so (`LIMIT 1`, a key, an aggregate), so that none is computed for
  /// nothing.
  func first<T>(_ values: [SQLValue], _ body: (any ResultRow) throws -> T) throws -> T?
}

extension PreparedStatement {
  public func execute() throws { try execute([]) }
  /// Runs at once where statements cost no round trip (SQLite, in the process).
  public func executeLater(_ values: [SQLValue]) throws { try execute(values) }
  public func forEachRow(_ body: (any ResultRow) throws -> Void) throws { try forEachRow([], body) }
}

/// The current row of a stepping statement. Valid only inside the callback it is passed to.
public protocol ResultRow {
  var count: Int { get }
  func isNull(_ i: Int) -> Bool
  func int(_ i: Int) -> Int64
  func double(_ i: Int) -> Double
  /// A text column; invalid UTF-8 from a foreign writer is repaired (U+FFFD).
  func text(_ i: Int) -> String
  func blob(_ i: Int) -> [UInt8]
  func value(_ i: Int) -> SQLValue
  func storageClass(_ i: Int) -> StorageClass
  /// Calls `body` with a text column's bytes, without making a String, when they are all
  /// ASCII; returns false without calling it otherwise.
  func withASCIIText(_ i: Int, _ body: (UnsafeBufferPointer<UInt8>) -> Void) -> Bool
}

extension PreparedStatement {
  public func first<T>(_ body: (any ResultRow) throws -> T) throws -> T? { try first([], body) }
}
