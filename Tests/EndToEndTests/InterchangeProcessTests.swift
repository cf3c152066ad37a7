import Foundation
import JSONCore
import TestSupport
import XCTest

/// `import.json` and the `export`/`import` commands against a real process and store file:
/// a SIGKILL in the middle of a large import leaves the store as it was, and a store
/// exported, imported into an empty one and exported again gives the same bytes.
final class InterchangeProcessTests: XCTestCase {
  private var dir: TemporaryDirectory!

  override func setUpWithError() throws { dir = try TemporaryDirectory() }
  override func tearDown() { dir.remove() }

  /// The inline ndjson export of the store `server` serves.
  private func exported(_ server: ServerProcess) throws -> String {
    guard let data = try server.call("export.json", ["format": "ndjson"])["data"]?.stringValue else {
      XCTFail("export.json gave no data")
      return ""
    }
    return data
  }

  func testSIGKILLDuringLargeImportLeavesStoreUnchanged() throws {
    let store = try dir.store("killed.store")
    let server = try ServerProcess(arguments: ["serve", "--store", store])
    _ = try server.call("model.define", ["schema": itemSchema])
    for i in 0..<5 {
      _ = try server.call("objects.insert", ["entity": "Item", "values": ["title": .string("kept \(i)"), "n": .int(Int64(i))]])
    }
    let before = try exported(server)
    let header = String(before.split(separator: "\n", maxSplits: 1)[0])

    // The import reports progress every 1000 records and writes each report before it goes
    // on; its stdout is a pipe of one page that the test stops reading after the first
    // report. From then on the server can write at most one pipe more, far less than the
    // reports still due before its commit, so the import provably cannot commit before
    // the kill, however fast the machine (the exact kill point, no waiting).
    let records = 50_000
    let big = dir.file("big.ndjson")
    var text = header + "\n"
    text.reserveCapacity(records * 64)
    for i in 1...records { text += "{\"_id\":\"Item/\(i)\",\"_entity\":\"Item\",\"title\":\"imported \(i)\",\"n\":\(i)}\n" }
    try text.write(toFile: big, atomically: false, encoding: .utf8)

    let capacity = server.limitOutputPipe()
    // A long token makes every report about a kilobyte.
    let token = JSONValue.string("import-" + String(repeating: "p", count: 1000))
    let importID = server.sendRequest("import.json", ["path": .string(big), "progressToken": token])
    // The first report: the import's transaction is open and 1000 rows are in.
    guard let first = try server.readMessage(timeout: 60)?.objectValue else {
      return XCTFail("no progress from the import; stderr: \(server.stderr)")
    }
    XCTAssertEqual(first["method"]?.stringValue, "$/progress", "expected progress before the import ends: \(first)")
    let reportBytes = JSONWriter.encodeString(.object(first)).utf8.count + 1
    let reportsDue = records / 1000 - 1
    // What was read with the first report (at most a pipe) plus a pipe more is less than
    // the reports due before the commit: the server is held at one of them.
    XCTAssertGreaterThan(reportBytes * reportsDue, 2 * capacity, "the reports due must outgrow two pipes (\(capacity) bytes each)")
    XCTAssertEqual(kill(server.process.processIdentifier, SIGKILL), 0)
    XCTAssertNotNil(server.waitForExit(), "the killed server did not end")
    XCTAssertTrue(server.endedBySignal)
    let rest = String(decoding: server.readToEnd(timeout: 10), as: UTF8.self)
    XCTAssertFalse(rest.contains("\"id\":\(JSONWriter.encodeString(importID))"), "the import replied before the kill: \(rest)")
    XCTAssertLessThan(rest.split(separator: "\n").count, reportsDue, "the server wrote every report without being read")

    let again = try ServerProcess(arguments: ["serve", "--store", store])
    let check = try again.call("store.check")
    XCTAssertEqual(check["ok"], .bool(true), "\(check)")
    XCTAssertEqual(try again.call("query.count", ["entity": "Item"])["count"], .int(5))
    XCTAssertEqual(try exported(again), before, "the store changed")
    again.closeInput()
    XCTAssertEqual(again.waitForExit(), 0, again.stderr)
  }

  func testCommandLineRoundTripIsByteIdentical() throws {
    let a = try dir.store("a.store")
    let server = try ServerProcess(arguments: ["serve", "--store", a])
    _ = try server.call("model.define", ["schema": taskCategorySchema])
    var categories: [JSONValue] = []
    for name in ["home", "work", "empty"] {
      categories.append(try server.call("objects.insert", ["entity": "Category", "values": ["name": .string(name)]])["_id"] ?? .null)
    }
    for i in 0..<40 {
      var values: JSONObject = [
        "title": .string("task \(i) \u{e9}\u{1F600} \"quoted\""), "isCompleted": .bool(i % 3 == 0), "priority": .int(Int64(i % 5)),
        "createdAt": .string("2026-03-0\(i % 9 + 1)T10:20:30.\(100 + i)Z"),
      ]
      if i % 4 != 3 { values.append("category", categories[i % 2]) }
      _ = try server.call("objects.insert", ["entity": "Task", "values": .object(values)])
    }
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0, server.stderr)

    let first = dir.file("a.ndjson")
    let exportA = try runModelstore(["export", "--store", a, "--out", first])
    XCTAssertEqual(exportA.status, 0, exportA.stderr)
    XCTAssertTrue(exportA.stderr.contains("exported 43 objects"), exportA.stderr)

    let b = try dir.store("b.store")
    let importB = try runModelstore(["import", "--store", b, first])
    XCTAssertEqual(importB.status, 0, importB.stderr)
    XCTAssertTrue(importB.stderr.contains("imported 43 objects"), importB.stderr)

    let second = dir.file("b.ndjson")
    let exportB = try runModelstore(["export", "--store", b, "--out", second])
    XCTAssertEqual(exportB.status, 0, exportB.stderr)
    let bytesA = try XCTUnwrap(FileManager.default.contents(atPath: first))
    let bytesB = try XCTUnwrap(FileManager.default.contents(atPath: second))
    XCTAssertGreaterThan(bytesA.count, 1000)
    XCTAssertEqual(bytesA, bytesB, "the round trip through the CLI changed the export")

    // A bad filter names the flag that gave it, not the JSON-RPC param, whether the
    // predicate does not parse or does not fit the entity.
    let unparsed = try runModelstore(["export", "--store", b, "--entity", "Task", "--where", "title =="])
    XCTAssertEqual(unparsed.status, 2, unparsed.stderr)
    XCTAssertTrue(unparsed.stderr.contains("modelstore export: --where: expected a value or key path"), unparsed.stderr)
    let unknown = try runModelstore(["export", "--store", b, "--entity", "Task", "--where", "colour == 1", "--out", dir.file("c.ndjson")])
    XCTAssertEqual(unknown.status, 1, unknown.stderr)
    XCTAssertTrue(
      unknown.stderr.contains("modelstore export: --where: 'colour' is not an attribute or relationship of entity 'Task' (at character 0)"),
      unknown.stderr)
    XCTAssertFalse(unknown.stderr.contains("params."), unknown.stderr)
  }
}
