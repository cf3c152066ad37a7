import Foundation
import JSONCore
import TestSupport
import XCTest

/// How the process ends: end of input, `shutdown`/`exit`, a reader that went away.
final class LifecycleTests: XCTestCase {
  private var dir: TemporaryDirectory!

  override func setUpWithError() throws { dir = try TemporaryDirectory() }
  override func tearDown() { dir.remove() }

  private func insertItems(_ server: ServerProcess, _ count: Int, prefix: String = "item") throws {
    let changes: [JSONValue] = (0..<count).map { i in
      ["op": "insert", "entity": "Item", "values": ["title": .string("\(prefix) \(i)"), "n": .int(Int64(i))]]
    }
    let r = try server.call("context.save", ["changes": .array(changes)])
    XCTAssertEqual(r["inserted"]?.arrayValue?.count, count)
  }

  /// The `-wal` file is gone or empty, so every committed page is in the main file (on
  /// PostgreSQL there is no file: nothing to check).
  private func assertCheckpointed(_ name: String, file: StaticString = #filePath, line: UInt = #line) {
    let wal = dir.size(name + "-wal")
    XCTAssertTrue(wal == nil || wal == 0, "\(name)-wal still holds \(wal ?? 0) bytes; files: \(dir.listing())", file: file, line: line)
  }

  /// Copies only the main database file under a new name, so that a reader cannot fall
  /// back on the WAL: what it sees was checkpointed.
  private func copyMainFileOnly(_ name: String) throws -> String {
    let target = dir.file("main-only-" + name)
    try FileManager.default.copyItem(atPath: dir.file(name), toPath: target)
    return target
  }

  func testEndOfInputExitsZeroAndCheckpointsTheWAL() throws {
    try TestEngine.requireSQLite("SQLite's WAL and its checkpoint at the end")
    let path = dir.file("eof.store")
    let server = try ServerProcess(arguments: ["serve", "--store", path])
    _ = try server.call("model.define", ["schema": itemSchema])
    try insertItems(server, 50)
    XCTAssertEqual(try server.call("store.info")["journalMode"], "wal")
    XCTAssertGreaterThan(dir.size("eof.store-wal") ?? 0, 0, "writes should go through the WAL while the store is open")
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0, server.stderr)
    XCTAssertFalse(server.endedBySignal)
    assertCheckpointed("eof.store")

