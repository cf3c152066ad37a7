import CLibPQ
import DatabaseKit

/// A statement prepared on the server: the engine's `?` parameters numbered `$n`
/// (`Placeholders`), its parameter and column types read once (`PQdescribePrepared`).
/// A cached statement has a name of its own and is deallocated when dropped; a one-off
/// statement uses the server's unnamed statement while no other statement has taken it,
/// and is sent with its text otherwise. Each use binds, runs and resets. `forEachRow`
/// and `first` read the rows as they arrive (`RowStream`), one in memory at a time;
/// `step` holds its result whole until the reset.
public final class PostgresStatement: PreparedStatement {
  public let sql: String
  /// The text PostgreSQL reads (`$n` parameters).
  let text: String
  unowned let connection: PostgresConnection
  /// The connection's statements on the server (read at deinit, when the connection may be gone).
  private let server: ServerStatements
  /// The server-side name; empty for a one-off statement (the unnamed statement).
  let name: String
  private var preparedIn: Int
  public let parameterCount: Int
  let parameterTypes: [UInt32]
  let columnNames: [String]
  let columnKinds: [ColumnKind]
  public let isReadOnly: Bool
  /// The statement may delete or replace rows or change the schema: running it moves the
  /// connection's `rowsEpoch` (everything but reads and plain inserts).
  let mayRemoveRows: Bool
  private var bindings: [SQLValue]
  /// The result `step()` walks, and the row it is at.
  private var stepping: OpaquePointer?
  private var nextRow: Int32 = 0

  /// The most parameters a statement may have: libpq (15) reads no ParameterDescription
  /// message over 30,000 bytes (2 + 4 per parameter after its 4-byte length), and loses
  /// the connection on a longer one, so such a statement is refused before it is sent.
  public static let maxParameters = (30_000 - 4 - 2) / 4

  init(connection: PostgresConnection, sql: String, persistent: Bool) throws {
    self.connection = connection
    self.server = connection.server
    self.sql = sql
    let (text, count) = Placeholders.rewrite(sql)
    guard count <= Self.maxParameters else {
      throw PostgresError(
        sqlState: "54023",
        message: "the statement binds \(count) values: PostgreSQL's client library (libpq) takes at most \(Self.maxParameters)", sql: sql)
    }
    self.text = text
    self.parameterCount = count
    self.isReadOnly = Self.onlyReads(sql)
    self.mayRemoveRows = RowsEffect.mayRemoveRows(sql, readOnly: isReadOnly)
    self.name = persistent ? connection.server.newName() : ""
    try connection.beforeStatement()
    preparedIn = connection.server.generation
    // A one-off statement's PREPARE replaces the unnamed statement, whether or not it succeeds.
    if !persistent { server.unnamedOwner = nil }
    // A read's preparation (which may wait for a table's lock) may be cancelled, as the read
    // itself (inside a transaction under a savepoint of its own: PostgresConnection+ReadSavepoint).
    let description = try Self.prepareAndDescribe(connection, name: name, text: text, sql: sql, interruptible: isReadOnly)
    defer { PQclear(description) }
    parameterTypes = (0..<PQnparams(description)).map { PQparamtype(description, $0) }
    columnNames = (0..<PQnfields(description)).map { String(cString: PQfname(description, $0)) }
    columnKinds = (0..<PQnfields(description)).map { ColumnKind(oid: PQftype(description, $0)) }
    bindings = Array(repeating: .null, count: count)
    if !persistent { server.unnamedOwner = ObjectIdentifier(self) }
  }

  deinit {
    if let stepping { PQclear(stepping) }
    if !name.isEmpty && preparedIn == server.generation { server.pendingDeallocation.append(name) }
    if server.unnamedOwner == ObjectIdentifier(self) { server.unnamedOwner = nil }
  }

  /// Prepares and describes the statement (`interruptible`: a read's, which may be cancelled).
  private static func prepareAndDescribe(
    _ connection: PostgresConnection, name: String, text: String, sql: String, interruptible: Bool
  ) throws -> OpaquePointer {
    let prepared = try connection.exchange(
      .extended { PQsendPrepare(connection.handle, name, text, 0, nil) }, sql: sql, interruptible: interruptible)
    if let prepared { PQclear(prepared) }
    guard
      let description = try connection.exchange(
        .extended { PQsendDescribePrepared(connection.handle, name) }, sql: sql, interruptible: interruptible)
    else { throw PostgresError(sqlState: "XX000", message: "PostgreSQL did not describe the statement", sql: sql) }
    return description
  }

