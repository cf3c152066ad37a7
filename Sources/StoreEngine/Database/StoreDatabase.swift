import DatabaseKit
import JSONCore

/// What a `Store` asks of the database it lives in beyond the SQL of its objects: how the
/// store is named, how a new one is recognised and set up, the evidence of other
/// connections' changes, and the engine's own maintenance. One implementation per engine,
/// beside its opener (the one file that names the engine's module): `SQLiteDatabase` (a
/// file, or memory) and `PostgresDatabase` (a schema on a server). `Store.init` picks it
/// for the location it is given.
protocol StoreDatabase: AnyObject {
  var connection: any DatabaseConnection { get }
  /// The store file's path; nil in memory and on a server.
  var filePath: String? { get }
  /// The store's name in messages and `store.info`: a file path, `:memory:`, or a server
  /// URL without its password.
  var displayName: String { get }
  /// Other connections may open the same store (a file, a server schema): the store
  /// follows their schema changes.
  var isShared: Bool { get }
  /// The engine's name in messages ("SQLite").
  var engineName: String { get }

  /// What the database holds now, read in one snapshot.
  func contents() throws -> DatabaseContents
  /// Makes an empty (or missing) database a new store: runs `create` under the write
  /// lock when the database is still empty there, so that of several processes creating
  /// it at once exactly one does.
  func initialize(_ create: () throws -> Void) throws
  /// The statements that create a new store's bookkeeping tables (`_ms_meta`,
  /// `_ms_schema_versions`, `_ms_entities`, `_ms_keys`) with their first rows.
  var bookkeepingStatements: String { get }
  /// Drops every table of the store, inside the caller's transaction, so that a new store
  /// is made in its place (a copy given `--force`). Nothing else goes: something of the
  /// user's that depends on a table makes the drop fail.
  func dropStoreTables() throws
  /// Rows were written into `_ms_schema_versions` and `_ms_entities` with their own `seq`
  /// and `code` (a copy): the numbers the database generates next go past them.
  func followCopiedIdentities() throws
  /// The connection's settings for a store of this version (journal mode, pragmas).
  func configure(readOnly: Bool) throws
  /// Whether SQL can call functions written in Swift (`DatabaseConnection.createFunction`).
  var callsSwiftFunctions: Bool { get }
  /// Whether another SQLite file can be attached to the connection (`import.coreData`).
  var attachesSQLiteFiles: Bool { get }

  /// A number that changes whenever any connection changes the store's schema.
  func schemaCookie() throws -> Int64?
  /// Asks for the schema cookie to be read in the round trip that opens the next write
  /// transaction (after its write lock) or, with `snapshot`, read snapshot (after a lock
  /// that orders it after schema changes, `willChangeSchema`), checked against `expected`
  /// there; a statement sent with it fails when it is not, and `staleOpenings` counts it.
  /// False when the engine has no such round trip (SQLite, in the process: the cookie is
  /// read once the transaction or snapshot is open).
  func askSchemaCookieAtOpening(_ expected: Int64, snapshot: Bool) throws -> Bool
  /// How many times the cookie asked at an opening was not the one expected.
  var staleOpenings: Int { get }
  /// The cookie asked at the last opening was answered (whether or not it was expected):
  /// false when no statement of that transaction reached the database.
  var openingAnswered: Bool { get }
  /// Sends the opening of the transaction or snapshot just begun, with the cookie asked
  /// there, when no statement has yet (one round trip); fails as a stale opening does.
  func sendOpening() throws
  /// The schema was read again after a stale opening: statements may run again.
  func acceptStaleOpening()
  /// Called first in a write transaction that changes the schema: readers of other
  /// connections that could see its DDL before its schema (PostgreSQL plans against the
  /// catalog as it is, whatever a reader's snapshot) are kept out until it ends.
  func willChangeSchema() throws
  /// A number that changes when another connection commits to the store.
  func dataVersion() throws -> Int64?
  /// What tells live queries that another connection committed, when the engine has its
  /// own way (PostgreSQL's notifications); nil to watch the store's files
  /// (`Store.watchedFiles`).
  func changeNotifications() throws -> ChangeNotifications?

  /// The engine's facts for `store.info`, after `counts` (size, journal mode, server).
  func facts() throws -> [JSONObject.Member]
  /// The engine's check of its own structures for `store.check`: `["ok"]` when sound, the
  /// problems otherwise; nil when the engine offers none.
  func integrityCheck() throws -> [String]?
  /// The columns of the store's table `table`, by their stored names
  /// (`SQLDialect.storedName`).
  func columnNames(_ table: String) throws -> Set<String>
  /// The database cannot copy itself into a file (SQLite's online backup): `store.backup`
  /// copies the store's rows into a new SQLite file instead (`StoreCopy.backup`).
  var backsUpByCopyingRows: Bool { get }
  /// Maintenance before the connection closes (a checkpoint).
  func willClose()
}

/// What `StoreDatabase.contents()` finds.
enum DatabaseContents: Equatable {
  /// Nothing at all (a server schema that does not exist): `missing` says what.
  case missing(String)
  /// No table: a new store is made here.
  case empty
  /// A ModelStore store.
  case store
  /// Something else: `description` completes "'NAME' is ...".
  case foreign(String)
}

extension StoreDatabase {
  /// None: the store's files tell (SQLite).
  func changeNotifications() throws -> ChangeNotifications? { nil }

  // An engine without an opening round trip (SQLite) reads the cookie in the transaction or
  // snapshot once it is open, and its readers see the schema of their snapshot.
  func askSchemaCookieAtOpening(_ expected: Int64, snapshot: Bool) throws -> Bool { false }
  var staleOpenings: Int { 0 }
  var openingAnswered: Bool { true }
  func sendOpening() throws {}
  func acceptStaleOpening() {}
  func willChangeSchema() throws {}
}
