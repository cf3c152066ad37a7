import CSQLite
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// A copy of a WAL index's header (`Connection.walIndexHeader`): SQLite's commit marker.
public typealias WALIndexHeader = CommitMarker

/// One SQLite connection with a cache of prepared statements and savepoint-based
/// transactions. Confined to one thread, except `interrupt()`, which SQLite documents
/// as safe to call from any thread.
public final class Connection: DatabaseConnection {
  let handle: OpaquePointer
  public let path: String
  public let isReadOnly: Bool
  public var dialect: any SQLDialect { SQLiteDialect() }
  private var cache: [String: Statement] = [:]
  private var levels: [(open: Statement, close: Statement)] = []
  public private(set) var cacheHits = 0
  /// Statements executed on this connection (each `execute`, `first`, `forEachRow`); tests
  /// use it to show that work does not grow into one statement per object. The BEGIN and
  /// COMMIT of a read snapshot (`readingOneSnapshot`) are not counted.
  public internal(set) var statementsRun = 0
  /// Virtual-machine steps SQLite ran for the statements of this connection
  /// (`SQLITE_STMTSTATUS_VM_STEP`, collected as each statement is reset): the work done
  /// inside a statement, subqueries included. Tests use it to show that a read does not
  /// visit rows it has no need of (they would cost steps whatever the rows returned).
  public internal(set) var vmSteps = 0
  public private(set) var cacheMisses = 0
  /// Cap on cached statements; the cache is cleared when it is reached (rare: SQL here is generated from a schema).
  public var cacheLimit = 512

  public struct Options {
    public var readOnly = false
    public var create = true
    public var busyTimeoutMilliseconds: Int32 = 5000
    public init(readOnly: Bool = false, create: Bool = true) {
      self.readOnly = readOnly
      self.create = create
    }
  }

  /// Opens the database file at `path`, always as a file: see `fileName(forPath:)`.
  public convenience init(file path: String, options: Options = Options()) throws {
    try self.init(path: Self.fileName(forPath: path), options: options)
  }

  /// The name to give SQLite so that it opens `path` as a file. This SQLite is built with
  /// URI filenames on (`SQLITE_USE_URI`), and ATTACH of a Core Data store needs them, so a
  /// relative path beginning `file:` would be read as a URI (`file:x?mode=memory` an
  /// in-memory database, `?nolock=1` without locking); `:memory:` is an in-memory
  /// database and the empty name a temporary one. Such paths get a leading `./`.
  public static func fileName(forPath path: String) -> String {
    if path.isEmpty || path.hasPrefix("file:") || path.hasPrefix(":") { return "./" + path }
    return path
  }

  /// Opens `name` as SQLite reads it: ":memory:" for an in-memory database, a `file:` URI,
  /// or a path. Paths a user gave go through `init(file:)` instead.
  public init(path: String, options: Options = Options()) throws {
    _ = Self.processConfigured
    var db: OpaquePointer?
    var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI
    if options.readOnly {
      flags |= SQLITE_OPEN_READONLY
    } else {
      flags |= SQLITE_OPEN_READWRITE
      if options.create { flags |= SQLITE_OPEN_CREATE }
    }
    let rc = sqlite3_open_v2(path, &db, flags, nil)
    guard rc == SQLITE_OK, let db else {
      // > "Whether or not an error occurs when it is opened, resources associated with
      // > the database connection handle should be released by passing it to sqlite3_close()"
      let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
      sqlite3_close(db)
      throw SQLiteError(code: rc, message: message)
    }
    handle = db
    self.path = path
    self.isReadOnly = options.readOnly
    sqlite3_extended_result_codes(db, 1)
    sqlite3_busy_timeout(db, options.busyTimeoutMilliseconds)
    cs_disable_dqs(db)
    cs_enable_defensive(db)
  }

  deinit { close() }

  /// `cs_configure_process`, once, before the first connection of the process opens.
  private static let processConfigured: Void = { _ = cs_configure_process(Int32(savepointJournalInMemory)) }()
  /// Bytes of a statement's or savepoint's journal kept in memory (`cs_configure_process`):
  /// the pages it changes that existed before it began, 4 KiB each. Past it the journal is
  /// a temporary file until the transaction ends.
  public static let savepointJournalInMemory = 4 << 20

  private var isClosed = false

  /// Finalizes cached statements and closes; closing twice does nothing. Further use is a
  /// programming error.
  public func close() {
    guard !isClosed else { return }
    isClosed = true
    cache.removeAll()
    levels.removeAll()
    snapshot = nil
    sqlite3_close_v2(handle)
  }

