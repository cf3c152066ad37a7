import DatabaseKit
import JSONCore
import SchemaModel
import TimeZones

#if canImport(Glibc)
  import Glibc
#endif

/// A ModelStore store: a schema and its objects in one SQLite database (a file, or memory)
/// or one PostgreSQL schema (`StoreDatabase`).
/// Confined to one thread; `interrupt()` alone may be called from another. Its state is
/// kept in parts: the installed schema in `catalog` (SchemaCatalog.swift), what the
/// writes are in the middle of in `writes` (WriteState.swift), the history's settings in
/// `historySettings`; the `extension Store` files hold the operations.
public final class Store {
  /// `PRAGMA application_id` of every ModelStore file ("MSTO"), so that other SQLite
  /// files are recognised and refused instead of being written to.
  public static let applicationID: Int32 = 0x4D53_544F
  /// The layout this code reads and writes (protocol.md, "Store file layout").
  public static let formatVersion = 2

  public let connection: any DatabaseConnection
  /// The database the store lives in, and the engine's answers about it.
  let database: any StoreDatabase
  /// Set when opening upgraded this file from format 1 (Store+FormatUpgrade.swift).
  public internal(set) var formatUpgrade: FormatUpgradeReport?
  /// The store file's path; nil in memory and on a PostgreSQL server.
  public let path: String?
  public internal(set) var isReadOnly: Bool
  /// The installed schema: graph, plans, entity codes, and following other processes' changes.
  let catalog: SchemaCatalog
  /// The installed schema's graph (nil before `model.define`).
  public var graph: ModelGraph? { catalog.graph }
  /// The installed schema's entity codes (`_ms_entities`).
  var entityCodes: EntityCodes { catalog.entityCodes }
  /// Set when this store is a Core Data file opened in place (`openCoreData`): the facts
  /// `store.info` reports about it.
  public internal(set) var coreData: JSONObject?
  /// Run once by `close()` (a Core Data store removes its temporary copy).
  var closeActions: [() -> Void] = []
  /// Keys of new rows (`_ms_keys`); its maxima are written just before each COMMIT.
  let keys: KeyAllocator
  /// To-one targets the open write transaction found (Store+Links.swift, `targetID`).
  var targets = TargetMemo()
  /// Client transactions, the request's change log, the running migration.
  let writes = WriteState()
  /// Whether and how commits are recorded in the history, and their authors.
  var historySettings = HistorySettings()
  /// What `changedOutsideHistory` compares against (Store+ChangeCheck.swift).
  var outsideHistory = OutsideHistoryState()
  /// For tests only: runs after each object read by id (`object(_:withVersion:)`), that
  /// is between the statements of one request, to show they all read one snapshot.
  var afterObjectRead: (() -> Void)?
  /// A read snapshot of `readingOneSnapshot` is open (Store+SchemaFollowing.swift).
  var readingSnapshot = false
  /// Time zones loaded for date buckets (`ms_bucket`, request validation).
  let timeZones = TimeZoneCache()
  /// The `commits` of a PostgreSQL store this opening made, read once it was made
  /// (`discardCreatedStore`); nil when the store was there before.
  var createdStoreCommits: Int64?

  public struct OpenOptions {
    public var readOnly: Bool
    public var create: Bool
    /// False: commits write no history (and live queries see no changes); for stores
    /// whose writers need no history and measured against it in the benchmarks.
    public var history: Bool
    /// How much history this process's commits keep (`HistoryRetention`).
    public var historyRetention: HistoryRetention
    /// What opening does with a store that is already there: open it (the default), or,
    /// for a copy's target, refuse it or drop its tables and make a new store in their place.
    var existing = ExistingStore.open
    /// Opening runs inside a write transaction that stays open, for the caller to commit or
    /// roll back: on PostgreSQL a copy makes its target store in the copy's one transaction
    /// (`StoreCopy`). Not for SQLite files, whose journal mode cannot change inside one.
    var holdsTransaction = false
    public init(readOnly: Bool = false, create: Bool = true, history: Bool = true, historyRetention: HistoryRetention = .forever) {
      self.readOnly = readOnly
      self.create = create
      self.history = history
      self.historyRetention = historyRetention
    }
  }

