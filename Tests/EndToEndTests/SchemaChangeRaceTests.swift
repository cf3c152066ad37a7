import Foundation
import JSONCore
import TestSupport
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

/// Another server's schema change that commits after a request began and before its own
/// transaction or snapshot (issue #15): the request follows the schema its transaction or
/// snapshot sees, exactly. Each interleaving is reached without timing: server A's
/// migration is held in its `didMigrate` hook (inside the stage's transaction, with the
/// store's write lock), or A's `model.define` waits for the write lock that a psql session
/// holds (PostgreSQL); server B's request is sent then, and the test waits until B is seen
/// waiting for that lock (`pg_locks` on PostgreSQL; on SQLite B's thread sleeping in the
/// busy handler, in `/proc/PID/task/*/syscall`) before letting A commit.
final class SchemaChangeRaceTests: XCTestCase {
  /// Version 2 gives `priority` another default (a change only the schema knows: no
  /// column changes) and adds a required attribute with a default.
  static let v1 = schema(entity("Task", [attr("title", "string"), attr("priority", "int", default: 1)]), version: "1")
  static let v2 = schema(
    entity("Task", [attr("title", "string"), attr("priority", "int", default: 5), attr("note", "string", default: "n")]), version: "2")

  private var dir: TemporaryDirectory!
  /// The store's schema on PostgreSQL.
  private var pg: PostgresTestSchema?
  override func setUpWithError() throws {
    dir = try TemporaryDirectory()
    if TestEngine.isPostgres { pg = try PostgresTestSchema("race") }
  }
  override func tearDown() {
    pg?.drop()
    dir?.remove()
  }

  /// Two servers on one new store at version 1, with one task; A announces migration hooks.
  private func servers() throws -> (ServerProcess, ServerProcess) {
    let path = pg?.storeURL ?? dir.file("race.store")
    let a = try ServerProcess(arguments: ["serve", "--store", path])
    _ = try a.call("initialize", ["capabilities": ["migrationHooks": true]])
    _ = try a.call("model.define", ["schema": Self.v1])
    _ = try a.call("objects.insert", ["entity": "Task", "values": ["title": "a"]])
    let b = try ServerProcess(arguments: ["serve", "--store", path])
    XCTAssertEqual(try b.call("query.count", ["entity": "Task"])["count"], 1, "B has read version 1")
    return (a, b)
  }

  /// A's migration to version 2, held in its didMigrate hook: returns the hook's request
  /// (A holds the store's write lock until it is answered) and the migration's id.
  private func holdMigration(_ a: ServerProcess) throws -> (hook: JSONObject, id: JSONValue) {
    let id = a.sendRequest(
      "migration.apply", ["schemas": [Self.v1, Self.v2], "stages": [["custom": ["from": "1", "to": "2", "didMigrate": true]]]])
    let hook = try XCTUnwrap(try a.readReply(timeout: 60), "no hook; stderr: \(a.stderr)")
    XCTAssertEqual(hook["method"], "migration/didMigrate", "\(hook)")
    return (hook, id)
  }

  private func answer(_ hook: JSONObject, on a: ServerProcess) throws {
    a.sendLine(JSONWriter.encodeString(["jsonrpc": "2.0", "id": hook["id"] ?? .null, "result": .null]))
  }

  /// An insert that begins while A's migration holds the write lock waits for it, and
  /// once A has committed version 2 it inserts by version 2: the new default and the new
  /// attribute, in its reply and in the store. (Before, the insert took the schema its
  /// server read when the request began: priority 1, and no `note` in its reply.)
  func testAnInsertWaitingBehindAMigrationFollowsTheNewSchema() throws {
    let (a, b) = try servers()
    let (hook, migration) = try holdMigration(a)

    let insert = b.sendRequest("objects.insert", ["entity": "Task", "values": ["title": "b"]])
    try waitUntilWaitingForTheWriteLock(b)
    try answer(hook, on: a)
    XCTAssertEqual(try a.reply(to: migration)["result"]?["stages"]?.arrayValue?.first?["status"], "applied")

    let reply = try b.reply(to: insert)
    let object = try XCTUnwrap(reply["result"]?.objectValue, "\(reply); stderr: \(b.stderr)")
    XCTAssertEqual(object["priority"], 5, "the default of the schema B's transaction sees")
    XCTAssertEqual(object["note"], "n", "the attribute version 2 added")
    let id = try XCTUnwrap(object["_id"])
    for s in [a, b] {
      let stored = try s.call("objects.get", ["id": id])
      XCTAssertEqual(stored["priority"], 5)
      XCTAssertEqual(stored["note"], "n")
      XCTAssertEqual(try s.call("model.get")["version"], "2")
    }
    end(a, b)
  }

