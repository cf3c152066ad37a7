import DatabaseKit
import JSONCore
import SchemaModel
import TimeZones

#if canImport(Glibc)
  import Glibc
#endif

/// A ModelStore store: one SQLite database holding a schema and its objects.
/// Confined to one thread; `interrupt()` alone may be called from another.
public final class Store {
  /// `PRAGMA application_id` of every ModelStore file ("MSTO"), so that other SQLite
  /// files are recognised and refused instead of being written to.
  public static let applicationID: Int32 = 0x4D53_544F
  /// The layout this code reads and writes (protocol.md, "Store file layout").
  public static let formatVersion = 2

  public let connection: any DatabaseConnection
  /// Set when opening upgraded this file from format 1 (Store+FormatUpgrade.swift).
  public internal(set) var formatUpgrade: FormatUpgradeReport?
  public let path: String?
  public internal(set) var isReadOnly: Bool
  public private(set) var graph: ModelGraph?
  /// Set when this store is a Core Data file opened in place (`openCoreData`): the facts
  /// `store.info` reports about it.
  public internal(set) var coreData: JSONObject?
  /// Run once by `close()` (a Core Data store removes its temporary copy).
  var closeActions: [() -> Void] = []
  var plans: [String: EntityPlan] = [:]
  /// `_ms_entities` as installed with the schema: entity codes of `_ent`.
  private(set) var entityCodes = EntityCodes()
  /// Keys of new rows (`_ms_keys`); its maxima are written just before each COMMIT.
  let keys: KeyAllocator
  var readPlans: [String: ReadPlan] = [:]
  var userTransactions = 0
  /// Set while `migrate` runs: schema changes and nested migrations are refused.
  var migrating = false
  /// History: the running request's changes, and one log per open client transaction.
  var requestLog = ChangeLog()
  var transactionLogs: [ChangeLog] = []
  /// False for a store without a history table (a read-only file written before it).
  var historyEnabled = false
  /// What `changedOutsideHistory` compares against (Store+ChangeCheck.swift).
  var outsideHistory = OutsideHistoryState()
  /// How much history this process keeps (HistoryRetention.swift), and when it last
  /// pruned by age.
  public var historyRetention = HistoryRetention.forever
  var lastRetentionPass: Double = 0
  /// False while bulk work (an import) records one summary instead of every object.
  var recordsObjectHistory = true
  /// SQLite's schema cookie when the installed schema was last read (`followSchemaChanges`).
  var schemaCookie: Int64?
  /// The WAL index's header when `followSchemaChanges` last read the cookie.
  var schemaCheckedAt: CommitMarker?
  /// Recorded as each history transaction's author: the request's, else the session's.
  public var requestAuthor: String?
  public var defaultAuthor: String?
  /// For tests only: runs after each object read by id (`object(_:withVersion:)`), that
  /// is between the statements of one request, to show they all read one snapshot.
  var afterObjectRead: (() -> Void)?
  /// Time zones loaded for date buckets (`ms_bucket`, request validation).
  let timeZones = TimeZoneCache()

  public struct OpenOptions {
    public var readOnly: Bool
    public var create: Bool
    /// False: commits write no history (and live queries see no changes); for stores
    /// whose writers need no history and measured against it in the benchmarks.
    public var history: Bool
    /// How much history this process's commits keep (`HistoryRetention`).
    public var historyRetention: HistoryRetention
    public init(readOnly: Bool = false, create: Bool = true, history: Bool = true, historyRetention: HistoryRetention = .forever) {
      self.readOnly = readOnly
      self.create = create
      self.history = history
      self.historyRetention = historyRetention
    }
  }

