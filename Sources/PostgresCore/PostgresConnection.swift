import CLibPQ
import DatabaseKit
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// One connection to a PostgreSQL server through libpq, working in one schema (the store's,
/// first on `search_path`, so the engine's SQL stays unqualified). Statements are prepared
/// once on the server (named prepared statements, cached by their SQL), their parameter
/// and column types read with `PQdescribePrepared` and values converted by them
/// (`ValueConversion`). Confined to one thread, except `interrupt()`, which cancels the
/// running statement with `PQcancel` from any thread.
///
/// A failed statement inside a transaction leaves PostgreSQL's transaction aborted, where
/// SQLite undoes only that statement. The connection makes the two agree where it can:
/// every transaction level is a savepoint (the outermost one too, `ms_sp0`), and the next
/// statement after a failure first rolls back to the innermost level's savepoint, so the
/// engine can go on reading (to report the failure); that level's earlier work is undone
/// with it, so its `commit()` is refused (the engine rolls it back, as it does after any
/// failure). Rolling the level back needs nothing more.
public final class PostgresConnection: DatabaseConnection {
  let handle: OpaquePointer
  public let url: PostgresURL
  public let isReadOnly: Bool
  public var dialect: any SQLDialect { PostgresDialect() }
  /// The redacted URL: what messages may show.
  public var path: String { url.redacted }
  public var schema: String { url.schema }
  /// `server_version` as the server reports it (`15.18`).
  public private(set) var serverVersion = ""
  /// The key of the store's write lock (`pg_advisory_xact_lock`), derived from its schema.
  public let writeLockKey: Int64

  public struct Options: Sendable {
    /// The connection takes no write lock. (Writes are refused by its owner, the store:
    /// PostgreSQL's `default_transaction_read_only` would refuse temporary tables too,
    /// which reads make.)
    public var readOnly = false
    /// How long a statement waits for a lock (the store's write lock among them) before it
    /// fails as busy (`lock_timeout`): SQLite's busy timeout.
    public var lockTimeoutMilliseconds = 5000
    public init(readOnly: Bool = false) { self.readOnly = readOnly }
  }

  var cache: [String: PostgresStatement] = [:]
  public var cacheLimit = 512
  /// The statements the server holds for this connection; shared with the statements,
  /// which may outlive the connection.
  let server = ServerStatements()

  public internal(set) var statementsRun = 0
  /// Messages sent to the server that were waited for (each a round trip), for tests that
  /// count them.
  public internal(set) var roundTrips = 0
  /// Streams whose remaining rows were read into memory because another statement needed
  /// the connection before their end (`RowStream.park`), for tests that count them.
  public internal(set) var streamsParked = 0
  /// The statement whose rows are arriving (`forEachRow`): the next command parks it first.
  weak var activeStream: RowStream?
  /// PostgreSQL reports no count of the work inside its statements: 0.
  public var vmSteps: Int { 0 }
  public internal(set) var changes = 0
  public internal(set) var totalChanges = 0

  // Transaction state (PostgresConnection+Transactions.swift).
  public internal(set) var transactionDepth = 0
  public var willCommit: (() throws -> Void)?
  /// Statements (without parameters) sent with the outermost COMMIT, in the same round
  /// trip: the last writes every transaction makes, after `willCommit`.
  public var commitPrelude: [String] = []
  public var didEndTransaction: (() -> Void)?
  public var transactionWasLost = false
  /// A statement failed inside the open transaction, which PostgreSQL now refuses to go
  /// on with until it is rolled back to a savepoint (`recoverFromFailedStatement`).
  var transactionFailed = false
  /// Levels (by depth) whose work a failed statement undid: their commit is refused.
  var undoneLevels: Set<Int> = []
  /// Moves when rows read may have gone (`rowsEpoch`): rollbacks, transaction ends, and
  /// statements that may delete or replace rows or change the schema.
  var epoch = 0
  public var rowsEpoch: Int? { epoch }
  /// A read snapshot (`readingOneSnapshot`) is open.
  var snapshotOpen = false
  /// A read snapshot's COMMIT was sent and its answer is still to be read
  /// (`readSnapshotCommit`, before the next command).
  var snapshotCommitSent = false
  /// Transaction control queued for the next round trip (PostgresConnection+Transactions).
  var pendingControl: [PendingControl] = []
  /// Reads asked in every write transaction's opening round trip, and the answers of the
  /// open transaction's, kept until it writes (PostgresConnection+Prefetch.swift).
  var prefetches: [Prefetch] = []
  var prefetched: [Prefetched] = []
  /// The last exchange failed in a prefetch (`exchange` then sends it again without them).
  var prefetchFailed = false
  /// The check asked with the next opening, and what the last ones found
  /// (PostgresConnection+Expectation.swift): the last exchange's expectation did not hold;
  /// one of the open transaction or snapshot did not, and the caller has not taken note.
  var nextExpectation: Expectation?
  var openingWentStale = false
  var staleInTransaction = false
  public internal(set) var expectationAnswered = false
  /// How many expectations did not hold, for callers that tell a stale opening from other
  /// failures (a count, which no rollback or error wrapping hides).
  public internal(set) var staleOpenings = 0

