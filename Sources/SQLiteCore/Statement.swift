import CSQLite
import DatabaseKit

/// A prepared statement. Owned by a `Connection` (directly or through its cache); it is
/// reset and its bindings cleared after each use so no read transaction stays open.
public final class Statement: PreparedStatement {
  let handle: OpaquePointer
  public let sql: String
  unowned let connection: Connection

  init(connection: Connection, sql: String, persistent: Bool) throws {
    var stmt: OpaquePointer?
    let flags: UInt32 = persistent ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0
    let rc = sqlite3_prepare_v3(connection.handle, sql, -1, flags, &stmt, nil)
    guard rc == SQLITE_OK, let stmt else {
      throw connection.error(rc, sql: sql)
    }
    self.handle = stmt
    self.sql = sql
    self.connection = connection
    mayRemoveRows = RowsEffect.mayRemoveRows(sql, readOnly: sqlite3_stmt_readonly(stmt) != 0)
  }

  /// Running the statement may delete or replace rows or change the schema: each run moves
  /// the connection's `rowsEpoch`.
  private let mayRemoveRows: Bool

  deinit { sqlite3_finalize(handle) }

  /// Never written after it is made: safe to read from any thread.
  nonisolated(unsafe) private static let emptyText: UnsafePointer<CChar> = {
    let p = UnsafeMutablePointer<CChar>.allocate(capacity: 1)
    p.pointee = 0
    return UnsafePointer(p)
  }()

  public var parameterCount: Int { Int(sqlite3_bind_parameter_count(handle)) }
  public var columnCount: Int { Int(sqlite3_column_count(handle)) }
  public func columnName(_ i: Int) -> String { String(cString: sqlite3_column_name(handle, Int32(i))) }
  public var isReadOnly: Bool { sqlite3_stmt_readonly(handle) != 0 }

  /// A query that only reads. Transaction control (BEGIN, COMMIT, SAVEPOINT, RELEASE,
  /// ROLLBACK) also counts as read-only for SQLite, but must never be interrupted.
  private lazy var isInterruptible: Bool = {
    guard isReadOnly else { return false }
    let head = sql.prefix(10).uppercased()
    return !["BEGIN", "COMMIT", "SAVEPOINT", "RELEASE", "ROLLBACK", "END"].contains { head.hasPrefix($0) }
  }()

  // MARK: - Binding (1-based indexes, as in the C API)

  public func bind(_ value: SQLValue, at index: Int) throws {
    let i = Int32(index)
    let rc: Int32
    switch value {
    case .null: rc = sqlite3_bind_null(handle, i)
    case .integer(let v): rc = sqlite3_bind_int64(handle, i, v)
    case .real(let v): rc = sqlite3_bind_double(handle, i, v)
    case .text(let s):
      var s = s
      rc = s.withUTF8 { buf in
        UnsafeRawBufferPointer(buf).withMemoryRebound(to: CChar.self) { chars in
          // An empty string must still bind as text, not NULL: give SQLite a valid pointer.
          guard let p = chars.baseAddress else { return cs_bind_text(handle, i, Self.emptyText, 0) }
          return cs_bind_text(handle, i, p, Int32(buf.count))
        }
      }
    case .blob(let bytes):
      rc = bytes.withUnsafeBytes { cs_bind_blob(handle, i, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!, Int32($0.count)) }
    }
    if rc != SQLITE_OK { throw connection.error(rc, sql: sql) }
  }

  public func bind(_ values: [SQLValue]) throws {
    for (i, v) in values.enumerated() { try bind(v, at: i + 1) }
  }

  public func reset() {
    connection.vmSteps &+= Int(sqlite3_stmt_status(handle, SQLITE_STMTSTATUS_VM_STEP, 1))
    sqlite3_reset(handle)
    sqlite3_clear_bindings(handle)
  }

  // MARK: - Stepping

  /// Steps once: true while a row is available, false when done.
  @discardableResult
  public func step() throws -> Bool {
    // Only a reading statement may be interrupted: SQLite answers an interrupted write
    // inside a transaction by rolling back the whole transaction (see Connection.interrupt).
    if mayRemoveRows { connection.epoch &+= 1 }
    // A read that would start (or go on) after the interrupt was requested is interrupted
    // at once, without stepping.
    let interruptible = isInterruptible
    if interruptible && !connection.setInterruptible(true) {
      throw SQLiteError(code: SQLITE_INTERRUPT, message: "interrupted", sql: sql)
    }
    let rc = sqlite3_step(handle)
    if interruptible { connection.setInterruptible(false) }
    if rc == SQLITE_ROW { return true }
    if rc == SQLITE_DONE { return false }
    throw connection.error(rc, sql: sql)
  }