  /// Opens a file store (`path`, always a file path, never a URI) or an in-memory one
  /// (`path == nil`). A file that exists but is not a ModelStore store is refused with
  /// `notAStore` before SQLite opens it, so it is never written to (`StoreFileCheck`).
  public init(path: String?, options: OpenOptions = OpenOptions()) throws {
    if path == nil && (options.readOnly || !options.create) {
      throw StoreError(
        .invalidArgument, "an in-memory store starts empty, so it cannot be read-only or opened without creating it")
    }
    self.path = path
    self.isReadOnly = options.readOnly
    if let path { try StoreFileCheck.check(path, readOnly: options.readOnly, create: options.create) }
    do {
      connection = try SQLiteDatabase.open(path: path, readOnly: options.readOnly, create: options.create)
    } catch let e as any DatabaseError {
      throw StoreError(.notFound, "cannot open store '\(path ?? ":memory:")': \(e.message)", ["path": .string(path ?? ":memory:")])
    }
    keys = KeyAllocator(connection: connection)
    connection.willCommit = { [keys] in try keys.flush() }
    connection.didEndTransaction = { [keys] in keys.reset() }
    do {
      try prepare(create: options.create)
      if !options.history { historyEnabled = false }
      historyRetention = options.historyRetention
    } catch let e as any DatabaseError where e.isNotADatabase {
      connection.close()
      throw StoreError(.notAStore, "'\(path ?? "")' is not a ModelStore store (not an SQLite database)", ["path": .string(path ?? "")])
    } catch {
      connection.close()
      throw error
    }
  }

  private func prepare(create: Bool) throws {
    // One statement, so both come from one snapshot even while another process creates the file.
    let (tables, appID) =
      try connection.prepare("SELECT (SELECT count(*) FROM sqlite_schema), application_id FROM pragma_application_id").first {
        ($0.value(0), $0.value(1))
      } ?? (.integer(0), .integer(0))
    let isEmpty = tables == .integer(0)
    if isEmpty {
      guard create, !isReadOnly else {
        throw StoreError(.notAStore, "'\(path ?? "")' is empty and creation was not allowed", ["path": .string(path ?? "")])
      }
      try initializeFile()
    } else if appID != .integer(Int64(Store.applicationID)) {
      throw StoreError(
        .notAStore, "'\(path ?? "")' is an SQLite database but not a ModelStore store (application_id is not 'MSTO')",
        ["path": .string(path ?? "")])
    }
    try checkFormatVersion()
    if path != nil && !isReadOnly { try useWriteAheadLog() }
    try connection.execute("PRAGMA foreign_keys = OFF")
    try connection.createFunction("ms_fold", argumentCount: 2) { args in
      guard case .text(let s) = args[0] else { return args[0] }
      guard case .integer(let flags) = args[1] else { return args[0] }
      return .text(TextFolding.fold(s, caseInsensitive: flags & 1 != 0, diacriticInsensitive: flags & 2 != 0))
    }
    try RegexMatching.register(on: connection)
    try UUIDSQL.register(on: connection)
    if !isReadOnly { try createHistoryTable() }
    historyEnabled =
      try connection.hasTable(Store.historyTable)
    try connection.createFunction("ms_bucket", argumentCount: 3, DateBucket.sqlFunction(timeZones))
    try loadSchema()
  }

  /// WAL is a property of the file: set once, by whichever process gets there first. The
  /// switch takes an exclusive lock without waiting for the busy timeout, so processes
  /// opening a new file at once retry it for up to 5 s.
  private func useWriteAheadLog() throws {
    var attempts = 0
    while true {
      do {
        if try connection.scalar("PRAGMA journal_mode") != .text("wal") { try connection.execute("PRAGMA journal_mode = WAL") }
        break
      } catch let e as any DatabaseError where e.isBusy && attempts < 100 {
        attempts += 1
        usleep(50_000)
      }
    }
    try connection.execute("PRAGMA synchronous = NORMAL")
  }

  /// Creates the bookkeeping tables of a new store. Two processes opening the same new
  /// file at once both see it empty: the write lock is taken first and emptiness checked
  /// again under it, so only one of them creates the tables.
  private func initializeFile() throws {
    try connection.execute("BEGIN IMMEDIATE")
    do {
      if try connection.scalar("SELECT count(*) FROM sqlite_schema") == .integer(0) { try createBookkeeping() }
      try connection.execute("COMMIT")
    } catch {
      try? connection.execute("ROLLBACK")
      throw error
    }
  }