    let mainOnly = try copyMainFileOnly("eof.store")
    if hasSQLite3CLI {
      let r = try sqlite3(mainOnly, "SELECT count(*), sum(n) FROM Item; PRAGMA application_id; PRAGMA integrity_check;")
      XCTAssertEqual(r.status, 0, r.stderr)
      XCTAssertEqual(r.stdout.split(separator: "\n"), ["50|1225", "\(0x4D53_544F)", "ok"])
    }
    let reader = try ServerProcess(arguments: ["serve", "--store", mainOnly])
    XCTAssertEqual(try reader.call("query.count", ["entity": "Item"])["count"], 50)
    XCTAssertEqual(try reader.call("store.check")["ok"], true)
    reader.closeInput()
    XCTAssertEqual(reader.waitForExit(), 0)
  }

  func testOpenTransactionAtEndOfInputCommitsNothing() throws {
    let path = try dir.store("tx.store")
    let server = try ServerProcess(arguments: ["serve", "--store", path])
    _ = try server.call("model.define", ["schema": itemSchema])
    try insertItems(server, 3, prefix: "committed")
    XCTAssertEqual(try server.call("transaction.begin")["depth"], 1)
    try insertItems(server, 5, prefix: "outer")
    XCTAssertEqual(try server.call("transaction.begin")["depth"], 2)
    _ = try server.call("objects.insert", ["entity": "Item", "values": ["title": "inner"]])
    _ = try server.call("objects.updateWhere", ["entity": "Item", "where": "title BEGINSWITH \"committed\"", "values": ["n": 99]])
    XCTAssertEqual(try server.call("query.count", ["entity": "Item"])["count"], 9)
    XCTAssertEqual(try server.call("store.info")["openTransactions"], 2)
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0, server.stderr)
    assertCheckpointed("tx.store")

    let reopened = try ServerProcess(arguments: ["serve", "--store", path])
    XCTAssertEqual(try reopened.call("query.count", ["entity": "Item"])["count"], 3)
    XCTAssertEqual(try reopened.call("query.count", ["entity": "Item", "where": "n == 99"])["count"], 0)
    XCTAssertEqual(try reopened.call("store.info")["openTransactions"], 0)
    reopened.closeInput()
    XCTAssertEqual(reopened.waitForExit(), 0)
    if hasSQLite3CLI && !TestEngine.isPostgres {
      let r = try sqlite3(path, "SELECT count(*) FROM Item WHERE title LIKE 'committed%'; SELECT count(*) FROM Item;")
      XCTAssertEqual(r.stdout.split(separator: "\n"), ["3", "3"], r.stderr)
    }
  }

  func testShutdownThenExitEndsWithZero() throws {
    let path = try dir.store("shutdown.store")
    let server = try ServerProcess(arguments: ["serve", "--store", path])
    _ = try server.call("initialize")
    _ = try server.call("model.define", ["schema": itemSchema])
    try insertItems(server, 10)
    XCTAssertEqual(try server.request("shutdown")["result"], .null)
    // shutdown closes the store: the WAL is already folded into the main file.
    assertCheckpointed("shutdown.store")
    // Every request after shutdown is refused (the process stays up until exit).
    for (method, params) in [("store.info", [:]), ("objects.insert", ["entity": "Item", "values": ["title": "late"]]), ("shutdown", [:])]
      as [(String, JSONObject)]
    {
      let reply = try server.request(method, params)
      XCTAssertNil(reply["result"], "\(method) after shutdown")
      XCTAssertEqual(reply.errorCode, -32600, "\(method) after shutdown: \(reply)")
      XCTAssertEqual(reply.errorKind, "shuttingDown")
    }
    server.sendNotification("exit")
    XCTAssertEqual(server.waitForExit(), 0, server.stderr)
    XCTAssertFalse(server.endedBySignal)

    let reopened = try ServerProcess(arguments: ["serve", "--store", path])
    XCTAssertEqual(try reopened.call("query.count", ["entity": "Item"])["count"], 10)
    reopened.closeInput()
    XCTAssertEqual(reopened.waitForExit(), 0)
  }

  func testExitWithoutShutdownEndsWithOne() throws {
    let path = try dir.store("exit.store")
    let server = try ServerProcess(arguments: ["serve", "--store", path])
    _ = try server.call("model.define", ["schema": itemSchema])
    try insertItems(server, 4)
    server.sendNotification("exit")
    XCTAssertEqual(server.waitForExit(), 1, server.stderr)
    XCTAssertFalse(server.endedBySignal)
    // Nothing after `exit` is read, and the store was still closed cleanly.
    assertCheckpointed("exit.store")
    let reopened = try ServerProcess(arguments: ["serve", "--store", path])
    XCTAssertEqual(try reopened.call("query.count", ["entity": "Item"])["count"], 4)
    reopened.closeInput()
    XCTAssertEqual(reopened.waitForExit(), 0)
  }

  func testExitAsRequestStopsTheLoop() throws {
    let server = try ServerProcess()
    _ = try server.call("shutdown")
    let reply = try server.request("exit")
    XCTAssertEqual(reply["result"], .null)
    XCTAssertEqual(server.waitForExit(), 0)
  }

  /// The client stops reading stdout: replies are dropped, the process keeps consuming
  /// input, and at end of input it exits normally rather than hanging or dying of SIGPIPE.
  func testClosedStdoutDoesNotHangOrCrash() throws {
    let path = try dir.store("closed-stdout.store")
    let server = try ServerProcess(arguments: ["serve", "--store", path])
    _ = try server.call("model.define", ["schema": itemSchema])
    server.closeOutput()
    // Enough output to overflow any pipe buffer several times over.
    let big = String(repeating: "x", count: 4096)
    var lines: [String] = []
    for i in 0..<400 {
      lines.append(
        requestLine(.int(Int64(1000 + i)), "objects.insert", ["entity": "Item", "values": ["title": .string(big), "n": .int(Int64(i))]]))
    }
    server.sendRaw(Data((lines.joined(separator: "\n") + "\n").utf8))
    server.closeInput()
    let status = server.waitForExit(timeout: 20)
    XCTAssertNotNil(status, "the process hangs after its stdout was closed")
    XCTAssertFalse(server.endedBySignal, "the process died of a signal: \(server.stderr)")
    XCTAssertEqual(status, 0, server.stderrAtEnd())
    // The requests were still executed (only their replies were lost).
    let reopened = try ServerProcess(arguments: ["serve", "--store", path])
    XCTAssertEqual(try reopened.call("query.count", ["entity": "Item"])["count"], 400)
    reopened.closeInput()
    XCTAssertEqual(reopened.waitForExit(), 0)
  }
}
