import Foundation
import XCTest

/// The engine the end-to-end and golden suites run their stores on: SQLite by default,
/// PostgreSQL when `MODELSTORE_TEST_ENGINE=postgresql` (then `MODELSTORE_TEST_PG` names the
/// cluster). `make test` runs those suites a second time so (CONTRIBUTING, "Tests on both
/// engines"). On PostgreSQL the helpers give every store a schema of its own instead of a
/// file or memory: a server started with `--memory` (or without `--store`) serves a fresh
/// schema (`ServerProcess`), and `TemporaryDirectory.store(_:)` names a schema where it
/// names a file on SQLite. A test whose subject is a SQLite file by nature (Core Data
/// stores, the format-1 upgrade, file paths and permissions, the WAL, file backups) says
/// so with `requireSQLite`, and is skipped on PostgreSQL with that reason.
public enum TestEngine: String, Sendable {
  case sqlite, postgresql

  /// The engine of this run (`MODELSTORE_TEST_ENGINE`: `sqlite`, the default, or `postgresql`).
  public static let current: TestEngine = {
    let name = ProcessInfo.processInfo.environment["MODELSTORE_TEST_ENGINE"] ?? ""
    guard !name.isEmpty else { return .sqlite }
    guard let engine = TestEngine(rawValue: name) else {
      fatalError("MODELSTORE_TEST_ENGINE=\(name): expected sqlite or postgresql")
    }
    if engine == .postgresql && PostgresTestCluster.url == nil {
      fatalError("MODELSTORE_TEST_ENGINE=postgresql needs MODELSTORE_TEST_PG (a libpq URL of the test cluster): run `make test`")
    }
    return engine
  }()

  public static var isPostgres: Bool { current == .postgresql }

  /// Skips the test on PostgreSQL: what it tests is a SQLite file by nature (`reason`
  /// says which part: "Core Data stores are SQLite files", ...).
  public static func requireSQLite(_ reason: String) throws {
    if isPostgres { throw XCTSkip("SQLite only by nature: \(reason)") }
  }

  /// Skips the test on PostgreSQL: it involves no store (the command line, a model file),
  /// so the SQLite pass already covers it.
  public static func storeIndependent(_ reason: String) throws {
    if isPostgres { throw XCTSkip("no store involved, run in the SQLite pass: \(reason)") }
  }

  /// The arguments of a `serve` command on this run's engine: on PostgreSQL, a server
  /// started in memory (`--memory`, or no `--store`) serves a fresh schema instead, which
  /// the caller owns (and drops when the server has ended). Other commands, and servers of
  /// a named store, are left as they are.
  static func serving(_ arguments: [String]) throws -> ([String], PostgresTestSchema?) {
    guard isPostgres, arguments.first == "serve", !arguments.contains("--store"), !arguments.contains(where: \.isHelpFlag) else {
      return (arguments, nil)
    }
    let schema = try PostgresTestSchema("serve")
    return (arguments.filter { $0 != "--memory" } + ["--store", schema.storeURL], schema)
  }
}

extension String {
  fileprivate var isHelpFlag: Bool { self == "--help" || self == "-h" }
}

extension TemporaryDirectory {
  /// Where a store named `name` lives for this run's engine: the file `name` in the folder
  /// on SQLite; on PostgreSQL the URL of a schema of its own (the same one for the same
  /// name), dropped with the folder (`remove()`).
  public func store(_ name: String) throws -> String {
    guard TestEngine.isPostgres else { return file(name) }
    return try schema(name).storeURL
  }

  /// Whether the store `name` exists: its file, or its schema.
  public func storeExists(_ name: String) throws -> Bool {
    guard TestEngine.isPostgres else { return exists(name) }
    let s = try schema(name)
    return try PostgresTestCluster.psql("SELECT count(*) FROM pg_catalog.pg_namespace WHERE nspname = '\(s.name)'", url: s.clusterURL)
      .stdout
      == "1"
  }

  /// Makes the place of store `name` exist, empty: an empty file, or a schema without tables.
  public func createEmptyStore(_ name: String) throws {
    guard TestEngine.isPostgres else {
      _ = FileManager.default.createFile(atPath: file(name), contents: Data())
      return
    }
    let s = try schema(name)
    try PostgresTestCluster.psql("CREATE SCHEMA \"\(s.name)\"", url: s.clusterURL)
  }

  /// What changes when anything is written to store `name`: its file's bytes; on
  /// PostgreSQL the store's commit count (`_ms_meta` `commits`, raised by every write
  /// transaction) and its tables' row counts. Nil when there is no such store, empty when
  /// it is empty.
  public func fingerprint(_ name: String) throws -> String? {
    guard TestEngine.isPostgres else { return FileManager.default.contents(atPath: file(name))?.base64EncodedString() }
    guard try storeExists(name) else { return nil }
    let s = try schema(name)
    let tables = try s.psql(
      "SELECT string_agg(format('SELECT %L, count(*) FROM %I', relname, relname), ' UNION ALL ' ORDER BY relname) FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = '\(s.name)' AND c.relkind = 'r'"
    ).stdout
    // An empty schema, as an empty file: nothing.
    guard !tables.isEmpty else { return "" }
    return try s.psql("SELECT value FROM _ms_meta WHERE key = 'commits'").stdout + "\n" + s.psql(tables).stdout
  }

  /// Runs `sql` on store `name` with the engine's shell (sqlite3, or psql in its schema):
  /// rows on lines, columns separated by `|`, trimmed. Throws `XCTSkip` without sqlite3.
  public func sql(_ name: String, _ sql: String) throws -> String {
    guard TestEngine.isPostgres else {
      try XCTSkipUnless(hasSQLite3CLI, "needs /usr/bin/sqlite3")
      let r = try sqlite3(file(name), sql)
      XCTAssertEqual(r.status, 0, r.stderr)
      return r.stdout
    }
    return try schema(name).psql(sql).stdout
  }

  private func schema(_ name: String) throws -> PostgresTestSchema {
    if let s = schemas[name] { return s }
    let s = try PostgresTestSchema(name)
    schemas[name] = s
    return s
  }
}