  let options: Options
  private let cancel: OpaquePointer?
  let interruptState = Mutex<(requested: Bool, interruptible: Bool)>((false, false))
  public var cancellationProbe: (() -> Void)?
  private var isClosed = false

  /// Connects to the server `url` names (libpq's environment variables and service files
  /// fill in what it leaves out) and makes `url.schema` the first on the search path.
  public init(url: PostgresURL, options: Options = Options()) throws {
    self.url = url
    self.options = options
    self.isReadOnly = options.readOnly
    self.writeLockKey = Self.lockKey(schema: url.schema)
    handle = try Self.connect(url)
    cancel = PQgetCancel(handle)
    try setUpSession()
  }

  deinit { close() }

  /// The channel of the store's notifications (`NOTIFY`, `PostgresListener`), derived from
  /// its schema as the write lock's key is: `modelstore_` and the key in hex (channels,
  /// like locks, are per database).
  public var notifyChannel: String { "modelstore_" + String(UInt64(bitPattern: writeLockKey), radix: 16) }

  /// The session settings every statement relies on; run again after a reconnect.
  private func setUpSession() throws {
    let settings = [
      "SET search_path TO \(Identifier.quote(url.schema))",
      "SET lock_timeout = \(options.lockTimeoutMilliseconds)",
      // Shortest exact text for doubles (PostgreSQL 12 and later; exact digits before).
      "SET extra_float_digits = 3",
      "SET bytea_output = 'hex'",
      "SET standard_conforming_strings = on",
      "SET TimeZone = 'UTC'",
      "SET DateStyle = 'ISO'",
    ]
    try simple(settings.joined(separator: "; "))
    serverVersion = PQparameterStatus(handle, "server_version").map { String(cString: $0) } ?? ""
  }

  /// Finishes the connection; closing twice does nothing.
  public func close() {
    guard !isClosed else { return }
    isClosed = true
    // A stream still open reads its rest now, while the connection is there.
    parkStream()
    dropPrefetched()
    cache.removeAll()
    PQfreeCancel(cancel)
    PQfinish(handle)
  }

  /// A stable 64-bit key for the store's advisory lock: FNV-1a of the schema's name
  /// (advisory locks are per database, so the schema alone tells stores apart).
  static func lockKey(schema: String) -> Int64 {
    var h: UInt64 = 0xcbf2_9ce4_8422_2325
    for b in "modelstore:\(schema)".utf8 {
      h ^= UInt64(b)
      h = h &* 0x0000_0100_0000_01B3
    }
    return Int64(bitPattern: h)
  }

  // MARK: - Statements

  public func cached(_ sql: String) throws -> any PreparedStatement { try cachedStatement(sql) }

  func cachedStatement(_ sql: String) throws -> PostgresStatement {
    if let s = cache[sql] { return s }
    if cache.count >= cacheLimit { cache.removeAll() }
    let s = try PostgresStatement(connection: self, sql: sql, persistent: true)
    cache[sql] = s
    return s
  }

  public func prepare(_ sql: String) throws -> any PreparedStatement {
    try PostgresStatement(connection: self, sql: sql, persistent: false)
  }

  public func clearCache() {
    cache.removeAll()
    prefetches = []
    dropPrefetched()
  }

  /// Runs one or more statements without parameters (DDL) as one simple query, names
  /// longer than 63 bytes in their stored form (`Placeholders`).
  /// Rows its last INSERT, UPDATE or DELETE changed count in `changes`, as a prepared
  /// statement's do (a migration reports them).
  public func execute(_ sql: String) throws {
    try beforeStatement()
    statementsRun &+= 1
    epoch &+= 1
    dropPrefetched()
    try simple(Placeholders.rewrite(sql, parameters: false).sql, countingChanges: true)
  }

  public func run(_ sql: String, _ values: [SQLValue]) throws { try cached(sql).execute(values) }

  public func scalar(_ sql: String, _ values: [SQLValue]) throws -> SQLValue? {
    try cachedStatement(sql).first(values) { $0.value(0) }
  }

  /// True when the store's schema has a table (or view) named `name`.
  public func hasTable(_ name: String) throws -> Bool {
    try scalar(
      "SELECT 1 FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = ? AND c.relname = ? AND c.relkind IN ('r', 'p', 'v', 'm', 'f')",
      [.text(url.schema), .text(dialect.storedName(name))]) != nil
  }

  public func createFunction(
    _ name: String, argumentCount: Int32, deterministic: Bool, _ body: @escaping ([SQLValue]) throws -> SQLValue
  ) throws {
    throw PostgresError.unsupported(
      "\(name)() is a Swift function, and PostgreSQL cannot call back into the server process: on PostgreSQL the dialect writes SQL instead"
    )
  }

  public func commitMarker() -> CommitMarker? { nil }

  /// Refused: a PostgreSQL store is copied with PostgreSQL's tools (`pg_dump --schema`).
  @discardableResult public func backup(to path: String) throws -> Int {
    throw PostgresError.unsupported(
      "a PostgreSQL store is not copied into a file by the server: use pg_dump --schema=\(Identifier.quote(url.schema))")
  }

