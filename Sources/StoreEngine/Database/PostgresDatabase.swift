import DatabaseKit
import JSONCore
import PostgresCore

/// The one place the engine names its PostgreSQL implementation of the database seam: it
/// opens the connection of a store that lives in a PostgreSQL schema
/// (`postgresql://user@host/db?schema=NAME`, protocol.md "Store URLs") and answers the
/// store's questions about it (`StoreDatabase`) from PostgreSQL's catalog and the store's
/// own tables:
/// - the store is the schema: it is new when the schema has no table (or does not exist,
///   and is then created), and a store when it has `_ms_meta`;
/// - the schema cookie is the number of schema versions recorded (`max(seq)` of
///   `_ms_schema_versions`, one row per `model.define` or migration stage);
/// - the data version is the `commits` row of `_ms_meta`, which every write transaction
///   raises in the message that commits it (`PostgresConnection.commitPrelude`), with a
///   `NOTIFY` on the store's channel, which live queries in other servers listen on
///   (`changeNotifications`).
final class PostgresDatabase: StoreDatabase {
  let postgres: PostgresConnection
  var connection: any DatabaseConnection { postgres }
  var filePath: String? { nil }
  var displayName: String { postgres.url.redacted }
  var isShared: Bool { true }
  var engineName: String { "PostgreSQL" }
  var callsSwiftFunctions: Bool { false }
  var attachesSQLiteFiles: Bool { false }

  /// True when `location` names a PostgreSQL store rather than a file (it begins with
  /// `postgresql:` or `postgres:`).
  static func names(_ location: String) -> Bool { PostgresURL.names(location) }

  /// Connects to the server and schema `location` names; failures are told apart
  /// (malformed URL, unreachable server, refused credentials, missing database), their
  /// messages without a password.
  init(location: String, readOnly: Bool) throws {
    let url: PostgresURL
    do {
      url = try PostgresURL(location)
    } catch let e as PostgresError {
      throw StoreError(.invalidArgument, e.message, ["reason": "malformedURL"])
    }
    do {
      postgres = try PostgresConnection(url: url, options: PostgresConnection.Options(readOnly: readOnly))
    } catch let e as PostgresError {
      throw Self.openingError(e, url: url)
    }
    if !readOnly { postgres.commitPrelude = [Self.countCommitSQL, "NOTIFY " + Identifier.quote(postgres.notifyChannel)] }
  }

  static func openingError(_ e: PostgresError, url: PostgresURL) -> StoreError {
    let shown = url.redacted
    switch e.connectFailure {
    case .unreachable?:
      return StoreError(
        .storage, "cannot reach the PostgreSQL server of '\(shown)': \(e.message)", ["path": .string(shown), "reason": "unreachable"])
    case .authentication?:
      return StoreError(
        .storage, "the PostgreSQL server refused the credentials for '\(shown)': \(e.message)",
        ["path": .string(shown), "reason": "authentication"])
    case .noDatabase?:
      return StoreError(
        .notFound, "the database of '\(shown)' does not exist: \(e.message)", ["path": .string(shown), "reason": "noDatabase"])
    default:
      return StoreError(
        .storage, "cannot open the PostgreSQL store '\(shown)': \(e.message)",
        ["path": .string(shown), "reason": "refused", "sqlstate": .string(e.codeName)])
    }
  }

  // MARK: - A new store

  func contents() throws -> DatabaseContents {
    let row = try postgres.cached(
      """
      SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = ?1), \
      (SELECT count(*) FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace \
      WHERE n.nspname = ?1 AND c.relkind IN ('r', 'p', 'v', 'm', 'f', 'S')), \
      EXISTS (SELECT 1 FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace \
      WHERE n.nspname = ?1 AND c.relname = '\(StorageLayout.metaTable)' AND c.relkind IN ('r', 'p'))
      """
    ).first([.text(postgres.schema)]) { ($0.int(0) == 1, $0.int(1), $0.int(2) == 1) }
    guard let (exists, relations, hasMeta) = row else { return .empty }
    if !exists {
      return .missing("the schema '\(postgres.schema)' does not exist in the database of '\(displayName)'")
    }
    if relations == 0 { return .empty }
    if !hasMeta {
      return .foreign(
        "a PostgreSQL schema ('\(postgres.schema)') with \(relations) table\(relations == 1 ? "" : "s") or other relations but not a ModelStore store (it has no \(StorageLayout.metaTable) table); name another schema with ?schema=NAME"
      )
    }
    return .store
  }