  /// Opens a file store (`path`, always a file path, never a URI), an in-memory one
  /// (`path == nil`), or a store in a PostgreSQL schema (`path` a URL beginning
  /// `postgresql:` or `postgres:`, protocol.md "Store URLs"). A file that exists but is not
  /// a ModelStore store is refused with `notAStore` before SQLite opens it, so it is never
  /// written to (`StoreFileCheck`).
  public init(path: String?, options: OpenOptions = OpenOptions()) throws {
    if path == nil && (options.readOnly || !options.create) {
      throw StoreError(
        .invalidArgument, "an in-memory store starts empty, so it cannot be read-only or opened without creating it")
    }
    self.isReadOnly = options.readOnly
    if let path, PostgresDatabase.names(path) {
      self.path = nil
      database = try PostgresDatabase(location: path, readOnly: options.readOnly)
    } else {
      self.path = path
      if let path { try StoreFileCheck.check(path, readOnly: options.readOnly, create: options.create) }
      do {
        database = try SQLiteDatabase(path: path, readOnly: options.readOnly, create: options.create)
      } catch let e as any DatabaseError {
        throw StoreError(.notFound, "cannot open store '\(path ?? ":memory:")': \(e.message)", ["path": .string(path ?? ":memory:")])
      }
    }
    connection = database.connection
    keys = KeyAllocator(connection: connection)
    catalog = SchemaCatalog(database: database)
    connection.willCommit = { [keys] in try keys.flush() }
    connection.didEndTransaction = { [keys, catalog] in
      keys.reset()
      catalog.versions.endTransaction()
    }
    do {
      if options.holdsTransaction { try connection.begin() }
      try prepare(create: options.create, existing: options.existing)
      if let server = database as? PostgresDatabase, server.createdSchema { createdStoreCommits = try database.dataVersion() }
      if !options.history { historySettings.enabled = false }
      historyRetention = options.historyRetention
    } catch let e as any DatabaseError where e.isNotADatabase {
      connection.close()
      throw StoreError(.notAStore, "'\(path ?? "")' is not a ModelStore store (not an SQLite database)", ["path": .string(path ?? "")])
    } catch let e as any DatabaseError {
      connection.close()
      throw StoreError(sqlite: e)
    } catch {
      connection.close()
      throw error
    }
  }

  /// What `OpenOptions.existing` asks of a store found where one is opened.
  enum ExistingStore {
    case open, refuse, replace
  }

  private func prepare(create: Bool, existing: ExistingStore) throws {
    let name = database.displayName
    var contents = try database.contents()
    if contents == .store && existing != .open {
      guard existing == .replace else {
        throw StoreError(.invalidArgument, "'\(name)' already holds a ModelStore store", ["path": .string(name), "reason": "exists"])
      }
      try database.dropStoreTables()
      contents = try database.contents()
    }
    switch contents {
    case .store: break
    case .foreign(let what): throw StoreError(.notAStore, "'\(name)' is \(what)", ["path": .string(name)])
    case .empty, .missing:
      guard create, !isReadOnly else {
        if case .missing(let what) = contents {
          throw StoreError(.notFound, "\(what), and creation was not allowed", ["path": .string(name)])
        }
        throw StoreError(.notAStore, "'\(name)' is empty and creation was not allowed", ["path": .string(name)])
      }
      try database.initialize { try createBookkeeping() }
    }
    try checkFormatVersion()
    try database.configure(readOnly: isReadOnly)
    if database.callsSwiftFunctions {
      try connection.createFunction("ms_fold", argumentCount: 2) { args in
        guard case .text(let s) = args[0] else { return args[0] }
        guard case .integer(let flags) = args[1] else { return args[0] }
        return .text(TextFolding.fold(s, caseInsensitive: flags & 1 != 0, diacriticInsensitive: flags & 2 != 0))
      }
      try RegexMatching.register(on: connection)
      try UUIDSQL.register(on: connection)
    }
    if !isReadOnly { try createHistoryTable() }
    historySettings.enabled =
      try connection.hasTable(Store.historyTable)
    if database.callsSwiftFunctions { try connection.createFunction("ms_bucket", argumentCount: 3, DateBucket.sqlFunction(timeZones)) }
    try catalog.load()
  }

