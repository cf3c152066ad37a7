import Foundation
import JSONCore
import TestSupport
import XCTest

/// Which files the process accepts as stores, read-only and no-create modes, switching
/// stores at run time, and online backups.
final class StoreFileTests: XCTestCase {
  private var dir: TemporaryDirectory!

  override func setUpWithError() throws { dir = try TemporaryDirectory() }
  override func tearDown() { dir.remove() }

  /// A store (a file, or a schema on PostgreSQL) holding the Item schema and `count`
  /// items, closed cleanly.
  private func makeStore(_ name: String, count: Int = 3) throws -> String {
    let path = try dir.store(name)
    let server = try ServerProcess(arguments: ["serve", "--store", path])
    _ = try server.call("model.define", ["schema": itemSchema])
    for i in 0..<count {
      _ = try server.call("objects.insert", ["entity": "Item", "values": ["title": .string("\(name) \(i)"), "n": .int(Int64(i))]])
    }
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0, server.stderr)
    return path
  }

  private func contents(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

  private func assertRefused(_ arguments: [String], mentioning words: [String], file: StaticString = #filePath, line: UInt = #line) throws {
    let r = try runModelstore(arguments, input: requestLine(1, "store.info") + "\n")
    XCTAssertFalse(r.timedOut, "hangs", file: file, line: line)
    XCTAssertFalse(r.signalled, "crashed: \(r.stderr)", file: file, line: line)
    XCTAssertNotEqual(r.status, 0, "accepted \(arguments)", file: file, line: line)
    XCTAssertEqual(r.stdout, "", "nothing may be served on stdout", file: file, line: line)
    for w in words { XCTAssertTrue(r.stderr.contains(w), "stderr lacks '\(w)': \(r.stderr)", file: file, line: line) }
  }

  func testTextFileIsRefused() throws {
    try TestEngine.requireSQLite("which files are stores (PostgreSQL's schemas: PostgresStoreTests)")
    let path = dir.file("notes.txt")
    let text = Data("These are my notes.\nThey are not a database.\n".utf8)
    try text.write(to: URL(fileURLWithPath: path))
    try assertRefused(["serve", "--store", path], mentioning: ["not a ModelStore store", path])
    XCTAssertEqual(contents(path), text, "the refused file was modified")
    XCTAssertEqual(dir.listing(), ["notes.txt"], "the refused file gained companions")
  }

  func testForeignSQLiteFileIsRefused() throws {
    try TestEngine.requireSQLite("which files are stores (PostgreSQL's schemas: PostgresStoreTests)")
    try XCTSkipUnless(hasSQLite3CLI, "needs /usr/bin/sqlite3")
    let path = dir.file("foreign.db")
    let made = try sqlite3(path, "CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('hello');")
    XCTAssertEqual(made.status, 0, made.stderr)
    let before = contents(path)
    try assertRefused(["serve", "--store", path], mentioning: ["not a ModelStore store", "application_id"])
    try assertRefused(["serve", "--store", path, "--read-only"], mentioning: ["not a ModelStore store"])
    XCTAssertEqual(contents(path), before, "the refused file was modified")
    let after = try sqlite3(path, "SELECT body FROM notes; PRAGMA journal_mode;")
    XCTAssertEqual(after.stdout.split(separator: "\n"), ["hello", "delete"])

    // The same file through store.open at run time: refused, and the open store stays.
    let server = try ServerProcess()
    _ = try server.call("model.define", ["schema": itemSchema])
    _ = try server.call("objects.insert", ["entity": "Item", "values": ["title": "still here"]])
    let e = try server.callFailing("store.open", ["path": .string(path)])
    XCTAssertEqual(e["data"]?["kind"], "notAStore")
    XCTAssertEqual(e["code"], -32012)
    XCTAssertEqual(try server.call("query.count", ["entity": "Item"])["count"], 1)
    XCTAssertEqual(contents(path), before)
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0)
  }

  func testReadOnlyServesReadsAndRefusesWrites() throws {
    let path = try makeStore("ro.store", count: 3)
    let before = try dir.fingerprint("ro.store")
    let server = try ServerProcess(arguments: ["serve", "--store", path, "--read-only"])
    let info = try server.call("store.info")
    XCTAssertEqual(info["readOnly"], true)
    XCTAssertEqual(info["counts"]?["Item"], 3)
    XCTAssertEqual(try server.call("query.count", ["entity": "Item"])["count"], 3)
    let objects = try XCTUnwrap(try server.call("query.fetch", ["entity": "Item", "sort": ["n"]])["objects"]?.arrayValue)
    XCTAssertEqual(objects.count, 3)
    let firstID = try XCTUnwrap(objects.first?["_id"])
    XCTAssertEqual(try server.call("objects.get", ["id": firstID])["title"], "ro.store 0")
    XCTAssertEqual(try server.call("model.get")["version"], "1.0.0")
    XCTAssertEqual(try server.call("store.check")["ok"], true)

    let writes: [(String, JSONObject)] = [
      ("objects.insert", ["entity": "Item", "values": ["title": "new"]]),
      ("objects.update", ["id": firstID, "values": ["title": "changed"]]),
      ("objects.upsert", ["entity": "Item", "values": ["title": "ro.store 0", "n": 5], "on": ["title"]]),
      ("objects.delete", ["id": firstID]),
      ("objects.updateWhere", ["entity": "Item", "where": "n >= 0", "values": ["n": 9]]),
      ("objects.deleteWhere", ["entity": "Item", "where": "n >= 0"]),
      ("context.save", ["changes": [["op": "insert", "entity": "Item", "values": ["title": "x"]]]]),
      ("transaction.begin", [:]),
      ("model.define", ["schema": itemSchema]),
    ]
    for (method, params) in writes {
      let reply = try server.request(method, params)
      XCTAssertNil(reply["result"], "\(method) succeeded on a read-only store")
      XCTAssertEqual(reply.errorKind, "readOnly", "\(method): \(reply)")
      XCTAssertEqual(reply.errorCode, -32010, "\(method)")
    }
    XCTAssertEqual(try server.call("query.count", ["entity": "Item", "where": "n == 9"])["count"], 0)
    XCTAssertEqual(try server.call("query.count", ["entity": "Item"])["count"], 3)
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0, server.stderr)
    XCTAssertEqual(try dir.fingerprint("ro.store"), before, "a read-only session changed the store")

    // A missing store cannot be opened read-only (nothing to read, nothing created).
    try assertRefused(["serve", "--store", dir.store("missing-ro.store"), "--read-only"], mentioning: ["missing"])
    XCTAssertFalse(try dir.storeExists("missing-ro.store"))
  }

  func testNoCreate() throws {
    let missing = try dir.store("missing.store")
    try assertRefused(["serve", "--store", missing, "--no-create"], mentioning: ["missing"])
    XCTAssertFalse(try dir.storeExists("missing.store"), "--no-create created the store")
    // An empty file (schema) is not a store either, and --no-create must not turn it into one.
    try dir.createEmptyStore("empty.store")
    try assertRefused(["serve", "--store", dir.store("empty.store"), "--no-create"], mentioning: ["empty"])
    XCTAssertEqual(try dir.fingerprint("empty.store"), "", "the empty store was written")
    // An existing store opens fine with --no-create.
    let path = try makeStore("existing.store", count: 2)
    let server = try ServerProcess(arguments: ["serve", "--store", path, "--no-create"])
    XCTAssertEqual(try server.call("query.count", ["entity": "Item"])["count"], 2)
    // store.open with create:false behaves the same at run time.
    let e = try server.callFailing("store.open", ["path": .string(missing), "create": false])
    XCTAssertNotNil(e["data"]?["kind"]?.stringValue)
    XCTAssertFalse(try dir.storeExists("missing.store"))
    XCTAssertEqual(try server.call("query.count", ["entity": "Item"])["count"], 2)
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0)
  }

  func testStoreOpenSwitchesStoresAtRunTime() throws {
    let a = try dir.store("a.store"), b = try dir.store("b.store")
    let server = try ServerProcess()
    _ = try server.call("model.define", ["schema": itemSchema])
    _ = try server.call("objects.insert", ["entity": "Item", "values": ["title": "memory"]])

    let openedA = try server.call("store.open", ["path": .string(a)])
    XCTAssertEqual(openedA["path"]?.stringValue, a)
    XCTAssertEqual(openedA["schemaVersion"], .null, "a new file starts without a schema")
    _ = try server.call("model.define", ["schema": itemSchema])
    _ = try server.call("objects.insert", ["entity": "Item", "values": ["title": "in a"]])

    XCTAssertEqual(try server.call("store.open", ["path": .string(b)])["path"]?.stringValue, b)
    _ = try server.call("model.define", ["schema": taskCategorySchema])
    _ = try server.call("objects.insert", ["entity": "Task", "values": ["title": "in b"]])
    XCTAssertEqual(try server.callFailing("query.count", ["entity": "Item"])["data"]?["kind"], "notFound")

    // Back to a: its data, not b's or memory's.
    let again = try server.call("store.open", ["path": .string(a)])
    XCTAssertEqual(again["counts"]?["Item"], 1)
    XCTAssertEqual(try server.call("query.fetch", ["entity": "Item"])["objects"]?.arrayValue?.first?["title"], "in a")
    // Bad arguments leave the current store open.
    XCTAssertEqual(try server.callFailing("store.open", ["path": .string(b), "memory": true])["code"], -32602)
    XCTAssertEqual(try server.callFailing("store.open", [:])["code"], -32602)
    let memoryReadOnly = try server.callFailing("store.open", ["memory": true, "readOnly": true])
    XCTAssertEqual(memoryReadOnly["code"], -32602)
    XCTAssertEqual(memoryReadOnly["data"]?["kind"], "invalidArgument")
    XCTAssertNotNil(try server.callFailing("store.open", ["path": .string(dir.file("no/such/dir/x.store"))])["data"]?["kind"])
    XCTAssertEqual(try server.call("store.info")["path"]?.stringValue, a)

    // Read-only at run time.
    _ = try server.call("store.open", ["path": .string(b), "readOnly": true])
    XCTAssertEqual(try server.callFailing("objects.insert", ["entity": "Task", "values": ["title": "no"]])["data"]?["kind"], "readOnly")
    XCTAssertEqual(try server.call("query.count", ["entity": "Task"])["count"], 1)

    // Back and forth many times (each switch closes and releases the previous store).
    for round in 0..<30 {
      let path = round % 2 == 0 ? a : b
      _ = try server.call("store.open", ["path": .string(path)])
      let entity: JSONValue = round % 2 == 0 ? "Item" : "Task"
      _ = try server.call("objects.insert", ["entity": entity, "values": ["title": .string("round \(round)")]])
      XCTAssertEqual(try server.call("store.check")["ok"], true)
    }
    let memory = try server.call("store.open", ["memory": true])
    XCTAssertEqual(memory["memory"], true)
    XCTAssertEqual(memory["schemaVersion"], .null)
    XCTAssertTrue(server.process.isRunning)
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0, server.stderrAtEnd())
    XCTAssertFalse(server.endedBySignal, server.stderr)

    // Both files hold what was written to them, and were closed cleanly.
    for (path, entity, count) in [(a, "Item", 16), (b, "Task", 16)] {
      let name = URL(fileURLWithPath: path).lastPathComponent
      XCTAssertTrue((dir.size(name + "-wal") ?? 0) == 0, "\(name)-wal was not checkpointed")
      let reader = try ServerProcess(arguments: ["serve", "--store", path])
      XCTAssertEqual(try reader.call("query.count", ["entity": .string(entity)])["count"]?.intValue, Int64(count), name)
      reader.closeInput()
      XCTAssertEqual(reader.waitForExit(), 0)
    }
  }

  func testBackupMakesAStoreThatOpens() throws {
    try TestEngine.requireSQLite("SQLite's online backup of a store file (a PostgreSQL store's: PostgresBackupTests)")
    let path = dir.file("source.store")
    let copy = dir.file("copy.store")
    let server = try ServerProcess(arguments: ["serve", "--store", path])
    let defined = try server.call("model.define", ["schema": taskCategorySchema])
    _ = try server.call(
      "context.save",
      [
        "changes": [
          ["op": "insert", "entity": "Category", "ref": "$c", "values": ["name": "Garden"]],
          ["op": "insert", "entity": "Task", "values": ["title": "Mow", "category": "$c", "priority": 3]],
          ["op": "insert", "entity": "Task", "values": ["title": "Rake", "category": "$c"]],
        ]
      ])
    let tasks = try server.call("query.fetch", ["entity": "Task", "sort": ["title"]])
    let categories = try server.call("query.fetch", ["entity": "Category"])
    let backup = try server.call("store.backup", ["to": .string(copy)])
    XCTAssertEqual(backup["path"]?.stringValue, copy)
    XCTAssertGreaterThan(backup["bytes"]?.intValue ?? 0, 0)
    let copyBytes = contents(copy)

    // Onto an existing path: refused, and the file is left alone.
    let refused = try server.callFailing("store.backup", ["to": .string(copy)])
    XCTAssertEqual(refused["data"]?["kind"], "invalidArgument")
    XCTAssertEqual(contents(copy), copyBytes)
    let textPath = dir.file("precious.txt")
    try Data("keep me".utf8).write(to: URL(fileURLWithPath: textPath))
    XCTAssertNotNil(try server.callFailing("store.backup", ["to": .string(textPath)])["data"]?["kind"])
    XCTAssertEqual(contents(textPath), Data("keep me".utf8))
    // Into a folder that does not exist: an error, not a crash.
    XCTAssertNotNil(try server.callFailing("store.backup", ["to": .string(dir.file("nope/copy.store"))])["code"])

    // The source keeps working and later changes do not reach the copy.
    _ = try server.call("objects.insert", ["entity": "Task", "values": ["title": "After backup"]])
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0)

    let reader = try ServerProcess(arguments: ["serve", "--store", copy])
    XCTAssertEqual(try reader.call("model.get")["hash"], defined["hash"])
    XCTAssertEqual(try reader.call("query.fetch", ["entity": "Task", "sort": ["title"]]), tasks)
    XCTAssertEqual(try reader.call("query.fetch", ["entity": "Category"]), categories)
    XCTAssertEqual(try reader.call("store.check")["ok"], true)
    XCTAssertEqual(try reader.call("store.info")["path"]?.stringValue, copy)
    reader.closeInput()
    XCTAssertEqual(reader.waitForExit(), 0)

    // An in-memory store backs up to a file store too.
    let memory = try ServerProcess()
    _ = try memory.call("model.define", ["schema": itemSchema])
    _ = try memory.call("objects.insert", ["entity": "Item", "values": ["title": "from memory"]])
    _ = try memory.call("store.backup", ["to": .string(dir.file("from-memory.store"))])
    memory.closeInput()
    XCTAssertEqual(memory.waitForExit(), 0)
    let memoryCopy = try ServerProcess(arguments: ["serve", "--store", dir.file("from-memory.store"), "--read-only"])
    XCTAssertEqual(try memoryCopy.call("query.fetch", ["entity": "Item"])["objects"]?.arrayValue?.first?["title"], "from memory")
    memoryCopy.closeInput()
    XCTAssertEqual(memoryCopy.waitForExit(), 0)
  }

  /// protocol.md: a backup while a client transaction is open is refused with -32011
  /// `transaction` (the copy would hold uncommitted work) and leaves no file behind; once
  /// the transaction ends the same backup succeeds and holds committed data only.
  func testBackupDuringAnOpenTransaction() throws {
    let path = try makeStore("tx-source.store", count: 2)
    let target = dir.file("tx-copy.store")
    let server = try ServerProcess(arguments: ["serve", "--store", path])
    _ = try server.call("transaction.begin")
    _ = try server.call("objects.insert", ["entity": "Item", "values": ["title": "uncommitted"]])
    let during = try server.request("store.backup", ["to": .string(target)])
    XCTAssertNil(during["result"], "a backup inside a client transaction was made")
    XCTAssertEqual(during.errorCode, -32011, "\(during)")
    XCTAssertEqual(during.errorKind, "transaction", "\(during)")
    XCTAssertFalse(dir.exists("tx-copy.store"), "the refused backup left a \(dir.size("tx-copy.store") ?? 0)-byte file at the target")
    // The transaction is still open and usable.
    XCTAssertEqual(try server.call("store.info")["openTransactions"], 1)
    XCTAssertEqual(try server.call("query.count", ["entity": "Item"])["count"], 3)
    _ = try server.call("transaction.rollback")
    let after = try server.request("store.backup", ["to": .string(target)])
    XCTAssertNotNil(after["result"], "backup after the transaction ended failed: \(after["error"] ?? .null)")
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0)
    guard after["result"] != nil else { return }
    let reader = try ServerProcess(arguments: ["serve", "--store", target])
    let count = try reader.request("query.count", ["entity": "Item"])
    XCTAssertEqual(count["result"]?["count"], 2, "the copy: \(count)")
    reader.closeInput()
    XCTAssertEqual(reader.waitForExit(), 0)
  }
}
