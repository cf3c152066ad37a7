import Foundation
import JSONCore
import TestSupport
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

/// Busy and retries on PostgreSQL (protocol.md, "Busy and retries"), provoked
/// deterministically: conflicts are raised by a trigger on the store's table with the
/// SQLSTATE PostgreSQL gives a serialization failure (40001) or a deadlock (40P01), as many
/// times as a sequence allows (a sequence is not rolled back, so it also counts the
/// attempts); the write lock is held by a psql session of the test.
final class PostgresBusyTests: XCTestCase {
  private var pg: PostgresTestSchema!
  override func setUpWithError() throws { pg = try PostgresTestSchema("busy") }
  override func tearDown() { pg?.drop() }

  private let noteSchema = schema(entity("Note", [attr("text", "string")]))

  /// The next `failures` inserts into Note fail with `sqlstate`; the count restarts.
  private func failInserts(_ failures: Int, with sqlstate: String) throws {
    try pg.psql(
      """
      CREATE SEQUENCE IF NOT EXISTS test_attempts;
      ALTER SEQUENCE test_attempts RESTART;
      CREATE OR REPLACE FUNCTION test_conflict() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF nextval('test_attempts') <= \(failures) THEN
          RAISE EXCEPTION 'simulated conflict' USING ERRCODE = '\(sqlstate)';
        END IF;
        RETURN NEW;
      END $$;
      DROP TRIGGER IF EXISTS test_conflict ON "Note";
      CREATE TRIGGER test_conflict BEFORE INSERT ON "Note" FOR EACH ROW EXECUTE FUNCTION test_conflict();
      """)
  }

  /// How many inserts were attempted since `failInserts`.
  private func attempts() throws -> String {
    try pg.psql("SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM test_attempts").stdout
  }