  /// Creates the schema when it is missing and the store's tables (and functions) when it
  /// is still empty,
  /// in one transaction under the store's write lock (which every writer takes first), so
  /// that of several servers creating the store at once exactly one does. (A schema that
  /// exists needs no right to create schemas in the database.)
  func initialize(_ create: () throws -> Void) throws {
    var made = false
    try postgres.inTransaction {
      if case .missing = try contents() {
        try postgres.execute("CREATE SCHEMA \(Identifier.quote(postgres.schema))")
        made = true
      }
      if try contents() == .empty {
        try create()
        try installFunctions()
      }
    }
    createdSchema = made
  }

  /// This opening made the schema (`CREATE SCHEMA`), which `discardCreated` may drop again.
  private(set) var createdSchema = false

  /// The tables of `SQLiteDatabase.bookkeepingStatements` in PostgreSQL's types; the
  /// versions are numbered by an identity column (never reused, as AUTOINCREMENT), and
  /// `_ms_meta` counts the commits (`commits`).
  var bookkeepingStatements: String {
    let d = postgres.dialect
    let (integer, text, real) = (d.columnType(.integer), d.columnType(.text), d.columnType(.real))
    return """
      CREATE TABLE \(StorageLayout.metaTable) ("key" \(text) PRIMARY KEY, "value" \(text) NOT NULL);
      CREATE TABLE \(StorageLayout.versionsTable) ("seq" \(integer) GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, \
      "version" \(text) NOT NULL, "hash" \(text) NOT NULL, "schema" \(text) NOT NULL, "appliedAt" \(real) NOT NULL);
      INSERT INTO \(StorageLayout.metaTable) VALUES ('format', 'modelstore'), ('formatVersion', '\(Store.formatVersion)'), ('commits', '0');
      CREATE TABLE "\(EntityCodes.table)" ("code" \(integer) GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, "name" \(text) NOT NULL UNIQUE);
      CREATE TABLE "\(KeyAllocator.table)" ("name" \(text) PRIMARY KEY, "max" \(integer) NOT NULL)
      """
  }

  /// Drops the tables of the schema (their indexes and identity sequences go with them),
  /// without CASCADE: a view of the user's on a table makes it fail. The store's functions
  /// stay (`configure` makes them again when they are not this version's).
  func dropStoreTables() throws {
    var tables: [String] = []
    try postgres.prepare(
      """
      SELECT c.relname FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace \
      WHERE n.nspname = ? AND c.relkind IN ('r', 'p') ORDER BY c.relname
      """
    ).forEachRow([.text(postgres.schema)]) { tables.append($0.text(0)) }
    guard !tables.isEmpty else { return }
    try postgres.execute("DROP TABLE \(tables.map(Identifier.quote).joined(separator: ", "))")
  }

  /// The identity sequences of `_ms_schema_versions."seq"` and `_ms_entities."code"` are
  /// set to the largest value in their column, so the next generated one goes past it.
  func followCopiedIdentities() throws {
    for (table, column) in [(StorageLayout.versionsTable, "seq"), (EntityCodes.table, "code")] {
      try postgres.execute(
        "SELECT setval(pg_get_serial_sequence(\(StringLiteral.quote(Identifier.quote(table))), \(StringLiteral.quote(column))), coalesce(max(\(Identifier.quote(column))), 0) + 1, false) FROM \(Identifier.quote(table))"
      )
    }
  }

  /// The connection set its session (search path, lock timeout) itself; a writable opening
  /// installs the store's SQL functions again when they are not this version's
  /// (PostgresDatabase+Functions.swift).
  func configure(readOnly: Bool) throws {
    if !readOnly { try updateFunctions() }
  }

  // MARK: - Other connections' changes

  /// Raises `commits` in `_ms_meta`, sent with every COMMIT.
  private static let countCommitSQL =
    "UPDATE \(StorageLayout.metaTable) SET \"value\" = CAST(CAST(\"value\" AS bigint) + 1 AS text) WHERE \"key\" = 'commits'"

  /// A connection of its own listening on the store's channel: each write transaction's
  /// COMMIT carries a `NOTIFY` there, delivered once it has committed.
  func changeNotifications() throws -> ChangeNotifications? {
    let listener: PostgresListener
    do {
      listener = try PostgresListener(url: postgres.url, channel: postgres.notifyChannel)
    } catch let e as PostgresError {
      throw Self.openingError(e, url: postgres.url)
    }
    return ChangeNotifications(descriptor: { listener.descriptor }, read: { listener.read() })
  }

  private static let schemaCookieSQL = "SELECT coalesce(max(\"seq\"), 0) FROM \(StorageLayout.versionsTable)"