  /// The same with A's `model.define` (PostgreSQL): a psql session holds the store's write
  /// lock, A's define waits for it, then B's insert waits behind A; the lock goes to A first
  /// (PostgreSQL grants waiters in order), then to B.
  func testAnInsertWaitingBehindAModelDefineFollowsTheNewSchema() throws {
    guard TestEngine.isPostgres else {
      throw XCTSkip("a psql session holds PostgreSQL's advisory lock; SQLite is tested by the migration hook")
    }
    let (a, b) = try servers()
    let pg = try XCTUnwrap(self.pg)
    let holder = try ServerProcess(
      arguments: ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", pg.clusterURL], executable: PostgresTestCluster.psql)
    holder.sendLine("SELECT pg_advisory_lock(\(pg.writeLockKey)), 'locked';")
    XCTAssertEqual(holder.readLine(timeout: 60), "|locked", "psql: \(holder.stderr)")

    let define = a.sendRequest("model.define", ["schema": Self.v2])
    try waitUntil(waitingForTheWriteLock: 1, pg)
    let insert = b.sendRequest("objects.insert", ["entity": "Task", "values": ["title": "b"]])
    try waitUntil(waitingForTheWriteLock: 2, pg)
    holder.sendLine("SELECT pg_advisory_unlock(\(pg.writeLockKey)), 'unlocked';")
    XCTAssertEqual(holder.readLine(timeout: 60), "t|unlocked")
    holder.closeInput()
    XCTAssertEqual(holder.waitForExit(), 0)

    XCTAssertEqual(try a.reply(to: define)["result"]?["version"], "2")
    let object = try XCTUnwrap(try b.reply(to: insert)["result"]?.objectValue, b.stderr)
    XCTAssertEqual(object["priority"], 5)
    XCTAssertEqual(object["note"], "n")
    XCTAssertEqual(try a.call("objects.get", ["id": object["_id"] ?? .null])["priority"], 5)
    end(a, b)
  }

  /// A read that begins while A's migration holds the write lock (PostgreSQL; SQLite's
  /// readers see the snapshot they began with, schema and rows alike, and wait for
  /// nobody): it waits for the migration (a schema change keeps readers out of the store
  /// while it runs), then reads version 2 in a snapshot taken after its commit. (Before, B
  /// read by version 1 and its statement, waiting on the migrated table's lock, ran on
  /// version 2's table: PostgreSQL plans against the catalog as it is now.)
  func testAReadWaitingBehindAMigrationReadsTheNewSchema() throws {
    guard TestEngine.isPostgres else {
      throw XCTSkip("PostgreSQL: a read waits for a schema change's locks; SQLite's readers never wait (SchemaFollowingTests)")
    }
    let (a, b) = try servers()
    let renamed = schema(
      entity("Task", [attr("label", "string", originalName: "title"), attr("priority", "int", default: 1)]), version: "2")
    let id = a.sendRequest(
      "migration.apply", ["schemas": [Self.v1, renamed], "stages": [["custom": ["from": "1", "to": "2", "didMigrate": true]]]])
    let hook = try XCTUnwrap(try a.readReply(timeout: 60), a.stderr)
    XCTAssertEqual(hook["method"], "migration/didMigrate", "\(hook)")
    let pg = try XCTUnwrap(self.pg)

    let fetch = b.sendRequest("query.fetch", ["entity": "Task"])
    try waitUntil(waitingForARelationLock: pg)
    try answer(hook, on: a)
    XCTAssertEqual(try a.reply(to: id)["result"]?["stages"]?.arrayValue?.first?["status"], "applied")
    let reply = try b.reply(to: fetch)
    let objects = try XCTUnwrap(reply["result"]?["objects"]?.arrayValue, "\(reply)")
    XCTAssertEqual(objects.map { $0["label"] }, ["a"], "\(reply)")
    XCTAssertEqual(objects.map { $0["title"] }, [nil])
    end(a, b)
  }

  /// Ends the servers, which must exit cleanly.
  private func end(_ servers: ServerProcess..., file: StaticString = #filePath, line: UInt = #line) {
    for s in servers {
      s.closeInput()
      XCTAssertEqual(s.waitForExit(), 0, s.stderr, file: file, line: line)
    }
  }

  // MARK: - Seeing a server wait

  /// Waits until `server` waits for the store's write lock: on PostgreSQL its backend in
  /// `pg_locks`; on SQLite one of its threads asleep (`nanosleep` or `clock_nanosleep`),
  /// which a server handling a request does only in SQLite's busy handler.
  private func waitUntilWaitingForTheWriteLock(_ server: ServerProcess) throws {
    if let pg { return try waitUntil(waitingForTheWriteLock: 1, pg) }
    let pid = server.process.processIdentifier
    try waitUntil("server \(pid) sleeping in SQLite's busy handler") {
      let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
      return tasks.contains { task in
        let call = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/syscall", encoding: .utf8)) ?? ""
        // nanosleep and clock_nanosleep: 35 and 230 on x86-64, 101 and 115 on arm64.
        #if arch(arm64)
          return call.hasPrefix("101 ") || call.hasPrefix("115 ")
        #else
          return call.hasPrefix("35 ") || call.hasPrefix("230 ")
        #endif
      }
    }
  }

  /// Waits until `count` connections wait for the store's advisory lock (a 64-bit key is
  /// `classid` and `objid`, its high and low 32 bits, with `objsubid` 1).
  private func waitUntil(waitingForTheWriteLock count: Int, _ pg: PostgresTestSchema) throws {
    let key = UInt64(bitPattern: pg.writeLockKey)
    let sql = """
      SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND classid = \(key >> 32) \
      AND objid = \(key & 0xFFFF_FFFF) AND objsubid = 1
      """
    try waitUntil("\(count) waiting for the write lock") { try PostgresTestCluster.psql(sql, url: pg.clusterURL).stdout == "\(count)" }
  }

  /// Waits until a connection waits for a lock on a table of the store's schema.
  private func waitUntil(waitingForARelationLock pg: PostgresTestSchema) throws {
    let sql = """
      SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation JOIN pg_namespace n ON n.oid = c.relnamespace \
      WHERE NOT l.granted AND n.nspname = '\(pg.name)'
      """
    try waitUntil("a reader waiting for a table's lock") { try PostgresTestCluster.psql(sql, url: pg.clusterURL).stdout != "0" }
  }

  /// Polls `done` until it holds; 60 s bound failures only.
  private func waitUntil(_ what: String, _ done: () throws -> Bool) throws {
    let deadline = Date().addingTimeInterval(60)
    while try !done() {
      guard Date() < deadline else { return XCTFail("never seen: \(what)") }
      usleep(2_000)
    }
  }
}