  /// A query that cannot change the database: SELECT or VALUES, or WITH without a
  /// data-modifying statement.
  static func onlyReads(_ sql: String) -> Bool {
    let words = sql.split(whereSeparator: { !($0.isLetter || $0 == "_") }).prefix(1).map { $0.uppercased() }
    guard let first = words.first else { return false }
    if first == "SELECT" || first == "VALUES" { return true }
    guard first == "WITH" else { return false }
    let all = Set(sql.split(whereSeparator: { !($0.isLetter || $0 == "_") }).map { $0.uppercased() })
    return all.isDisjoint(with: ["INSERT", "UPDATE", "DELETE", "MERGE"])
  }

  public var columnCount: Int { columnNames.count }
  public func columnName(_ i: Int) -> String { columnNames[i] }

  // MARK: - Binding

  public func bind(_ value: SQLValue, at index: Int) throws {
    guard index >= 1 && index <= parameterCount else {
      throw PostgresError(sqlState: "22023", message: "parameter \(index) is out of range (the statement has \(parameterCount))", sql: sql)
    }
    bindings[index - 1] = value
  }

  private func bind(_ values: [SQLValue]) throws {
    guard values.count <= parameterCount else {
      throw PostgresError(sqlState: "22023", message: "\(values.count) values for \(parameterCount) parameters", sql: sql)
    }
    for (i, v) in values.enumerated() { bindings[i] = v }
  }

  public func reset() {
    if let stepping { PQclear(stepping) }
    stepping = nil
    nextRow = 0
    for i in bindings.indices { bindings[i] = .null }
  }

  // MARK: - Running

  /// Sends the statement with its bindings and returns its result (tuples or a command's),
  /// held whole.
  private func run() throws -> OpaquePointer {
    if let result = try prepareToSend() { return result }
    let result = try withSend { try connection.exchange(.extended($0), sql: sql, interruptible: isReadOnly) }
    guard let result else { throw PostgresError(sqlState: "XX000", message: "PostgreSQL returned no result", sql: sql) }
    if !isReadOnly { connection.dropPrefetched() }
    // Rows changed, as SQLite counts them: by INSERT, UPDATE and DELETE only.
    if PQresultStatus(result) == PGRES_COMMAND_OK {
      connection.changes = PQcmdTuples(result).flatMap { Int(String(cString: $0)) } ?? 0
      connection.totalChanges &+= connection.changes
    }
    return result
  }

  /// Sends the statement with its bindings and returns its rows as they arrive (or as
  /// prefetched).
  private func stream() throws -> RowStream {
    if let result = try prepareToSend() { return RowStream(connection: connection, sql: sql, whole: result) }
    return try withSend { try connection.openStream($0, sql: sql, interruptible: isReadOnly, writes: !isReadOnly) }
  }

  /// Before the statement is sent: the connection's checks (`beforeStatement`), and the
  /// statement prepared again when the connection was made again since. Returns the
  /// answer a read was asked in the transaction's opening round trip, when it still
  /// serves (PostgresConnection+Prefetch.swift): then nothing is sent.
  private func prepareToSend() throws -> OpaquePointer? {
    try connection.beforeStatement()
    if mayRemoveRows { connection.epoch &+= 1 }
    // A write makes every prefetched answer stale.
    if isReadOnly, let result = connection.takePrefetched(sql, bindings) { return result }
    if !isReadOnly { connection.dropPrefetched() }
    if !name.isEmpty && preparedIn != server.generation {
      // The connection was made again: the server lost the statement.
      let prepared = try connection.exchange(
        .extended { [handle = connection.handle, name, text] in PQsendPrepare(handle, name, text, 0, nil) }, sql: sql,
        interruptible: isReadOnly)
      if let prepared { PQclear(prepared) }
      preparedIn = connection.server.generation
    }
    return nil
  }