  func schemaCookie() throws -> Int64? { try postgres.cached(Self.schemaCookieSQL).first([]) { $0.int(0) } }

  /// Asked in the opening's pipeline (`PostgresConnection.expectAtNextOpening`): a write
  /// transaction's after the store's write lock, which every schema change holds; a read
  /// snapshot's after `ACCESS SHARE` on `_ms_schema_versions`, taken before the snapshot
  /// (`LOCK` takes none), which a schema change's `ACCESS EXCLUSIVE` (`willChangeSchema`)
  /// waits for and makes wait: no schema change commits between the snapshot and its reads.
  func askSchemaCookieAtOpening(_ expected: Int64, snapshot: Bool) throws -> Bool {
    try postgres.expectAtNextOpening(snapshot ? [Self.readerLockSQL] : [], Self.schemaCookieSQL, [], answer: .integer(expected))
    return true
  }

  private static let readerLockSQL = "LOCK TABLE \(StorageLayout.versionsTable) IN ACCESS SHARE MODE"

  var staleOpenings: Int { postgres.staleOpenings }
  var openingAnswered: Bool { postgres.expectationAnswered }
  func sendOpening() throws { try postgres.sendPendingExpectation() }
  func acceptStaleOpening() { postgres.acceptStaleOpening() }

  /// PostgreSQL's DDL is not seen through snapshots: a reader whose snapshot began before a
  /// schema change committed would run its statements against the new tables (a renamed
  /// column missing, a converted one read as null). Readers take `ACCESS SHARE` on
  /// `_ms_schema_versions` before their snapshot; this waits for those reading and keeps
  /// new ones waiting until the change ends.
  func willChangeSchema() throws {
    try postgres.execute("LOCK TABLE \(StorageLayout.versionsTable) IN ACCESS EXCLUSIVE MODE")
  }

  func dataVersion() throws -> Int64? {
    try postgres.cached("SELECT CAST(\"value\" AS bigint) FROM \(StorageLayout.metaTable) WHERE \"key\" = 'commits'").first([]) {
      $0.int(0)
    }
  }

  // MARK: - Facts and maintenance

  /// The size of the schema's tables and indexes, and where the store lives.
  func facts() throws -> [JSONObject.Member] {
    let row = try postgres.cached(
      """
      SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint, current_database() \
      FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace \
      WHERE n.nspname = ? AND c.relkind IN ('r', 'p', 'm')
      """
    ).first([.text(postgres.schema)]) { ($0.int(0), $0.text(1)) }
    let server: JSONObject = [
      "database": .string(row?.1 ?? ""), "schema": .string(postgres.schema), "serverVersion": .string(postgres.serverVersion),
    ]
    return [.init("sizeBytes", .int(row?.0 ?? 0)), .init("postgresql", .object(server))]
  }

  /// None: PostgreSQL keeps its own structures sound (and checks them with amcheck, an
  /// extension a store cannot count on); the store's own checks still run.
  func integrityCheck() throws -> [String]? { nil }

  func columnNames(_ table: String) throws -> Set<String> {
    var names: Set<String> = []
    try postgres.cached(
      """
      SELECT a.attname FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_class c ON c.oid = a.attrelid \
      JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace \
      WHERE n.nspname = ? AND c.relname = ? AND a.attnum > 0 AND NOT a.attisdropped
      """
    ).forEachRow([.text(postgres.schema), .text(postgres.dialect.storedName(table))]) { names.insert($0.text(0)) }
    return names
  }

  var backsUpByCopyingRows: Bool { true }

  /// True when the database has a schema named `name`.
  func schemaExists(_ name: String) throws -> Bool {
    try postgres.scalar("SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = ?", [.text(name)]) != nil
  }

  /// The URL of the schema `schema` of this store's database, for opening a store there.
  func location(schema: String) -> String { postgres.url.location(schema: schema) }

  func willClose() {}
}

extension Store {
  /// True when `location` (a `--store` value, `store.open`'s `path`) names a store on a
  /// PostgreSQL server rather than a file.
  public static func isServerLocation(_ location: String) -> Bool { PostgresDatabase.names(location) }

  /// `location` as messages and logs may show it: a PostgreSQL URL without its password
  /// (one that cannot be read is not shown at all); a file path as it is.
  public static func displayName(of location: String) -> String {
    guard PostgresDatabase.names(location) else { return location }
    guard let url = try? PostgresURL(location) else { return "(a malformed PostgreSQL URL)" }
    return url.redacted
  }
}