  /// Creates the bookkeeping tables of a new store (`StoreDatabase.initialize` runs it
  /// under the write lock).
  private func createBookkeeping() throws {
    try connection.execute(database.bookkeepingStatements)
    try setMeta("createdAt", ISODate.format(currentTimeSeconds()))
  }

  func meta(_ key: String) throws -> String? { try Store.meta(key, connection) }

  static func meta(_ key: String, _ connection: any DatabaseConnection) throws -> String? {
    if case .text(let s)? = try connection.scalar("SELECT \"value\" FROM \(StorageLayout.metaTable) WHERE \"key\" = ?", [.text(key)]) {
      return s
    }
    return nil
  }

  func setMeta(_ key: String, _ value: String) throws {
    try connection.run(
      connection.dialect.insertReplacing(into: StorageLayout.metaTable, columns: ["\"key\"", "\"value\""], key: ["\"key\""]),
      [.text(key), .text(value)])
  }

  /// Refuses a file of another format version than this code's, before anything is
  /// written to it. One place: the upgrade of format 1 files replaces the refusal here.
  private func checkFormatVersion() throws {
    let stored = try meta("formatVersion")
    guard stored != String(Store.formatVersion) else { return }
    let name = database.displayName
    if stored == "1" {
      // A writable file is upgraded in place (Store+FormatUpgrade.swift); a read-only
      // opening must not write, so it is refused with the way forward.
      if path != nil && !isReadOnly {
        formatUpgrade = try upgradeFormat1()
        return
      }
      throw StoreError(
        .formatTooOld,
        "'\(name)' is a ModelStore store of formatVersion 1; this version reads formatVersion \(Store.formatVersion) and upgrades a file when it opens it for writing: run `modelstore upgrade --store PATH` (or open it once without read-only); it was not changed",
        ["path": .string(name), "formatVersion": 1, "expected": .int(Int64(Store.formatVersion))])
    }
    throw StoreError(
      .notAStore,
      "'\(name)' has formatVersion \(stored.map { "'\($0)'" } ?? "missing"), which this version cannot read (it reads \(Store.formatVersion))",
      ["path": .string(name), "formatVersion": stored.map { .string($0) } ?? .null, "expected": .int(Int64(Store.formatVersion))])
  }

  /// Forgets the schema held in memory and reads the installed one again
  /// (`SchemaCatalog.reload`).
  func reloadSchema() throws { try catalog.reload() }

  /// `reloadSchema` after a rollback, its failure kept for the next request
  /// (`SchemaCatalog.reloadAfterRollback`).
  func reloadSchemaAfterRollback() { catalog.reloadAfterRollback() }

  /// Installs `schema` as the one in memory (`SchemaCatalog.install`).
  func install(_ schema: Schema, cookie: Int64? = nil) throws { try catalog.install(schema, cookie: cookie) }

  /// Finishes all work, checkpoints the WAL into the main file, and closes.
  public func close() {
    // Work left in an open client transaction was never committed: it is undone.
    while connection.transactionDepth > 0 { connection.rollback() }
    writes.forgetTransactions()
    database.willClose()
    connection.close()
    for action in closeActions { action() }
    closeActions = []
  }

  /// Aborts the running work (from any thread); the request fails with `cancelled`.
  public func interrupt() { connection.interrupt() }

  /// Forgets a cancellation aimed at earlier work; call before each request and after it.
  public func resetInterrupt() { connection.clearInterrupt() }

  /// Throws `cancelled` once `interrupt()` was called; loops over many objects call it.
  /// It runs the cancellation probe first, so a cancel that has arrived is seen here.
  func checkCancelled() throws {
    if connection.pollInterrupt() { throw StoreError(.cancelled, "the request was cancelled") }
  }

