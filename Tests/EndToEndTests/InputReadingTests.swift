import Foundation
import JSONCore
import TestSupport
import XCTest

/// The server's one thread reads its input, handles and answers (protocol.md, Overview):
/// what that must not break. A client that writes many requests before it reads any reply
/// is served (input is read while the output is full); input that ends while a request
/// runs, or in the middle of a message, ends the session only after everything before it
/// was answered; and a cancel read while a request runs still cancels the requests queued
/// behind it that it names.
final class InputReadingTests: XCTestCase {
  /// Item/1 with a 2,000-character title: each `objects.get` of it is a 2 KB reply.
  private func serverWithALargeObject() throws -> ServerProcess {
    let server = try ServerProcess()
    _ = try server.call("model.define", ["schema": itemSchema])
    _ = try server.call("objects.insert", ["entity": "Item", "values": ["title": .string(String(repeating: "x", count: 2000)), "n": 1]])
    return server
  }

  /// 3,000 requests (250 KB) written before any reply is read, whose replies (6 MB) are far
  /// more than the output pipe holds: the server must read input while it waits to write,
  /// or both sides wait on each other forever.
  func testManyPipelinedRequestsWrittenBeforeAnyReplyIsRead() throws {
    let server = try serverWithALargeObject()
    let count = 3000
    let input = Data((0..<count).map { requestLine(.int(Int64($0)), "objects.get", ["id": "Item/1"]) + "\n" }.joined().utf8)
    let written = DispatchSemaphore(value: 0)
    let writer = Thread {
      server.sendRaw(input)
      written.signal()
    }
    writer.start()
    XCTAssertEqual(
      written.wait(timeout: .now() + 60), .success, "the requests could not all be written: the server stopped reading its input")
    for i in 0..<count {
      let reply = try XCTUnwrap(try server.readReply(timeout: 30), "reply \(i) missing")
      XCTAssertEqual(reply["id"], .int(Int64(i)))
      XCTAssertEqual(reply["result"]?["title"]?.stringValue?.count, 2000)
    }
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0)
  }

  /// Rows whose count with a folding predicate takes a while (the request the tests below
  /// send while more input, or its end, arrives), and the CPU time that count takes.
  private func serverWithASlowCount() throws -> (ServerProcess, rows: Int, cpu: TimeInterval) {
    let server = try ServerProcess()
    _ = try server.call("model.define", ["schema": itemSchema])
    let filler = String(repeating: "Äbc déf ghi jkl ", count: 20)
    var rows = 0
    var cpu: TimeInterval = 0
    // At least 0.4 s of CPU (forty clock ticks), so that a stop midway is seen midway.
    while cpu < 0.4 && rows < 320_000 {
      let more = max(rows, 20_000)
      let changes: [JSONValue] = (rows..<(rows + more)).map {
        ["op": "insert", "entity": "Item", "values": ["title": .string("Item \($0) \(filler)"), "n": .int(Int64($0))]]
      }
      _ = try server.call("context.save", ["changes": .array(changes)], timeout: 120)
      rows += more
      let (count, spent) = try server.cpuSpent { try server.call("query.count", Self.slowCount, timeout: 120)["count"] }
      XCTAssertEqual(count?.intValue, Int64(rows))
      cpu = spent
      if TestEngine.isPostgres { break }  // held by a lock there
    }
    return (server, rows, cpu)
  }

  /// Runs `body` with the slow count held while it runs (`ServerProcess.hold`): what it
  /// writes before `release()` is read while the count provably runs. Started again (a few
  /// times at most) only when a stop landed late.
  private func whileTheSlowCountRuns(_ body: (ServerProcess, HeldRequest, Int) throws -> Void) throws {
    for _ in 1...3 {
      let (server, rows, cpu) = try serverWithASlowCount()
      guard let held = try server.hold("query.count", Self.slowCount, cpu: cpu, table: "Item") else { continue }
      try body(server, held, rows)
      return
    }
    XCTFail("no attempt stopped the server before half of the count")
  }

  private static let slowCount: JSONObject = ["entity": "Item", "where": #"title CONTAINS[cd] "def""#]

  /// The input ends (with half a message) while a request runs: the request is answered,
  /// then the half message gets its parse error, then the server exits 0. However much of
  /// this the running request read ahead, the order is the input's.
  func testInputEndingWhileARequestRunsEndsTheSessionAfterItsReply() throws {
    try whileTheSlowCountRuns { server, held, rows in
      server.sendRaw(Data((requestLine("next", "store.info") + "\n" + #"{"jsonrpc":"2.0","id":"cut","#).utf8))
      server.closeInput()
      held.release()
      let first = try server.reply(to: held.id)
      XCTAssertEqual(first["result"]?["count"]?.intValue, Int64(rows))
      XCTAssertEqual(try server.readReply()?["id"], "next")
      let cut = try XCTUnwrap(try server.readReply())
      XCTAssertEqual(cut["id"], .null)
      XCTAssertEqual(cut.errorCode, -32700, "\(cut)")
      XCTAssertEqual(server.waitForExit(), 0)
      XCTAssertEqual(String(decoding: server.readToEnd(), as: UTF8.self), "", "nothing after the last message")
    }
  }

  /// Requests pipelined behind a running one, with a cancel of one of them among them:
  /// that one alone is answered `cancelled`, the others in order. (They come in one write
  /// of at most PIPE_BUF bytes, which a reader of the pipe sees whole, so the cancel is read
  /// with the request it names, whether the running request reads them ahead or the
  /// server reads them after it.)
  func testACancelAmongPipelinedRequestsReachesOnlyTheOneItNames() throws {
    try whileTheSlowCountRuns { server, held, rows in
      var text = ""
      for i in 0..<30 { text += requestLine(.int(Int64(i)), "query.count", ["entity": "Item", "where": "n < 5"]) + "\n" }
      text += notificationLine("$/cancelRequest", ["id": 20]) + "\n"
      XCTAssertLessThanOrEqual(text.utf8.count, 4096)
      server.sendRaw(Data(text.utf8))
      held.release()
      let first = try server.reply(to: held.id)
      XCTAssertEqual(first["result"]?["count"]?.intValue, Int64(rows))
      for i in 0..<30 {
        let reply = try XCTUnwrap(try server.readReply(timeout: 30))
        XCTAssertEqual(reply["id"], .int(Int64(i)))
        if i == 20 {
          XCTAssertEqual(reply.errorKind, "cancelled", "\(reply)")
        } else {
          XCTAssertEqual(reply["result"]?["count"], 5, "\(reply)")
        }
      }
      server.closeInput()
      XCTAssertEqual(server.waitForExit(), 0)
    }
  }
}