  func error(_ rc: Int32, sql: String?) -> SQLiteError {
    let code = sqlite3_extended_errcode(handle)
    defer { functionError = nil }
    return SQLiteError(code: code == 0 ? rc : code, message: String(cString: sqlite3_errmsg(handle)), sql: sql, cause: functionError)
  }

  /// What the last failing Swift function threw; taken by the next error.
  var functionError: Error?

  // MARK: - Statements

  /// A cached prepared statement for `sql`; prepared once per connection.
  public func cached(_ sql: String) throws -> any PreparedStatement {
    if let s = cache[sql] {
      cacheHits += 1
      return s
    }
    cacheMisses += 1
    if cache.count >= cacheLimit { cache.removeAll() }
    let s = try Statement(connection: self, sql: sql, persistent: true)
    cache[sql] = s
    return s
  }

  /// A one-off statement, not cached (DDL, rare queries).
  public func prepare(_ sql: String) throws -> any PreparedStatement {
    try Statement(connection: self, sql: sql, persistent: false)
  }

  /// Drops every cached statement: required around schema changes.
  public func clearCache() { cache.removeAll() }

  /// Runs one or more SQL statements without parameters (DDL, pragmas).
  public func execute(_ sql: String) throws {
    epoch &+= 1
    var errmsg: UnsafeMutablePointer<CChar>?
    let rc = sqlite3_exec(handle, sql, nil, nil, &errmsg)
    if rc != SQLITE_OK {
      let message = errmsg.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
      sqlite3_free(errmsg)
      throw SQLiteError(code: sqlite3_extended_errcode(handle), message: message, sql: sql)
    }
  }

  /// Runs a cached statement with parameters.
  public func run(_ sql: String, _ values: [SQLValue]) throws {
    try cached(sql).execute(values)
  }

  /// True when the database has a table named `name`.
  public func hasTable(_ name: String) throws -> Bool {
    try scalar("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?", [.text(name)]) != nil
  }

  /// The first column of the first row, or nil.
  public func scalar(_ sql: String, _ values: [SQLValue]) throws -> SQLValue? {
    try cached(sql).first(values) { $0.value(0) }
  }