  func testAConflictOutsideAClientTransactionIsRunAgainThenBusy() throws {
    let server = try ServerProcess(arguments: ["serve", "--store", pg.storeURL])
    _ = try server.call("model.define", ["schema": noteSchema])

    // Two conflicts: the third run commits, once.
    try failInserts(2, with: "40001")
    XCTAssertEqual(try server.call("objects.insert", ["entity": "Note", "values": ["text": "third time"]])["_id"], "Note/1")
    XCTAssertEqual(try attempts(), "3")
    // A save runs again whole, its changes read again from the first.
    try failInserts(1, with: "40001")
    let saved = try server.call(
      "context.save",
      [
        "changes": [
          ["op": "update", "id": "Note/1", "values": ["text": "saved"]], ["op": "insert", "entity": "Note", "values": ["text": "second"]],
        ]
      ])
    XCTAssertEqual(saved["updated"], ["Note/1"])
    XCTAssertEqual(saved["inserted"], ["Note/2"], "the first run's key is not lost, nor kept")
    XCTAssertEqual(try attempts(), "2")

    // Deadlocks every time: the first run and three more, then busy; nothing kept.
    try failInserts(100, with: "40P01")
    let busy = try server.callFailing("objects.insert", ["entity": "Note", "values": ["text": "never"]])
    XCTAssertEqual(busy["code"], -32009, "\(busy)")
    XCTAssertEqual(busy["data"]?["kind"], "busy")
    XCTAssertEqual(busy["data"]?["sqlstate"], "40P01")
    XCTAssertEqual(busy["data"]?["retried"], 3)
    XCTAssertEqual(try attempts(), "4")
    // A save of several changes is run again whole, and fails whole.
    let save = try server.callFailing(
      "context.save",
      [
        "changes": [
          ["op": "update", "id": "Note/1", "values": ["text": "changed"]], ["op": "insert", "entity": "Note", "values": ["text": "x"]],
        ]
      ])
    XCTAssertEqual(save["data"]?["retried"], 3, "\(save)")
    XCTAssertEqual(try server.call("query.count", ["entity": "Note"])["count"], 2)
    XCTAssertEqual(try server.call("objects.get", ["id": "Note/1"])["text"], "saved")
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0, server.stderr)
  }

  /// `model.define`'s DDL (which may wait for another server's readers, and deadlock) is
  /// run again too: an event trigger of the test refuses the schema's first two DDL
  /// statements as deadlocked.
  func testAModelDefineThatDeadlocksIsRunAgain() throws {
    let server = try ServerProcess(arguments: ["serve", "--store", pg.storeURL])
    _ = try server.call("model.define", ["schema": noteSchema])
    let trigger = "test_ddl_\(pg.name)"
    try pg.psql(
      """
      CREATE SEQUENCE test_ddl_attempts;
      CREATE FUNCTION test_ddl_conflict() RETURNS event_trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF current_schema() = '\(pg.name)' AND nextval('\(pg.name).test_ddl_attempts') <= 2 THEN
          RAISE EXCEPTION 'simulated deadlock' USING ERRCODE = '40P01';
        END IF;
      END $$;
      CREATE EVENT TRIGGER "\(trigger)" ON ddl_command_start EXECUTE FUNCTION test_ddl_conflict();
      """)
    defer { _ = try? pg.psql("DROP EVENT TRIGGER IF EXISTS \"\(trigger)\"") }
    let v2 = schema(entity("Note", [attr("text", "string"), attr("rank", "int", default: 0)]), version: "2")
    XCTAssertEqual(try server.call("model.define", ["schema": v2])["version"], "2")
    XCTAssertEqual(try pg.psql("SELECT last_value FROM test_ddl_attempts").stdout, "3", "two deadlocks, then the DDL")
    _ = try server.call("objects.insert", ["entity": "Note", "values": ["text": "ranked", "rank": 2]])
    XCTAssertEqual(try server.call("query.count", ["entity": "Note", "where": "rank == 2"])["count"], 1)
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0, server.stderr)
  }

  func testAConflictInsideAClientTransactionIsBusyAtOnceAndTheTransactionGoesOn() throws {
    let server = try ServerProcess(arguments: ["serve", "--store", pg.storeURL])
    _ = try server.call("model.define", ["schema": noteSchema])
    try failInserts(1, with: "40001")
    _ = try server.call("transaction.begin")
    _ = try server.call("objects.updateWhere", ["entity": "Note", "values": ["text": "-"]])
    let busy = try server.callFailing("objects.insert", ["entity": "Note", "values": ["text": "refused"]])
    XCTAssertEqual(busy["data"]?["kind"], "busy", "\(busy)")
    XCTAssertEqual(busy["data"]?["sqlstate"], "40001")
    XCTAssertNil(busy["data"]?["retried"], "run again inside a client transaction")
    XCTAssertEqual(try attempts(), "1")
    // The client transaction is still open: the client tries the request again, and commits.
    XCTAssertEqual(try server.call("store.info")["openTransactions"], 1)
    _ = try server.call("objects.insert", ["entity": "Note", "values": ["text": "kept"]])
    _ = try server.call("transaction.commit")
    XCTAssertEqual(try server.call("query.count", ["entity": "Note"])["count"], 1)
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0, server.stderr)
  }

  /// Another session holds the store's write lock (the key protocol.md gives): a write waits
  /// for it up to the lock timeout, fails with busy (55P03) without being run again, and
  /// goes through once the lock is free.
  func testAWriteLockHeldElsewhereIsBusyAfterTheTimeoutAndNotRunAgain() throws {
    let server = try ServerProcess(arguments: ["serve", "--store", pg.storeURL])
    _ = try server.call("model.define", ["schema": noteSchema])
    let holder = try HeldSession(url: pg.clusterURL)
    defer { holder.end() }
    try holder.run("SELECT pg_advisory_lock(\(pg.writeLockKey)), 'locked';", until: "locked")

    let start = Date()
    let busy = try server.callFailing("objects.insert", ["entity": "Note", "values": ["text": "waits"]], timeout: 30)
    let waited = Date().timeIntervalSince(start)
    XCTAssertEqual(busy["data"]?["kind"], "busy", "\(busy)")
    XCTAssertEqual(busy["data"]?["sqlstate"], "55P03")
    XCTAssertNil(busy["data"]?["retried"])
    XCTAssertGreaterThanOrEqual(waited, 4.5, "the write did not wait for the lock")
    // Reads take no lock.
    XCTAssertEqual(try server.call("query.count", ["entity": "Note"])["count"], 0)

    try holder.run("SELECT pg_advisory_unlock(\(pg.writeLockKey)), 'unlocked';", until: "unlocked")
    XCTAssertEqual(try server.call("objects.insert", ["entity": "Note", "values": ["text": "goes"]])["_id"], "Note/1")
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0, server.stderr)
  }
}

/// A psql session kept open (its locks stay held between commands).
private final class HeldSession {
  private let process = Process()
  private let input = Pipe()
  private let output = Pipe()
  private var buffer = ""

  init(url: String) throws {
    process.executableURL = PostgresTestCluster.psql
    process.arguments = ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", url]
    process.standardInput = input
    process.standardOutput = output
    process.standardError = output
    try process.run()
  }

  /// Sends `sql` and waits (at most 10 s) until the output holds `marker`.
  func run(_ sql: String, until marker: String) throws {
    input.fileHandleForWriting.write(Data((sql + "\n").utf8))
    let fd = output.fileHandleForReading.fileDescriptor
    let deadline = Date().addingTimeInterval(10)
    while !buffer.contains(marker) {
      guard deadline.timeIntervalSinceNow > 0 else { throw Failure(description: "psql did not answer \(sql): \(buffer)") }
      var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      guard poll(&p, 1, 100) > 0 else { continue }
      var chunk = [UInt8](repeating: 0, count: 4096)
      let n = read(fd, &chunk, chunk.count)
      guard n > 0 else { throw Failure(description: "psql ended: \(buffer)") }
      buffer += String(decoding: chunk[..<n], as: UTF8.self)
    }
    buffer = ""
  }

  func end() {
    try? input.fileHandleForWriting.close()
    process.waitUntilExit()
  }

  struct Failure: Error, CustomStringConvertible { var description: String }
}