  private func createBookkeeping() throws {
    try connection.execute(
      """
      PRAGMA application_id = \(Store.applicationID);
      CREATE TABLE \(StorageLayout.metaTable) ("key" TEXT PRIMARY KEY, "value" TEXT NOT NULL);
      CREATE TABLE \(StorageLayout.versionsTable) ("seq" INTEGER PRIMARY KEY AUTOINCREMENT, "version" TEXT NOT NULL,
        "hash" TEXT NOT NULL, "schema" TEXT NOT NULL, "appliedAt" REAL NOT NULL);
      INSERT INTO \(StorageLayout.metaTable) VALUES ('format', 'modelstore'), ('formatVersion', '\(Store.formatVersion)');
      \(EntityCodes.createSQL);
      \(KeyAllocator.createSQL);
      """)
    try setMeta("createdAt", ISODate.format(currentTimeSeconds()))
  }

  func meta(_ key: String) throws -> String? {
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

  private func loadSchema() throws {
    if case .integer(let cookie)? = try connection.scalar("PRAGMA schema_version") { schemaCookie = cookie }
    guard let text = try meta("schema") else { return }
    let (schema, issues) = SchemaValidator.check(try JSONParser.parse(text))
    guard !issues.contains(where: { $0.severity == .error }) else {
      throw StoreError(.schemaMismatch, "the schema stored in this file does not validate: \(issues[0].message)")
    }
    try install(schema)
  }

  /// Refuses a file of another format version than this code's, before anything is
  /// written to it. One place: the upgrade of format 1 files replaces the refusal here.
  private func checkFormatVersion() throws {
    let stored = try meta("formatVersion")
    guard stored != String(Store.formatVersion) else { return }
    let name = path ?? ":memory:"
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

  /// Forgets the schema held in memory and reads the installed one again: after an
  /// import that defined a schema inside its transaction was rolled back.
  func reloadSchema() throws {
    graph = nil
    plans = [:]
    readPlans = [:]
    connection.clearCache()
    try loadSchema()
  }

  /// Rebuilds the per-entity plans for `schema` and reads the entity codes; the tables
  /// and `_ms_entities` must already match it.
  func install(_ schema: Schema) throws {
    let codes = try EntityCodes(connection: connection)
    if let missing = schema.entities.first(where: { codes.code($0.name) == nil }) {
      throw StoreError(
        .schemaMismatch, "entity '\(missing.name)' of the installed schema has no code in \(EntityCodes.table)",
        ["entity": .string(missing.name)])
    }
    let g = ModelGraph(schema)
    graph = g
    entityCodes = codes
    plans = [:]
    readPlans = [:]
    for m in g.ordered { plans[m.name] = EntityPlan(model: m, graph: g, codes: codes) }
    for m in g.ordered where m.isRoot { readPlans[m.name] = ReadPlan(root: m, graph: g, plans: plans, codes: codes) }
    connection.clearCache()
  }

  /// Finishes all work, checkpoints the WAL into the main file, and closes.
  public func close() {
    // Work left in an open client transaction was never committed: it is undone.
    while connection.transactionDepth > 0 { connection.rollback() }
    userTransactions = 0
    transactionLogs = []
    if path != nil && !isReadOnly { try? connection.execute("PRAGMA wal_checkpoint(TRUNCATE)") }
    connection.close()
    for action in closeActions { action() }
    closeActions = []
  }

  /// Aborts the running work (from any thread); the request fails with `cancelled`.
  public func interrupt() { connection.interrupt() }

  /// Forgets a cancellation aimed at earlier work; call before each request.
  public func resetInterrupt() { connection.clearInterrupt() }

  /// Another process may have changed the schema (`model.define`, a migration): when
  /// SQLite's schema cookie moved, the installed schema is read again. Call before each
  /// request, outside client transactions. The cookie is read (a read transaction of its
  /// own, about 1.5 µs) only when something was committed since it was last read: the
  /// WAL index's header, which every commit rewrites, is compared first (a file store
  /// opened for writing is in WAL mode; other stores read the cookie every time).
  public func followSchemaChanges() {
    guard path != nil, userTransactions == 0, !migrating else { return }
    let header = connection.commitMarker()
    if let header, header == schemaCheckedAt { return }
    schemaCheckedAt = nil
    guard case .integer(let cookie)? = try? connection.cached("PRAGMA schema_version").first([], { $0.value(0) }) else { return }
    // The header read before the cookie: a commit after it makes the next call look again.
    schemaCheckedAt = header
    if cookie != schemaCookie {
      try? reloadSchema()
      schemaCookie = cookie
    }
  }

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

  func requireGraph() throws -> ModelGraph {
    guard let graph else { throw StoreError(.noSchema, "the store has no schema yet: call model.define first") }
    return graph
  }

  func plan(_ entity: String) throws -> EntityPlan {
    _ = try requireGraph()
    guard let p = plans[entity] else { throw StoreError.unknownEntity(entity) }
    return p
  }

  func readPlan(for plan: EntityPlan) -> ReadPlan { readPlans[plan.model.root.name]! }

  func checkWritable() throws {
    if isReadOnly { throw StoreError(.readOnly, "the store was opened read-only") }
  }

  /// Runs a mutating operation atomically, translating SQLite failures.
  func write<T>(_ body: () throws -> T) throws -> T {
    try checkWritable()
    do {
      return try translatingErrors {
        try connection.inTransaction {
          let result = try body()
          // A cancel that arrived while the last statements ran still wins: nothing commits.
          try checkCancelled()
          try settleRequestLog()
          return result
        }
      }
    } catch {
      requestLog.removeAll()
      if connection.transactionWasLost {
        connection.transactionWasLost = false
        userTransactions = 0
        transactionLogs = []
        throw StoreError(
          .transaction, "the request failed and SQLite rolled back the whole client transaction (\(error)); nothing of it was kept",
          ["transactionRolledBack": true])
      }
      throw error
    }
  }

  /// Runs a request that only reads on one snapshot of the store, translating SQLite
  /// failures: all its statements see the same commits, whatever other connections
  /// commit meanwhile (`DatabaseConnection.readingOneSnapshot`; no write lock is taken). Inside a
  /// client transaction the transaction is that snapshot.
  public func readingOneSnapshot<T>(_ body: () throws -> T) throws -> T {
    try translatingErrors { try connection.readingOneSnapshot(body) }
  }

  func translatingErrors<T>(_ body: () throws -> T) throws -> T {
    do {
      return try body()
    } catch let e as any DatabaseError {
      throw StoreError(sqlite: e)
    }
  }
}

extension StoreError {
  /// The engine's view of a database failure (so far always SQLite's, whose codes the
  /// details carry); SQL text stays in the log, not the message.
  init(sqlite e: any DatabaseError) {
    if let cause = e.cause as? StoreError {
      // A Swift function of the statement failed with an engine error (MATCHES over its budget, cancelled).
      self = cause
    } else if e.isInterrupted {
      self.init(.cancelled, "the request was cancelled")
    } else if e.isBusy {
      self.init(.busy, "the store is locked by another connection (\(e.codeName)); try again", ["sqliteCode": .int(Int64(e.code))])
    } else if e.isIntegerOverflow {
      self.init(
        .invalidArgument, "a sum of stored integers is beyond 64 bits (-9223372036854775808 ... 9223372036854775807)",
        ["reason": "integerOverflow"])
    } else if e.isReadOnly {
      self.init(.readOnly, "the store cannot be written: \(e.message)", ["sqliteCode": .int(Int64(e.code))])
    } else {
      self.init(.storage, "storage error: \(e.message)", ["sqliteCode": .int(Int64(e.code)), "sqliteName": .string(e.codeName)])
    }
  }
}
