import Foundation
import JSONCore
import TestSupport
import XCTest

/// The hostile predicates of issue #11 sent to the binary: each is answered (a result,
/// or a precise `predicate` error, never `storage`) and the server stays alive.
final class PredicateLimitProcessTests: XCTestCase {
  private let treeSchema: JSONValue = try! JSONParser.parse(
    """
    {"version":"1.0.0","entities":[{"name":"Task","attributes":[{"name":"a","type":"int","default":0},{"name":"s","type":"string","optional":true}],
     "relationships":[{"name":"parent","destination":"Task","inverse":"children"},{"name":"children","destination":"Task","inverse":"parent","toMany":true}]}]}
    """)

  private func assertAlive(_ server: ServerProcess, file: StaticString = #filePath, line: UInt = #line) throws {
    XCTAssertEqual(try server.request("store.info")["result"]?["format"], "modelstore", server.stderr, file: file, line: line)
  }

  func testHostileNestingIsAnsweredAndTheServerLives() throws {
    let server = try ServerProcess(arguments: ["serve", "--memory", "--max-depth", "100000"])
    _ = try server.call("model.define", ["schema": treeSchema])
    _ = try server.call("objects.insert", ["entity": "Task", "values": ["a": 1]])
    // The report's 4,673 arrays nest 9,346 JSON levels, past what the JSON reader takes
    // whatever --max-depth says (see testJSONFormDepthIsFirstBoundedByTheMessageDepth):
    // 1,000 reach the predicate decoder.
    let arrays = (0..<1000).reduce(JSONValue.object(["value": 1])) { e, _ in ["array": [e]] }
    // PostgreSQL binds at most 7,498 values a statement (protocol.md, "PostgreSQL engine:
    // what differs"): 10,000 ANDs are refused there at the comparison past the limit.
    let ands = 10_000
    let cases: [(String, JSONValue, Int64?)] = [
      ("2,306 minus signs", .string("a == " + String(repeating: "-", count: 2306) + "1"), 1),
      ("47,509 NOTs", .string(String(repeating: "NOT ", count: 47_509) + "a == 1"), 0),
      ("10,000 ANDs", .string(Array(repeating: "a == 1", count: ands).joined(separator: " AND ")), TestEngine.isPostgres ? nil : 1),
      ("2,305 additions", .string("a == " + String(repeating: "1 + ", count: 2305) + "1"), nil),
      ("18,668 parentheses", .string(String(repeating: "(", count: 18_668) + "a == 1" + String(repeating: ")", count: 18_668)), nil),
      ("1,000 nested arrays", ["op": "IN", "lhs": ["keyPath": "a"], "rhs": arrays], nil),
      (
        "8 nested SUBQUERYs",
        .string((0..<8).reduce("a > 0") { p, i in "SUBQUERY(children, $c\(i), \(p)).@count > 0" }), nil
      ),
    ]
    for (name, predicate, expected) in cases {
      let reply = try XCTUnwrap(
        try server.request("query.count", ["entity": "Task", "where": predicate], timeout: 60) as JSONObject?, name)
      if let expected {
        XCTAssertEqual(reply["result"]?["count"]?.intValue, expected, "\(name): \(reply)")
      } else {
        XCTAssertEqual(reply.errorCode, -32602, "\(name): \(reply)")
        XCTAssertEqual(reply.errorKind, "predicate", name)
        XCTAssertTrue(reply["error"]?["data"]?["offset"] != nil || reply["error"]?["data"]?["path"] != nil, "\(name): \(reply)")
      }
      try assertAlive(server)
    }
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0)
  }

  func testJSONFormDepthIsFirstBoundedByTheMessageDepth() throws {
    let server = try ServerProcess()
    _ = try server.call("model.define", ["schema": treeSchema])
    let arrays = (0..<100).reduce(JSONValue.object(["value": 1])) { e, _ in ["array": [e]] }
    let reply = try server.request("query.count", ["entity": "Task", "where": ["op": "IN", "lhs": ["keyPath": "a"], "rhs": arrays]])
    XCTAssertEqual(reply.errorKind, "tooDeep", "\(reply)")
    let huge = try ServerProcess(arguments: ["serve", "--memory", "--max-depth", "100000"])
    let deep = (0..<4673).reduce(JSONValue.object(["value": 1])) { e, _ in ["array": [e]] }
    let refused = try huge.request("query.count", ["entity": "Task", "where": ["op": "IN", "lhs": ["keyPath": "a"], "rhs": deep]])
    XCTAssertEqual(refused.errorKind, "tooDeep", "\(refused)")
    try assertAlive(huge)
    huge.closeInput()
    XCTAssertEqual(huge.waitForExit(), 0)
    try assertAlive(server)
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0)
  }

  /// On PostgreSQL, whose regular expressions do not backtrack this way and have no step
  /// budget of the engine's (protocol.md, "PostgreSQL engine: what differs"), the same
  /// pattern is simply answered.
  func testACatastrophicRegexOnPostgreSQLIsAnswered() throws {
    guard TestEngine.isPostgres else { throw XCTSkip("PostgreSQL's answer; SQLite's is the test below") }
    let server = try ServerProcess()
    _ = try server.call("model.define", ["schema": treeSchema])
    _ = try server.call("objects.insert", ["entity": "Task", "values": ["s": .string(String(repeating: "a", count: 24) + "!"), "a": 5]])
    XCTAssertEqual(try server.call("query.count", ["entity": "Task", "where": "s MATCHES '(a+)+$'"], timeout: 30)["count"], 0)
    XCTAssertEqual(try server.call("query.count", ["entity": "Task", "where": "s MATCHES '(a+)+!'"], timeout: 30)["count"], 1)
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0)
  }

  func testCatastrophicRegexFailsWithItsBudgetAndCancelStopsALongRegexScan() throws {
    try TestEngine.requireSQLite("the step budget is ICU's matching engine's, which SQLite runs MATCHES with")
    let server = try ServerProcess()
    _ = try server.call("model.define", ["schema": treeSchema])
    _ = try server.call("objects.insert", ["entity": "Task", "values": ["s": .string(String(repeating: "a", count: 24) + "!"), "a": 5]])
    let refused = try server.request("query.count", ["entity": "Task", "where": "s MATCHES '(a+)+$'"], timeout: 30)
    XCTAssertEqual(refused.errorKind, "predicate", "\(refused)")
    XCTAssertEqual(refused["error"]?["data"]?["offset"], 2)
    XCTAssertEqual(try server.call("objects.deleteWhere", ["entity": "Task", "where": "a == 5"])["count"], 1)
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0)
    // Many values each just within the budget: a scan of seconds, stopped by a cancel while
    // it provably runs (the server stopped after a twentieth of the scan's CPU time).
    for _ in 1...3 {
      let server = try ServerProcess()
      _ = try server.call("model.define", ["schema": treeSchema])
      let changes: [JSONValue] = (0..<4000).map { _ in
        ["op": "insert", "entity": "Task", "values": ["s": .string(String(repeating: "a", count: 14) + "!")]]
      }
      _ = try server.call("context.save", ["changes": .array(changes)], timeout: 60)
      let scan: JSONObject = ["entity": "Task", "where": "s MATCHES '(a+)+$' AND a == 0"]
      let (whole, cpu) = try server.cpuSpent { try server.call("query.count", scan, timeout: 120) }
      XCTAssertEqual(whole["count"], 0)
      guard let reply = try server.cancelWhileRunning("query.count", scan, cpu: cpu, table: "Task") else { continue }
      XCTAssertEqual(reply.errorCode, -32800, "\(reply)")
      XCTAssertEqual(reply.errorKind, "cancelled")
      try assertAlive(server)
      server.closeInput()
      XCTAssertEqual(server.waitForExit(), 0)
      return
    }
    XCTFail("no attempt stopped the server before half of the scan")
  }
}