  /// Calls `body` with a closure that sends the statement with its bindings (valid until
  /// `body` returns).
  private func withSend<T>(_ body: (@escaping () -> Int32) throws -> T) throws -> T {
    let (buffer, offsets, lengths, formats) = try encoded(bindings)
    let handle = connection.handle
    let me = ObjectIdentifier(self)
    return try buffer.withUnsafeBufferPointer { base -> T in
      let start = base.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) }
      let values = offsets.map { offset -> UnsafePointer<CChar>? in offset < 0 ? nil : start.map { $0 + offset } }
      let send = { [server, name, text, parameterCount, parameterTypes] () -> Int32 in
        // Asked as it is sent: what went first in the same round trip may have taken the
        // unnamed statement. A one-off statement that lost it is sent whole, and holds it again.
        if name.isEmpty && server.unnamedOwner != me {
          server.unnamedOwner = me
          return PQsendQueryParams(handle, text, Int32(parameterCount), parameterTypes, values, lengths, formats, 0)
        }
        return PQsendQueryPrepared(handle, name, Int32(parameterCount), values, lengths, formats, 0)
      }
      return try body(send)
    }
  }

  /// `values` (one per parameter) as libpq sends them: one buffer of NUL-ended values,
  /// each value's offset in it (-1 for NULL), length and format (0 text, 1 binary).
  private func encoded(_ values: [SQLValue]) throws -> (buffer: [UInt8], offsets: [Int], lengths: [Int32], formats: [Int32]) {
    var buffer: [UInt8] = []
    var offsets: [Int] = []
    var lengths: [Int32] = []
    var formats: [Int32] = []
    offsets.reserveCapacity(parameterCount)
    for (i, v) in values.enumerated() {
      let (bytes, format): ([UInt8]?, Int32)
      switch try ValueConversion.parameter(v, type: parameterTypes[i], index: i + 1) {
      case .null: (bytes, format) = (nil, 0)
      case .text(let b): (bytes, format) = (b, 0)
      case .binary(let b): (bytes, format) = (b, 1)
      }
      offsets.append(bytes == nil ? -1 : buffer.count)
      lengths.append(Int32(bytes?.count ?? 0))
      formats.append(format)
      if let bytes {
        buffer += bytes
        buffer.append(0)
      }
    }
    return (buffer, offsets, lengths, formats)
  }

  /// `values` with NULL for the parameters they leave out, as bound.
  func padded(_ values: [SQLValue]) -> [SQLValue] {
    values + Array(repeating: .null, count: max(0, parameterCount - values.count))
  }

  /// What sends this statement (cached, prepared on the server) with `values` later, in
  /// a pipeline (`PostgresConnection.pendingControl`): the values are converted now and
  /// owned by the closure. Nil for a statement that cannot be sent so.
  func sender(_ values: [SQLValue]) throws -> (() -> Int32)? {
    guard !name.isEmpty, preparedIn == server.generation, values.count <= parameterCount else { return nil }
    let (buffer, offsets, lengths, formats) = try encoded(padded(values))
    return { [handle = connection.handle, name, parameterCount] in
      buffer.withUnsafeBufferPointer { base in
        let start = base.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) }
        let values = offsets.map { offset -> UnsafePointer<CChar>? in offset < 0 ? nil : start.map { $0 + offset } }
        return PQsendQueryPrepared(handle, name, Int32(parameterCount), values, lengths, formats, 0)
      }
    }
  }

  /// Held back until the connection next talks to the server (`PostgresConnection.hold`)
  /// inside a transaction, for a cached statement prepared on this connection; run at once
  /// otherwise. `changes` does not count it.
  public func executeLater(_ values: [SQLValue]) throws {
    guard connection.transactionDepth > 0, let send = try sender(values) else { return try execute(values) }
    connection.statementsRun &+= 1
    try connection.beforeStatement()
    if mayRemoveRows { connection.epoch &+= 1 }
    connection.dropPrefetched()
    connection.hold(sql: sql, send: send)
  }

  @discardableResult public func step() throws -> Bool {
    if stepping == nil {
      stepping = try run()
      nextRow = 0
    }
    guard let stepping, nextRow < PQntuples(stepping) else { return false }
    nextRow += 1
    return true
  }

  public func execute(_ values: [SQLValue]) throws {
    defer { reset() }
    connection.statementsRun &+= 1
    try bind(values)
    PQclear(try run())
  }

  public func forEachRow(_ values: [SQLValue], _ body: (any ResultRow) throws -> Void) throws {
    defer { reset() }
    connection.statementsRun &+= 1
    try bind(values)
    let rows = try stream()
    defer { rows.close() }
    while let (result, i) = try rows.next() {
      try body(PostgresRow(result: result, row: i, kinds: columnKinds))
    }
  }

  /// The first row, read as it arrives (`RowStream`): the rest of a result of many rows is
  /// never held (`RowStream.close` reads and drops it, or has the server stop sending it).
  public func first<T>(_ values: [SQLValue], _ body: (any ResultRow) throws -> T) throws -> T? {
    defer { reset() }
    connection.statementsRun &+= 1
    try bind(values)
    let rows = try stream()
    defer { rows.close() }
    guard let (result, i) = try rows.next() else { return nil }
    return try body(PostgresRow(result: result, row: i, kinds: columnKinds))
  }
}
