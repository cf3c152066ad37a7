import Foundation
import JSONCore
import TestSupport
import XCTest

/// `modelstore serve --store postgresql://...` and `store.open` with a URL, against the test
/// cluster (`MODELSTORE_TEST_PG`, started by `make test`; skipped without it): a store is
/// one PostgreSQL schema, its password never shows, and each bad location gets its own
/// precise error.
final class PostgresStoreTests: XCTestCase {
  private var schemas: [PostgresTestSchema] = []

  override func tearDown() {
    for s in schemas { s.drop() }
    schemas = []
  }

  /// `error.data.kind` of an error object (`callFailing`'s).
  private func kind(_ error: JSONObject) -> String? { error["data"]?["kind"]?.stringValue }

  private func freshSchema(_ label: String) throws -> PostgresTestSchema {
    let s = try PostgresTestSchema(label)
    schemas.append(s)
    return s
  }

  func testServeMakesANewStoreInItsSchemaAndOpensItAgain() throws {
    let schema = try freshSchema("serve")
    let server = try ServerProcess(arguments: ["serve", "--store", schema.storeURL])
    let info = try server.call("store.info")
    XCTAssertEqual(info["path"]?.stringValue, schema.storeURL)
    XCTAssertEqual(info["memory"], false)
    XCTAssertEqual(info["format"]?.stringValue, "modelstore")
    XCTAssertEqual(info["formatVersion"], 2)
    XCTAssertNil(info["journalMode"], "an SQLite fact")
    XCTAssertEqual(info["postgresql"]?["schema"]?.stringValue, schema.name)
    XCTAssertEqual(info["postgresql"]?["database"]?.stringValue, "postgres")
    XCTAssertGreaterThan(info["sizeBytes"]?.intValue ?? 0, 0)
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0, server.stderr)
    let tables = try schema.psql("SELECT string_agg(tablename, ',' ORDER BY tablename) FROM pg_tables WHERE schemaname = '\(schema.name)'")
    XCTAssertEqual(tables.stdout, "_ms_entities,_ms_history,_ms_keys,_ms_meta,_ms_schema_versions")
    let meta = try schema.psql(
      "SELECT string_agg(key || '=' || value, ',' ORDER BY key) FROM _ms_meta WHERE key NOT IN ('createdAt', 'commits')")
    XCTAssertEqual(meta.stdout, "format=modelstore,formatVersion=2")
    XCTAssertGreaterThan(
      Int(try schema.psql("SELECT value FROM _ms_meta WHERE key = 'commits'").stdout) ?? 0, 0, "making the store committed")
    // Opened again (read-only too): the same store, nothing created twice.
    let again = try ServerProcess(arguments: ["serve", "--store", schema.storeURL, "--read-only"])
    XCTAssertEqual(try again.call("store.info")["readOnly"], true)
    XCTAssertEqual(try again.call("store.check"), ["ok": true, "integrity": [], "problems": []])
    XCTAssertEqual(try again.callFailing("transaction.begin")["data"]?["kind"]?.stringValue, "readOnly")
  }

  func testStoreOpenTakesAURLAndClientTransactionsCommitAndRollBack() throws {
    let schema = try freshSchema("open")
    let server = try ServerProcess()
    let info = try server.call("store.open", ["path": .string(schema.storeURL)])
    XCTAssertEqual(info["path"]?.stringValue, schema.storeURL)
    func commits() throws -> Int { Int(try schema.psql("SELECT value FROM _ms_meta WHERE key = 'commits'").stdout) ?? -1 }
    let before = try commits()
    XCTAssertEqual(try server.call("transaction.begin")["depth"], 1)
    XCTAssertEqual(try server.call("transaction.begin")["depth"], 2)
    XCTAssertEqual(try server.call("store.info")["openTransactions"], 2)
    XCTAssertEqual(try server.call("transaction.rollback")["depth"], 1)
    XCTAssertEqual(try server.call("transaction.commit")["depth"], 0)
    XCTAssertEqual(try commits(), before + 1, "the commit was counted")
    // store.backup writes the PostgreSQL store into a new SQLite store file, which a
    // server opens (PostgresBackupTests: consistency while another server writes).
    let dir = try TemporaryDirectory()
    let backup = try server.call("store.backup", ["to": .string(dir.file("copy.msto"))])
    XCTAssertEqual(backup["path"]?.stringValue, dir.file("copy.msto"))
    XCTAssertEqual(dir.listing(), ["copy.msto"], "one file, its WAL folded in")
    let opened = try ServerProcess(arguments: ["serve", "--store", dir.file("copy.msto"), "--read-only"])
    XCTAssertEqual(try opened.call("store.info")["formatVersion"], 2)
    let refused = try server.callFailing("store.backup", ["to": .string(dir.file("copy.msto"))])
    XCTAssertEqual(refused["data"]?["reason"]?.stringValue, "exists", "\(refused)")
    // Core Data files are attached to an SQLite store's database: refused before any is read.
    let coreData = try server.callFailing("import.coreData", ["store": .string(dir.file("App.sqlite"))])
    XCTAssertEqual(kind(coreData), "invalidArgument")
    XCTAssertEqual(coreData["data"]?["reason"]?.stringValue, "unsupported", "\(coreData)")
  }

  func testPasswordsNeverReachRepliesOrLogs() throws {
    let schema = try freshSchema("secret")
    // The schema belongs to the role that needs a password (scripts/pg-cluster.sh).
    try PostgresTestCluster.psql("CREATE SCHEMA \"\(schema.name)\" AUTHORIZATION ms_password_user", url: schema.clusterURL)
    let url = PostgresTestCluster.adding("user=ms_password_user&password=right-password", to: schema.storeURL)
    let server = try ServerProcess(arguments: ["serve", "--store", url, "--log-level", "debug"])
    let info = try server.call("store.info")
    let shown = try XCTUnwrap(info["path"]?.stringValue)
    XCTAssertFalse(shown.contains("right-password"), shown)
    XCTAssertTrue(shown.contains("password=***"), shown)
    let wrong = PostgresTestCluster.adding("user=ms_password_user&password=wrong-password", to: schema.storeURL)
    let refused = try server.callFailing("store.open", ["path": .string(wrong)])
    XCTAssertEqual(kind(refused), "storage")
    XCTAssertEqual(refused["data"]?["reason"]?.stringValue, "authentication")
    XCTAssertFalse(JSONWriter.encodeString(.object(refused)).contains("wrong-password"), "\(refused)")
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0)
    let log = server.stderrAtEnd()
    XCTAssertTrue(log.contains("serving "), log)
    XCTAssertFalse(log.contains("right-password") || log.contains("wrong-password"), log)
    // The command line's own messages too.
    let cli = try runModelstore(["info", wrong])
    XCTAssertNotEqual(cli.status, 0)
    XCTAssertTrue(cli.stderr.contains("refused the credentials"), cli.stderr)
    XCTAssertFalse(cli.stderr.contains("wrong-password"), cli.stderr)
    let described = try runModelstore(["info", url])
    XCTAssertEqual(described.status, 0, described.stderr)
    XCTAssertTrue(described.stdout.contains("server:    PostgreSQL "), described.stdout)
    XCTAssertFalse(described.stdout.contains("right-password"), described.stdout)
  }

  func testEachBadLocationGetsItsOwnPreciseError() throws {
    let cluster = try PostgresTestCluster.requireURL()
    let foreign = try freshSchema("foreign")
    try PostgresTestCluster.psql("CREATE SCHEMA \"\(foreign.name)\"; CREATE TABLE \"\(foreign.name)\".notes (body text)", url: cluster)
    let empty = try freshSchema("empty")
    try PostgresTestCluster.psql("CREATE SCHEMA \"\(empty.name)\"", url: cluster)
    let missing = try freshSchema("missing")
    let socket = try PostgresTestCluster.psql("SHOW unix_socket_directories", url: cluster).stdout
    let cases: [(path: String, create: Bool, kind: String, reason: String?, words: [String])] = [
      ("postgresql://h/db?colour=blue", true, "invalidArgument", "malformedURL", ["malformed PostgreSQL URL", "colour"]),
      ("postgresql://h/db?schema=a&schema=b", true, "invalidArgument", "malformedURL", ["'schema' twice"]),
      ("postgresql:///postgres?host=/nonexistent-modelstore-dir", true, "storage", "unreachable", ["cannot reach the PostgreSQL server"]),
      ("postgresql:///no_such_db?host=\(socket)&user=postgres", true, "notFound", "noDatabase", ["does not exist", "no_such_db"]),
      (foreign.storeURL, true, "notAStore", nil, ["not a ModelStore store", "no _ms_meta table"]),
      (empty.storeURL, false, "notAStore", nil, ["is empty and creation was not allowed"]),
      (missing.storeURL, false, "notFound", nil, ["the schema '\(missing.name)' does not exist", "creation was not allowed"]),
    ]
    let server = try ServerProcess()
    for c in cases {
      let e = try server.callFailing("store.open", ["path": .string(c.path), "create": .bool(c.create)])
      XCTAssertEqual(kind(e), c.kind, "\(c.path): \(e)")
      if let reason = c.reason { XCTAssertEqual(e["data"]?["reason"]?.stringValue, reason, "\(c.path): \(e)") }
      let message = e["message"]?.stringValue ?? ""
      for w in c.words { XCTAssertTrue(message.contains(w), "\(c.path): '\(w)' not in \(message)") }
    }
    // Nothing was made or changed by the refusals, and the server goes on with its store.
    XCTAssertEqual(
      try PostgresTestCluster.psql("SELECT count(*) FROM pg_tables WHERE schemaname = '\(foreign.name)'", url: cluster).stdout, "1")
    XCTAssertEqual(
      try PostgresTestCluster.psql("SELECT count(*) FROM pg_tables WHERE schemaname = '\(empty.name)'", url: cluster).stdout, "0")
    XCTAssertEqual(
      try PostgresTestCluster.psql("SELECT count(*) FROM pg_namespace WHERE nspname = '\(missing.name)'", url: cluster).stdout, "0")
    XCTAssertEqual(try server.call("store.info")["memory"], true)
  }

  func testAServerThatGoesAwayEndsTheClientTransactionWithAClearError() throws {
    let schema = try freshSchema("gone")
    let application = "ms_e2e_\(UUID().uuidString.prefix(8).lowercased())"
    let url = PostgresTestCluster.adding("application_name=\(application)", to: schema.storeURL)
    let server = try ServerProcess(arguments: ["serve", "--store", url])
    _ = try server.call("model.define", ["schema": itemSchema])
    XCTAssertEqual(try server.call("transaction.begin")["depth"], 1)
    _ = try server.call("objects.insert", ["entity": "Item", "values": ["title": "lost"]])
    let killed = try PostgresTestCluster.psql(
      "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = '\(application)'", url: schema.clusterURL)
    XCTAssertEqual(killed.stdout, "1")
    let e = try server.callFailing("transaction.commit")
    XCTAssertEqual(kind(e), "transaction", "\(e)")
    XCTAssertEqual(e["data"]?["transactionRolledBack"], true, "\(e)")
    XCTAssertTrue(e["message"]?.stringValue?.contains("the connection to the PostgreSQL server was lost") ?? false, "\(e)")
    // The server connects again for the next request; no transaction is open.
    let info = try server.call("store.info")
    XCTAssertEqual(info["openTransactions"], 0)
    XCTAssertEqual(try server.call("query.count", ["entity": "Item"])["count"], 0, "nothing of it was kept")
    XCTAssertEqual(try server.call("transaction.begin")["depth"], 1)
    _ = try server.call("objects.insert", ["entity": "Item", "values": ["title": "kept"]])
    XCTAssertEqual(try server.call("transaction.commit")["depth"], 0)
    XCTAssertEqual(try server.call("query.count", ["entity": "Item"])["count"], 1)
  }
}