  /// Binds, runs to completion, resets. For INSERT/UPDATE/DELETE.
  public func execute(_ values: [SQLValue]) throws {
    defer { reset() }
    connection.statementsRun &+= 1
    try bind(values)
    while try step() {}
  }

  /// Runs a statement without parameters or rows to completion, uncounted in
  /// `statementsRun` (transaction control around the work, not the work).
  func runControl() throws {
    defer { reset() }
    while try step() {}
  }

  /// Binds, calls `body` once per row, resets.
  public func forEachRow(_ values: [SQLValue], _ body: (any ResultRow) throws -> Void) throws {
    defer { reset() }
    connection.statementsRun &+= 1
    try bind(values)
    let row = Row(statement: self)
    while try step() { try body(row) }
  }

  /// Binds and returns the first row mapped by `body`, or nil.
  public func first<T>(_ values: [SQLValue], _ body: (any ResultRow) throws -> T) throws -> T? {
    defer { reset() }
    connection.statementsRun &+= 1
    try bind(values)
    return try step() ? body(Row(statement: self)) : nil
  }
}

/// The current row of a stepping statement. Valid only inside the callback it is passed to.
public struct Row: ResultRow {
  let statement: Statement
  var handle: OpaquePointer { statement.handle }

  public var count: Int { statement.columnCount }
  public func isNull(_ i: Int) -> Bool { sqlite3_column_type(handle, Int32(i)) == SQLITE_NULL }
  public func int(_ i: Int) -> Int64 { sqlite3_column_int64(handle, Int32(i)) }
  public func double(_ i: Int) -> Double { sqlite3_column_double(handle, Int32(i)) }

  public func text(_ i: Int) -> String {
    guard let p = sqlite3_column_text(handle, Int32(i)) else { return "" }
    let n = Int(sqlite3_column_bytes(handle, Int32(i)))
    // Invalid UTF-8 from a foreign writer is repaired (U+FFFD), never passed on raw.
    return String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self)
  }

  public func blob(_ i: Int) -> [UInt8] {
    let n = Int(sqlite3_column_bytes(handle, Int32(i)))
    guard n > 0, let p = sqlite3_column_blob(handle, Int32(i)) else { return [] }
    return Array(UnsafeRawBufferPointer(start: p, count: n))
  }

  /// A column's storage class in the current row.
  public typealias StorageClass = DatabaseKit.StorageClass

  public func storageClass(_ i: Int) -> StorageClass {
    switch sqlite3_column_type(handle, Int32(i)) {
    case SQLITE_NULL: return .null
    case SQLITE_INTEGER: return .integer
    case SQLITE_FLOAT: return .real
    case SQLITE_TEXT: return .text
    default: return .blob
    }
  }

  /// Calls `body` with a text column's bytes, without making a String, when they are all
  /// ASCII (so valid UTF-8 that `text(_:)` would return unchanged); returns false without
  /// calling it otherwise.
  public func withASCIIText(_ i: Int, _ body: (UnsafeBufferPointer<UInt8>) -> Void) -> Bool {
    let n = Int(sqlite3_column_bytes(handle, Int32(i)))
    guard let p = sqlite3_column_text(handle, Int32(i)) else {
      body(UnsafeBufferPointer(start: nil, count: 0))
      return true
    }
    let bytes = UnsafeBufferPointer(start: p, count: n)
    var k = 0
    let raw = UnsafeRawPointer(p)
    while k + 8 <= n {
      if raw.loadUnaligned(fromByteOffset: k, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
      k += 8
    }
    while k < n {
      if bytes[k] >= 0x80 { return false }
      k += 1
    }
    body(bytes)
    return true
  }

  public func value(_ i: Int) -> SQLValue {
    switch sqlite3_column_type(handle, Int32(i)) {
    case SQLITE_NULL: return .null
    case SQLITE_INTEGER: return .integer(int(i))
    case SQLITE_FLOAT: return .real(double(i))
    case SQLITE_TEXT: return .text(text(i))
    default: return .blob(blob(i))
    }
  }
}
