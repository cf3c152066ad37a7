import Foundation
import JSONCore
import TestSupport
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

/// `--history-retention` through the binary: the history stays bounded, tokens go on, and
/// a live query in another process that could not read the pruned transactions still ends
/// up with the right result.
final class HistoryRetentionProcessTests: XCTestCase {
  static let model = schema(
    entity("Task", [attr("title", "string"), attr("rank", "int", default: 0)]), entity("Note", [attr("text", "string")]))

  func testRetentionKeepsTheNewestTransactionsAndTokensGoOn() throws {
    let dir = try TemporaryDirectory()
    let server = try ServerProcess(arguments: ["serve", "--store", dir.store("s.store"), "--history-retention", "3"])
    _ = try server.call("model.define", ["schema": Self.model])
    for i in 0..<20 { _ = try server.call("objects.insert", ["entity": "Task", "values": ["title": .string("t\(i)")]]) }
    let h = try server.call("history.fetch")
    let tokens = try XCTUnwrap(h["transactions"]?.arrayValue).compactMap { $0["token"]?.intValue }
    XCTAssertEqual(tokens.last, 20, "one per insert (the first model.define writes none)")
    XCTAssertTrue((3...4).contains(tokens.count), "\(tokens)")
    XCTAssertEqual(h["lastToken"], 20)
    XCTAssertEqual(try server.call("history.delete", ["before": 100])["deleted"]?.intValue, Int64(tokens.count))
    XCTAssertEqual(try server.call("history.fetch")["lastToken"], 20, "the newest token handed out, with no row left")
    _ = try server.call("objects.insert", ["entity": "Task", "values": ["title": "after"]])
    XCTAssertEqual(try server.call("history.fetch")["transactions"]?.arrayValue?.map { $0["token"] }, [21])
  }

  func testBadRetentionIsRefusedPrecisely() throws {
    let server = try ServerProcess()
    let e = try server.callFailing("store.open", ["memory": true, "historyRetention": "7x"])
    XCTAssertEqual(e["code"], -32602)
    XCTAssertTrue(e["message"]?.stringValue?.contains("params.historyRetention") == true, "\(e)")
    let cli = Process()
    cli.executableURL = ServerProcess.binaryURL
    cli.arguments = ["serve", "--memory", "--history-retention", "0"]
    let err = Pipe()
    cli.standardError = err
    try cli.run()
    cli.waitUntilExit()
    XCTAssertEqual(cli.terminationStatus, 2)
    XCTAssertTrue(String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).contains("--history-retention"))
  }

  /// The observer is stopped (SIGSTOP) while the writer inserts five tasks and then three
  /// notes, pruning all but the newest transactions (notes only); when the observer runs
  /// again, the history after its cursor has a gap, which must count as "everything may
  /// have changed", not as "only notes changed".
  func testAnObserverThatMissedPrunedTransactionsStillSeesEverything() throws {
    let dir = try TemporaryDirectory()
    let path = try dir.store("shared.store")
    let a = try ServerProcess(arguments: ["serve", "--store", path])
    _ = try a.call("model.define", ["schema": Self.model])
    let b = try ServerProcess(arguments: ["serve", "--store", path, "--history-retention", "1"])
    let observed = try a.call("query.observe", ["entity": "Task", "sort": ["title"]])
    XCTAssertEqual(observed["objects"]?.arrayValue, [])
    XCTAssertTrue(a.pause(), "the observer did not stop")
    for i in 0..<5 { _ = try b.call("objects.insert", ["entity": "Task", "values": ["title": .string("t\(i)")]]) }
    for i in 0..<3 { _ = try b.call("objects.insert", ["entity": "Note", "values": ["text": .string("n\(i)")]]) }
    let tokens = try XCTUnwrap(try b.call("history.fetch")["transactions"]?.arrayValue).compactMap { $0["token"]?.intValue }
    XCTAssertLessThanOrEqual(tokens.count, 2, "pruned: \(tokens)")
    a.resume()
    var inserted: [String] = []
    while inserted.count < 5 {
      guard let m = try a.readMessage(timeout: 60) else { return XCTFail("no query/changed; saw \(inserted)") }
      guard m["method"] == "query/changed" else { continue }
      inserted += (m["params"]?["inserted"]?.arrayValue ?? []).compactMap { $0["object"]?["title"]?.stringValue }
    }
    XCTAssertEqual(inserted.sorted(), ["t0", "t1", "t2", "t3", "t4"])
  }
}