  /// Called between statements and while they run (see `DatabaseConnection.cancellationProbe`):
  /// the server reads its input there, and interrupts this store when the running request
  /// is cancelled.
  public var cancellationProbe: (() -> Void)? {
    get { connection.cancellationProbe }
    set { connection.cancellationProbe = newValue }
  }

  // MARK: - Lookups shared by the object code

  func requireGraph() throws -> ModelGraph { try catalog.requireGraph(mayReload: writes.canChangeSchema) }

  func plan(_ entity: String) throws -> EntityPlan { try catalog.plan(entity) }

  func readPlan(for plan: EntityPlan) -> ReadPlan { catalog.readPlan(for: plan) }

  func checkWritable() throws {
    if isReadOnly { throw StoreError(.readOnly, "the store was opened read-only") }
  }

  /// Runs a mutating operation atomically, translating SQLite failures. Outside a client
  /// transaction, one the database rolled back to resolve a conflict is run again
  /// (`retryingConflicts`, Store+Conflicts.swift), `rerun` first making its input ready to
  /// be read again; a body whose input cannot be read again passes nil. The schema it
  /// builds its statements from is the one its write transaction sees (`inWriteTransaction`).
  func write<T>(rerun: (() throws -> Void)? = {}, _ body: () throws -> T) throws -> T {
    try checkWritable()
    do {
      return try translatingErrors {
        try retryingConflicts(connection.transactionDepth == 0 ? rerun : nil) {
          try inWriteTransaction(rerun: rerun) {
            let result = try body()
            // A cancel that arrived while the last statements ran still wins: nothing commits.
            try checkCancelled()
            try settleRequestLog()
            return result
          }
        }
      }
    } catch {
      throw failedWrite(error)
    }
  }

  /// `write` for a request inside a client transaction that may need no level of its own.
  /// Where a failed statement undoes only itself and leaves the transaction usable
  /// (SQLite: `SQLDialect.failedStatementAbortsTransaction` false), a request whose one
  /// change is one statement, with nothing after it that can fail, is atomic through that
  /// statement's own atomicity: it saves the SAVEPOINT, its RELEASE, and the copy of each
  /// page the request changes into the savepoint's journal. `body` decides before its
  /// first change (`WriteContext.levelOnDemand`, `insertObject`): it opens the level then
  /// (this closes it as `write` would) unless that change is the last thing that can fail,
  /// and then checks for a cancel before making it. A failure before the change leaves
  /// nothing in the database; one of the statement itself is undone by SQLite (or ends the
  /// whole transaction, which is then reported as `write` reports it). Anywhere else
  /// (outside a client transaction, PostgreSQL) this is `write`.
  func writeOpeningLevelOnDemand<T>(_ ctx: WriteContext, _ body: () throws -> T) throws -> T {
    guard writes.userTransactions > 0, connection.transactionDepth > 0, !connection.dialect.failedStatementAbortsTransaction else {
      return try write(body)
    }
    try checkWritable()
    let depth = connection.transactionDepth
    ctx.levelOnDemand = true
    do {
      return try translatingErrors {
        do {
          let result = try body()
          if connection.transactionDepth > depth {
            try checkCancelled()
            try settleRequestLog()
            try connection.commit()
          } else {
            try settleRequestLog()  // into the open client transaction's log: in memory
          }
          return result
        } catch {
          if connection.transactionDepth > depth {
            connection.rollback()
          } else if connection.isAutocommit {
            // SQLite ended the client transaction with the failed statement (as `rollback` finds).
            connection.transactionWasLost = true
          }
          throw error
        }
      }
    } catch {
      throw failedWrite(error)
    }
  }

  /// Runs a mutating operation for real and then rolls it back, whatever happens: a dry
  /// run whose answer (or error) is exactly the write's, such as `objects.delete
  /// {dryRun}`. It takes the write lock as the write would; nothing is committed and no
  /// history is written.
  func dryRun<T>(_ body: () throws -> T) throws -> T {
    try checkWritable()
    do {
      let result = try translatingErrors {
        try beginFollowingSchema()
        defer { connection.rollback() }
        return try body()
      }
      writes.requestLog.removeAll()
      if connection.transactionWasLost {
        throw lostClientTransaction(StoreError(.storage, "the dry run's savepoint was lost"))
      }
      return result
    } catch {
      throw failedWrite(error)
    }
  }