  // MARK: - Cancellation

  /// Cancels the running statement if it only reads (`PQcancel`, from any thread), and
  /// raises the flag that loops over many statements check (`pollInterrupt`). A write is
  /// left to finish; it stops at the next check, as on SQLite.
  public func interrupt() {
    interruptState.withLock { state in
      state.requested = true
      if state.interruptible, let cancel {
        var buffer = [CChar](repeating: 0, count: 256)
        _ = PQcancel(cancel, &buffer, Int32(buffer.count))
      }
    }
  }

  /// Cancels the running statement at once (`PQcancel`; on this connection's thread): a
  /// stream that is left before its end while its request is being cancelled.
  func cancelRunningStatement() {
    guard let cancel, transactionDepth == 0 else { return }
    var buffer = [CChar](repeating: 0, count: 256)
    _ = PQcancel(cancel, &buffer, Int32(buffer.count))
  }

  public func clearInterrupt() { interruptState.withLock { $0.requested = false } }

  public var isInterruptRequested: Bool { interruptState.withLock { $0.requested } }

  public func pollInterrupt() -> Bool {
    cancellationProbe?()
    return isInterruptRequested
  }

  /// Inside a client transaction a read is never cancelled on the server: PostgreSQL would
  /// fail the transaction, and recovering it undoes the client's level. The read runs to its
  /// end and its request ends `cancelled` there (`collect`), the transaction untouched.
  func setInterruptible(_ value: Bool) {
    let allowed = value && transactionDepth == 0
    interruptState.withLock { $0.interruptible = allowed }
  }

  /// libpq's message for the connection, on one line.
  static func connectionMessage(_ conn: OpaquePointer) -> String {
    String(cString: PQerrorMessage(conn)).split(whereSeparator: \.isNewline).map { $0.trimmingSpaces }.filter { !$0.isEmpty }
      .joined(separator: " ")
  }

  /// Before a statement: makes the connection again when it was lost outside any
  /// transaction, refuses to run inside a transaction the server has ended (the
  /// connection was lost: the statement would run outside it), rolls back a failed
  /// statement's savepoint, and drops statements that are no longer used on the server.
  func beforeStatement() throws {
    parkStream()
    if staleInTransaction { throw staleOpening(sql: nil) }
    if transactionDepth > 0 || snapshotOpen {
      if isAutocommit { throw transactionEnded() }
    } else if PQstatus(handle) == CONNECTION_BAD {
      try reconnect()
    }
    if transactionFailed { try recoverFromFailedStatement() }
    if server.pendingDeallocation.count >= 32 {
      let names = server.pendingDeallocation
      server.pendingDeallocation = []
      try simple(names.map { "DEALLOCATE \(Identifier.quote($0))" }.joined(separator: "; "))
    }
  }

  /// The error for a statement inside a transaction that the server has ended.
  func transactionEnded() -> PostgresError {
    if PQstatus(handle) == CONNECTION_BAD { return .connectionLost(url.scrubbed(Self.connectionMessage(handle)), sql: nil) }
    return PostgresError(sqlState: "25P01", message: "the transaction was ended by PostgreSQL")
  }

  /// `PQreset`: the server connection again, with the session's settings; prepared
  /// statements are prepared again at their next use.
  private func reconnect() throws {
    epoch &+= 1
    PQreset(handle)
    guard PQstatus(handle) == CONNECTION_OK else {
      throw PostgresError.connectionLost(url.scrubbed(Self.connectionMessage(handle)), sql: nil)
    }
    server.generation += 1
    server.unnamedOwner = nil
    server.pendingDeallocation = []
    transactionFailed = false
    snapshotCommitSent = false
    try setUpSession()
  }

  /// Calls `body` with `strings` as a NULL-terminated array of C strings.
  static func withCStrings<T>(_ strings: [String], _ body: ([UnsafePointer<CChar>?]) -> T) -> T {
    let copies = strings.map { strdup($0) }
    defer { copies.forEach { free($0) } }
    return body(copies.map { UnsafePointer($0) } + [nil])
  }
}

/// What the server holds of a connection's statements: their names, whether the
/// connection was made again since they were prepared (`generation`), which one-off
/// statement the unnamed statement holds, and the names of dropped statements still to
/// deallocate.
final class ServerStatements {
  private var nextName = 0
  /// Bumped when the connection was made again (`PQreset`): statements prepared before
  /// are gone from the server and are prepared again at their next use.
  var generation = 0
  /// The one-off statement whose text the server's unnamed statement holds.
  var unnamedOwner: ObjectIdentifier?
  /// Names of statements that were dropped, deallocated on the server in batches.
  var pendingDeallocation: [String] = []

  /// The name of a new server-side statement.
  func newName() -> String {
    nextName += 1
    return "ms_\(nextName)"
  }
}

extension Substring {
  var trimmingSpaces: Substring {
    var s = self
    while let c = s.first, c == " " || c == "\t" { s.removeFirst() }
    while let c = s.last, c == " " || c == "\t" { s.removeLast() }
    return s
  }
}