  public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }
  public var changes: Int { Int(sqlite3_changes(handle)) }
  public var totalChanges: Int { Int(sqlite3_total_changes(handle)) }
  public var isAutocommit: Bool { sqlite3_get_autocommit(handle) != 0 }

  /// Moves when rows read may have gone (`rowsEpoch`): a level rolled back, the
  /// transaction ended, DDL and other SQL run by `execute`, and each run of a statement
  /// that may delete or replace rows (`RowsEffect`). A write transaction holds SQLite's
  /// write lock (`BEGIN IMMEDIATE`), so no other connection removes a row meanwhile.
  var epoch = 0
  public var rowsEpoch: Int? { epoch }

  /// Cancels work on this connection from another thread: raises a flag that loops
  /// running many statements check between them (`isInterruptRequested`), and aborts the
  /// running statement if it only reads.
  ///
  /// > "If the interrupted SQL statement is an INSERT, UPDATE, or DELETE that is inside an
  /// > explicit transaction, then the entire transaction will be rolled back automatically."
  /// > (sqlite.org/c3ref/interrupt.html)
  ///
  /// That would silently end a client's transaction, so writes are never interrupted
  /// mid-statement; they stop at the next check of the flag and roll back their savepoint.
  public func interrupt() {
    interruptState.withLock { state in
      state.requested = true
      if state.interruptible { sqlite3_interrupt(handle) }
    }
  }

  /// Marks whether a read-only statement is stepping (set around each step). Marking it
  /// stepping answers false, and marks nothing, when an interrupt was already requested:
  /// the statement must not start (`sqlite3_interrupt` called before a step would be
  /// forgotten when no other statement is active).
  @discardableResult
  func setInterruptible(_ value: Bool) -> Bool {
    interruptState.withLock { state in
      if value && state.requested { return false }
      state.interruptible = value
      return true
    }
  }

  /// Clears the flag; called before and after each unit of work (a request).
  public func clearInterrupt() {
    interruptState.withLock { $0.requested = false }
  }

  public var isInterruptRequested: Bool {
    interruptState.withLock { $0.requested }
  }

  /// Whether an interrupt was asked for, and whether a read-only statement is stepping
  /// (only then may `sqlite3_interrupt` be called).
  private let interruptState = Mutex<(requested: Bool, interruptible: Bool)>((false, false))

  /// Runs while work goes on, so that whoever can cancel it gets a look in: every
  /// `probeSteps` virtual machine steps of a running statement (SQLite's progress handler),
  /// and at each `pollInterrupt()`. It may call `interrupt()`; it must not use this
  /// connection. (The server reads its input here: a `$/cancelRequest` read while a
  /// request runs interrupts it.)
  public var cancellationProbe: (() -> Void)? {
    didSet {
      guard !isClosed else { return }
      if cancellationProbe == nil {
        sqlite3_progress_handler(handle, 0, nil, nil)
      } else {
        sqlite3_progress_handler(
          handle, Self.probeSteps,
          { context in
            Unmanaged<Connection>.fromOpaque(context!).takeUnretainedValue().cancellationProbe?()
            return 0  // never interrupts by itself: `interrupt()` decides what may be interrupted
          }, Unmanaged.passUnretained(self).toOpaque())
      }
    }
  }
  /// Virtual machine instructions between two probes: microseconds of plain statement work
  /// (more when an instruction calls a function); a probe itself costs a `clock_gettime`
  /// unless it reads input.
  public static let probeSteps: Int32 = 1000

  /// Runs the cancellation probe, then tells whether an interrupt was requested: what
  /// loops running many statements check between them.
  public func pollInterrupt() -> Bool {
    cancellationProbe?()
    return isInterruptRequested
  }

  // MARK: - Commits by anyone

  /// SQLite's commit marker: the WAL index's header (`walIndexHeader`).
  public func commitMarker() -> CommitMarker? { walIndexHeader() }

  /// The header of the WAL index as it stands: the 48-byte header at the start of the
  /// `-shm` file, read without a lock (sqlite.org/walformat.html, "The WAL-Index Header").
  /// Every transaction that commits, in any process, rewrites it (and changes it: the
  /// count of changes, the last frame, or the salts of a restarted WAL), so equal results
  /// of two calls mean that nothing was committed in between, at the cost of reading 96
  /// bytes of shared memory. nil when there is no header to read (not in WAL mode,
  /// read-only, closed) or when its two copies differ (a writer is rewriting it): then
  /// something may have been committed.
  public func walIndexHeader() -> WALIndexHeader? {
    guard !isClosed, !isReadOnly, isInWALMode else { return nil }
    var header = WALIndexHeader()
    let agree = withUnsafeMutableBytes(of: &header.words) {
      cs_wal_index_header(handle, $0.baseAddress!.assumingMemoryBound(to: UInt8.self))
    }
    return agree == 1 ? header : nil
  }

  /// Whether the main database is in WAL mode, asked once: no connection can take a
  /// database out of WAL mode while another one (this one) has it open, and the shared
  /// memory is mapped once a WAL database has been read.
  private lazy var isInWALMode: Bool = {
    guard case .text(let mode)? = try? scalar("PRAGMA journal_mode") else { return false }
    return mode.lowercased() == "wal"
  }()

  // MARK: - Transactions

  /// How many transaction levels are open: 0 in autocommit mode.
  public private(set) var transactionDepth = 0

  /// Opens a level: an immediate transaction at the outermost level (a writer never has
  /// to upgrade a read lock, which could deadlock with another process), a savepoint inside.
  public func begin() throws {
    try levelStatements(transactionDepth).open.execute()
    transactionDepth += 1
  }

  /// Closes the innermost level, keeping its changes. On failure the level stays open.
  /// The outermost level runs `willCommit` first, inside the transaction.
  public func commit() throws {
    precondition(transactionDepth > 0, "commit without begin")
    if transactionDepth == 1 { try willCommit?() }
    try levelStatements(transactionDepth - 1).close.execute()
    transactionDepth -= 1
    if transactionDepth == 0 {
      epoch &+= 1
      didEndTransaction?()
    }
  }

  /// Runs just before the outermost level's COMMIT, inside the transaction (last writes
  /// of the transaction's bookkeeping); when it throws, the transaction stays open and the
  /// caller rolls it back.
  public var willCommit: (() throws -> Void)?
  /// Runs once the outermost level has ended, committed or rolled back (also when SQLite
  /// had already rolled it back by itself): state that lives for one transaction ends here.
  public var didEndTransaction: (() -> Void)?

  /// The open/close statements of each nesting level, prepared once: every write request
  /// opens and closes a level, so this is on the hot path.
  private func levelStatements(_ depth: Int) throws -> (open: Statement, close: Statement) {
    while levels.count <= depth {
      let d = levels.count
      let open = d == 0 ? (isReadOnly ? "BEGIN DEFERRED" : "BEGIN IMMEDIATE") : "SAVEPOINT ms_sp\(d)"
      let close = d == 0 ? "COMMIT" : "RELEASE ms_sp\(d)"
      levels.append(
        (try Statement(connection: self, sql: open, persistent: true), try Statement(connection: self, sql: close, persistent: true)))
    }
    return levels[depth]
  }

  /// Closes the innermost level, undoing its changes.
  public func rollback() {
    precondition(transactionDepth > 0, "rollback without begin")
    epoch &+= 1
    // A statement mid-step would block the rollback.
    resetAllStatements()
    transactionDepth -= 1
    if isAutocommit {
      // SQLite already rolled the whole transaction back (some errors do, e.g. SQLITE_FULL
      // or an interrupted write): every level is gone, not just this one.
      if transactionDepth > 0 { transactionWasLost = true }
      transactionDepth = 0
      didEndTransaction?()
    } else if transactionDepth == 0 {
      try? execute("ROLLBACK")
      didEndTransaction?()
    } else {
      try? execute("ROLLBACK TO ms_sp\(transactionDepth); RELEASE ms_sp\(transactionDepth)")
    }
  }

  /// Set when a rollback found that SQLite had ended the outer transaction by itself;
  /// the owner reads and clears it to tell the client its transaction is gone.
  public var transactionWasLost = false

  // MARK: - Read snapshots

  /// Runs `body`, which only reads, on one snapshot of the database. In autocommit mode
  /// `body` runs inside `BEGIN DEFERRED ... COMMIT`: a read transaction, which takes no
  /// write lock (other connections keep writing; in WAL mode they are never blocked), and
  /// whose statements all see the database as it was at its first read, whatever commits
  /// meanwhile. Inside an open transaction (or snapshot) `body` just runs: that is already
  /// one snapshot. Unlike `begin()`, this never takes the write lock.
  public func readingOneSnapshot<T>(_ body: () throws -> T) throws -> T {
    guard isAutocommit else { return try body() }
    let (open, close) = try snapshotStatements()
    try open.runControl()
    let result: T
    do {
      result = try body()
    } catch {
      endSnapshot()
      throw error
    }
    do {
      try close.runControl()
    } catch {
      endSnapshot()
      throw error
    }
    return result
  }

  /// Ends a read snapshot whose body failed (SQLite may have ended it already).
  private func endSnapshot() {
    resetAllStatements()
    if !isAutocommit { try? execute("ROLLBACK") }
  }

  private var snapshot: (open: Statement, close: Statement)?

  private func snapshotStatements() throws -> (open: Statement, close: Statement) {
    if let snapshot { return snapshot }
    let s = (
      try Statement(connection: self, sql: "BEGIN DEFERRED", persistent: true),
      try Statement(connection: self, sql: "COMMIT", persistent: true)
    )
    snapshot = s
    return s
  }

  /// Resets every statement still stepping on this connection.
  public func resetAllStatements() {
    var s = sqlite3_next_stmt(handle, nil)
    while let stmt = s {
      if sqlite3_stmt_busy(stmt) != 0 { sqlite3_reset(stmt) }
      s = sqlite3_next_stmt(handle, stmt)
    }
  }

  // MARK: - Backup

  /// Copies the whole database to the file at `path` (a path, never a URI; the caller
  /// decides whether it may exist) with the online backup API: a consistent copy of
  /// what is committed. Refused while this connection has a transaction open (SQLite's
  /// backup cannot read a database its own connection is writing). Returns the pages copied.
  @discardableResult
  public func backup(to path: String) throws -> Int {
    guard isAutocommit else {
      throw SQLiteError(code: SQLITE_BUSY, message: "cannot back up while this connection has a transaction open")
    }
    var dest: OpaquePointer?
    let rc = sqlite3_open_v2(Self.fileName(forPath: path), &dest, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil)
    defer { sqlite3_close_v2(dest) }
    guard rc == SQLITE_OK, let dest else {
      throw SQLiteError(code: rc, message: dest.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open \(path)")
    }
    guard let b = sqlite3_backup_init(dest, "main", handle, "main") else {
      throw SQLiteError(code: sqlite3_extended_errcode(dest), message: String(cString: sqlite3_errmsg(dest)))
    }
    let step = sqlite3_backup_step(b, -1)
    let pages = Int(sqlite3_backup_pagecount(b))
    let finish = sqlite3_backup_finish(b)
    if step != SQLITE_DONE || finish != SQLITE_OK {
      throw SQLiteError(code: finish != SQLITE_OK ? finish : step, message: String(cString: sqlite3_errmsg(dest)))
    }
    return pages
  }

  public static var libraryVersion: String { String(cString: sqlite3_libversion()) }
}