  /// What a failed write throws once its change log is dropped: its own error, or a
  /// `transaction` error when the database ended the whole client transaction with it.
  private func failedWrite(_ error: Error) -> Error {
    writes.requestLog.removeAll()
    return connection.transactionWasLost ? lostClientTransaction(error) : error
  }

  /// The database ended the client transaction itself (SQLite after some failures,
  /// PostgreSQL when the connection was lost): every level is gone, and the client is told
  /// with the failure of `what` ("the request", "the commit") that revealed it.
  func lostClientTransaction(_ error: Error, _ what: String = "the request") -> StoreError {
    while connection.transactionDepth > 0 { connection.rollback() }
    connection.transactionWasLost = false
    writes.forgetTransactions()
    return StoreError(
      .transaction,
      "\(what) failed and \(database.engineName) rolled back the whole client transaction (\(error)); nothing of it was kept",
      ["transactionRolledBack": true])
  }

  /// Runs `body`, translating database failures; one that ended the client transaction
  /// (`transactionWasLost`, or no transaction left on the database while levels are
  /// open) ends the store's too, whatever request met it.
  func translatingErrors<T>(_ body: () throws -> T) throws -> T {
    do {
      return try body()
    } catch let e as any DatabaseError {
      let ended = writes.userTransactions > 0 && connection.transactionDepth > 0 && connection.isAutocommit
      if connection.transactionWasLost || ended { throw lostClientTransaction(StoreError(sqlite: e)) }
      throw StoreError(sqlite: e)
    }
  }
}

extension StoreError {
  /// The engine's view of a database failure: SQLite's codes in the details
  /// (`sqliteCode`, `sqliteName`), PostgreSQL's SQLSTATE (`sqlstate`); SQL text stays in
  /// the log, not the message.
  init(sqlite e: any DatabaseError) {
    let codes: JSONObject = e.sqlState.map { ["sqlstate": .string($0)] } ?? ["sqliteCode": .int(Int64(e.code))]
    if let cause = e.cause as? StoreError {
      // A Swift function of the statement failed with an engine error (MATCHES over its budget, cancelled).
      self = cause
    } else if e.isInterrupted {
      self.init(.cancelled, "the request was cancelled")
    } else if e.isConflict {
      self.init(
        .busy,
        "the database rolled the request back to resolve a conflict with another connection (\(e.codeName): \(e.message)); try again",
        codes)
    } else if e.isBusy {
      self.init(.busy, "the store is locked by another connection (\(e.codeName)); try again", codes)
    } else if e.isIntegerOverflow {
      self.init(
        .invalidArgument, "a sum of stored integers is beyond 64 bits (-9223372036854775808 ... 9223372036854775807)",
        ["reason": "integerOverflow"])
    } else if e.isReadOnly {
      self.init(.readOnly, "the store cannot be written: \(e.message)", codes)
    } else if e.isConstraint {
      // A constraint the engine did not explain itself (on PostgreSQL, a uniqueness two
      // objects of one request break: the savepoint that held the first is undone).
      var details = codes
      details["constraint"] = "unique"
      self.init(.constraint, "a uniqueness constraint was violated: \(e.message)", details)
    } else if e.isConnectionFailure {
      // The server rolled back the open transaction: nothing of it was written.
      var details = codes
      details["reason"] = "connectionLost"
      self.init(.storage, "storage error: \(e.message) (the server rolled back what was not committed)", details)
    } else if let state = e.sqlState {
      self.init(.storage, "storage error: \(e.message)", ["sqlstate": .string(state)])
    } else {
      self.init(.storage, "storage error: \(e.message)", ["sqliteCode": .int(Int64(e.code)), "sqliteName": .string(e.codeName)])
    }
  }
}
