import DatabaseKit
import JSONCore
import SQLiteCore

#if canImport(Glibc)
  import Glibc
#endif

/// The one place the engine names its SQLite implementation of the database seam
/// (besides the Core Data store reader, which reads SQLite files by nature): it opens
/// the connection a `Store` keeps on a file or in memory, and answers the store's
/// questions about it (`StoreDatabase`) with SQLite's pragmas.
final class SQLiteDatabase: StoreDatabase {
  let connection: any DatabaseConnection
  let filePath: String?

  /// Opens the store file at `path` (always a file path, never a URI), or an in-memory
  /// database when `path` is nil.
  init(path: String?, readOnly: Bool, create: Bool) throws {
    let options = Connection.Options(readOnly: readOnly, create: create)
    connection = try path.map { try Connection(file: $0, options: options) } ?? Connection(path: ":memory:", options: options)
    filePath = path
  }

  /// The name to give SQLite in SQL text (`VACUUM INTO ?`) so that it writes `path` as a file.
  static func fileName(forPath path: String) -> String { Connection.fileName(forPath: path) }

  var displayName: String { filePath ?? ":memory:" }
  var isShared: Bool { filePath != nil }
  var engineName: String { "SQLite" }
  var callsSwiftFunctions: Bool { true }
  var attachesSQLiteFiles: Bool { true }
  var backsUpByCopyingRows: Bool { false }

  /// Empty without a table; a store with ModelStore's `application_id` ("MSTO").
  func contents() throws -> DatabaseContents {
    // One statement, so both come from one snapshot even while another process creates the file.
    let (tables, appID) =
      try connection.prepare("SELECT (SELECT count(*) FROM sqlite_schema), application_id FROM pragma_application_id").first {
        ($0.value(0), $0.value(1))
      } ?? (.integer(0), .integer(0))
    if tables == .integer(0) { return .empty }
    if appID != .integer(Int64(Store.applicationID)) {
      return .foreign("an SQLite database but not a ModelStore store (application_id is not 'MSTO')")
    }
    return .store
  }

  /// Two processes opening the same new file at once both see it empty: the write lock
  /// is taken first and emptiness checked again under it, so only one of them creates
  /// the tables.
  func initialize(_ create: () throws -> Void) throws {
    try connection.execute("BEGIN IMMEDIATE")
    do {
      if try connection.scalar("SELECT count(*) FROM sqlite_schema") == .integer(0) { try create() }
      try connection.execute("COMMIT")
    } catch {
      try? connection.execute("ROLLBACK")
      throw error
    }
  }

  var bookkeepingStatements: String {
    """
    PRAGMA application_id = \(Store.applicationID);
    CREATE TABLE \(StorageLayout.metaTable) ("key" TEXT PRIMARY KEY, "value" TEXT NOT NULL);
    CREATE TABLE \(StorageLayout.versionsTable) ("seq" INTEGER PRIMARY KEY AUTOINCREMENT, "version" TEXT NOT NULL,
      "hash" TEXT NOT NULL, "schema" TEXT NOT NULL, "appliedAt" REAL NOT NULL);
    INSERT INTO \(StorageLayout.metaTable) VALUES ('format', 'modelstore'), ('formatVersion', '\(Store.formatVersion)');
    \(EntityCodes.createSQL);
    \(KeyAllocator.createSQL);
    """
  }

  func dropStoreTables() throws {
    var tables: [String] = []
    try connection.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'")
      .forEachRow { tables.append($0.text(0)) }
    for t in tables { try connection.execute("DROP TABLE \(Identifier.quote(t))") }
  }

  /// Nothing to do: `AUTOINCREMENT` goes past the largest key inserted, and codes are
  /// given by the engine.
  func followCopiedIdentities() throws {}

  func configure(readOnly: Bool) throws {
    if filePath != nil && !readOnly { try useWriteAheadLog() }
    try connection.execute("PRAGMA foreign_keys = OFF")
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

  /// The number of schema versions recorded (`max("seq")` of `_ms_schema_versions`, one
  /// row per `model.define` or migration stage), as on PostgreSQL. (Not SQLite's own
  /// `schema_version`, which moves with DDL only: a new version that changes no table, a
  /// default or an attribute's optionality, would go unseen.)
  func schemaCookie() throws -> Int64? {
    try connection.cached("SELECT coalesce(max(\"seq\"), 0) FROM \(StorageLayout.versionsTable)").first([]) { $0.int(0) }
  }

  /// `PRAGMA data_version`: it changes when another connection commits.
  func dataVersion() throws -> Int64? {
    if case .integer(let version)? = try connection.scalar("PRAGMA data_version") { return version }
    return nil
  }

  func facts() throws -> [JSONObject.Member] {
    var out: [JSONObject.Member] = []
    let pages = try connection.scalar("PRAGMA page_count")
    let pageSize = try connection.scalar("PRAGMA page_size")
    if case .integer(let p)? = pages, case .integer(let s)? = pageSize { out.append(.init("sizeBytes", .int(p * s))) }
    if case .text(let mode)? = try connection.scalar("PRAGMA journal_mode") { out.append(.init("journalMode", .string(mode))) }
    return out
  }

  func integrityCheck() throws -> [String]? {
    var lines: [String] = []
    try connection.prepare("PRAGMA integrity_check").forEachRow { lines.append($0.text(0)) }
    return lines
  }

  func columnNames(_ table: String) throws -> Set<String> {
    var names: Set<String> = []
    try connection.prepare("SELECT name FROM pragma_table_info(?)").forEachRow([.text(table)]) { names.insert($0.text(0)) }
    return names
  }

  /// Moves the WAL's pages into the file, so that a closed store is one file again.
  func willClose() {
    if filePath != nil && !connection.isReadOnly { try? connection.execute("PRAGMA wal_checkpoint(TRUNCATE)") }
  }
}

extension Store {
  /// The version of the SQLite library the stores use (`store.info`, `initialize`).
  public static var sqliteVersion: String { Connection.libraryVersion }
}
