import Foundation
import JSONCore
import TestSupport
import XCTest

/// `$/cancelRequest` for a request that is running (a long scan, a long per-object write
/// loop, a long write statement inside a client transaction), for one still waiting in the
/// queue, and for ids it must not reach.
final class CancellationTests: XCTestCase {
  /// A predicate that folds every title (case and diacritics) in Swift, so that a full
  /// scan is slow; it matches every row.
  static let slowPredicate: JSONValue = #"title CONTAINS[cd] "def""#

  /// A server holding enough rows that counting them with `slowPredicate` takes well over
  /// 300 ms, and how long that takes.
  struct LongScan {
    let server: ServerProcess
    let rows: Int
    let baseline: TimeInterval
  }

  private func insertRows(_ server: ServerProcess, from start: Int, count: Int) throws {
    let filler = String(repeating: "Äbc déf ghi jkl ", count: 20)
    let changes: [JSONValue] = (start..<(start + count)).map { i in
      ["op": "insert", "entity": "Item", "values": ["title": .string("Item \(i) \(filler)"), "n": .int(Int64(i))]]
    }
    _ = try server.call("context.save", ["changes": .array(changes)], timeout: 120)
  }

  private func timedCount(_ server: ServerProcess) throws -> (Int64?, TimeInterval) {
    let start = Date()
    let r = try server.call("query.count", ["entity": "Item", "where": Self.slowPredicate], timeout: 120)
    return (r["count"]?.intValue, Date().timeIntervalSince(start))
  }

  /// Grows the store until the slow count takes at least 0.6 s (so a cancel sent after
  /// 150 ms lands mid-scan even on a fast machine), and measures it.
  private func makeLongScan() throws -> LongScan {
    let server = try ServerProcess()
    _ = try server.call("model.define", ["schema": itemSchema])
    var rows = 6000
    try insertRows(server, from: 0, count: rows)
    var (count, elapsed) = try timedCount(server)
    while elapsed < 0.6 && rows < 400_000 {
      try insertRows(server, from: rows, count: rows)
      rows *= 2
      (count, elapsed) = try timedCount(server)
    }
    XCTAssertEqual(count, Int64(rows))
    print("CancellationTests: counting \(rows) rows with \(Self.slowPredicate) takes \(Int(elapsed * 1000)) ms")
    return LongScan(server: server, rows: rows, baseline: elapsed)
  }

  /// After a cancelled request the store has every row, passes its check, and the same
  /// (cached) query runs again.
  private func assertStoreIntact(_ scan: LongScan, file: StaticString = #filePath, line: UInt = #line) throws {
    let s = scan.server
    XCTAssertEqual(try s.call("query.count", ["entity": "Item"])["count"]?.intValue, Int64(scan.rows), file: file, line: line)
    let some = try s.call("query.fetch", ["entity": "Item", "where": Self.slowPredicate, "limit": 3])
    XCTAssertEqual(some["objects"]?.arrayValue?.count, 3, file: file, line: line)
    XCTAssertEqual(try s.call("store.check", timeout: 60)["ok"], true, file: file, line: line)
    XCTAssertEqual(try s.call("store.info")["openTransactions"], 0, file: file, line: line)
  }

  func testCancellingARunningQuery() throws {
    let scan = try makeLongScan()
    XCTAssertGreaterThan(scan.baseline, 0.3, "the scan must be long enough to be cancelled while it runs")
    let server = scan.server
    let sent = Date()
    let id = server.sendRequest("query.count", ["entity": "Item", "where": Self.slowPredicate])
    XCTAssertNil(server.readLine(timeout: 0.15), "the slow count answered within 150 ms")
    server.sendNotification("$/cancelRequest", ["id": id])
    let reply = try XCTUnwrap(try server.readReply(timeout: 30), "no reply to the cancelled request")
    let elapsed = Date().timeIntervalSince(sent)
    XCTAssertEqual(reply["id"], id)
    XCTAssertNil(reply["result"], "the cancelled count completed anyway after \(Int(elapsed * 1000)) ms")
    XCTAssertEqual(reply.errorCode, -32800, "\(reply)")
    XCTAssertEqual(reply.errorKind, "cancelled")
    XCTAssertLessThan(elapsed, scan.baseline * 0.8, "the scan was not interrupted (baseline \(scan.baseline) s)")
    try assertStoreIntact(scan)
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0)
  }

  func testCancellingARunningDeleteWhereChangesNothing() throws {
    let scan = try makeLongScan()
    let server = scan.server
    let id = server.sendRequest("objects.deleteWhere", ["entity": "Item", "where": Self.slowPredicate])
    XCTAssertNil(server.readLine(timeout: 0.15), "deleteWhere answered within 150 ms")
    server.sendNotification("$/cancelRequest", ["id": id])
    let reply = try XCTUnwrap(try server.readReply(timeout: 60), "no reply to the cancelled deleteWhere")
    XCTAssertEqual(reply["id"], id)
    XCTAssertEqual(reply.errorCode, -32800, "\(reply["result"]?["count"] ?? reply["error"] ?? .null)")
    XCTAssertEqual(reply.errorKind, "cancelled")
    try assertStoreIntact(scan)
    // Writes still work afterwards.
    XCTAssertEqual(try server.call("objects.deleteWhere", ["entity": "Item", "where": "n == 0"])["count"], 1)
    XCTAssertEqual(try server.call("query.count", ["entity": "Item"])["count"]?.intValue, Int64(scan.rows - 1))
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0)
  }

  /// A write whose time goes into its per-object loop (one short UPDATE per row): the
  /// cancel is honoured between statements too, and none of its changes are kept.
  func testCancellingALongUpdateWhere() throws {
    let server = try ServerProcess()
    _ = try server.call("model.define", ["schema": itemSchema])
    // Grow the table until updating every row takes at least 0.45 s.
    var rows = 0
    var baseline: TimeInterval = 0
    while baseline < 0.45 && rows < 320_000 {
      let more = max(rows, 20_000)
      let changes: [JSONValue] = (rows..<(rows + more)).map { i in ["op": "insert", "entity": "Item", "values": ["title": .string("row \(i)"), "n": .int(Int64(i))]] }
      _ = try server.call("context.save", ["changes": .array(changes)], timeout: 120)
      rows += more
      let start = Date()
      // Every row gets a new value (so no update is skipped as unchanged).
      let updated = try server.call("objects.updateWhere", ["entity": "Item", "where": "n >= 0", "values": ["n": .int(Int64(rows))]], timeout: 120)
      baseline = Date().timeIntervalSince(start)
      XCTAssertEqual(updated["count"]?.intValue, Int64(rows))
    }
    print("CancellationTests: updateWhere over \(rows) rows takes \(Int(baseline * 1000)) ms")
    XCTAssertGreaterThan(baseline, 0.3)

    let id = server.sendRequest("objects.updateWhere", ["entity": "Item", "where": "n >= 0", "values": ["n": -5]])
    XCTAssertNil(server.readLine(timeout: 0.15), "updateWhere answered within 150 ms")
    server.sendNotification("$/cancelRequest", ["id": id])
    let reply = try XCTUnwrap(try server.readReply(timeout: 60))
    XCTAssertEqual(reply["id"], id)
    XCTAssertEqual(reply.errorCode, -32800, "the cancel was ignored: updateWhere completed (\(reply["result"]?["count"] ?? reply["error"] ?? .null))")
    XCTAssertEqual(reply.errorKind, "cancelled")
    XCTAssertEqual(try server.call("query.count", ["entity": "Item", "where": "n == -5"])["count"], 0, "the cancelled update left changes")
    XCTAssertEqual(try server.call("query.count", ["entity": "Item", "where": "n == %@", "args": [.int(Int64(rows))]])["count"]?.intValue, Int64(rows))
    XCTAssertEqual(try server.call("store.info")["openTransactions"], 0)
    XCTAssertEqual(try server.call("store.check")["ok"], true)
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0)
  }

  /// Many-to-many posts and tags: deleting a post removes its join rows in one long
  /// DELETE statement, so a cancel lands inside a write statement.
  static let postTagSchema: JSONValue = try! JSONParser.parse(
    """
    {"version":"1","entities":[
     {"name":"Post","attributes":[{"name":"title","type":"string"}],
      "relationships":[{"name":"tags","destination":"Tag","inverse":"posts","toMany":true,"deleteRule":"nullify"}]},
     {"name":"Tag","attributes":[{"name":"name","type":"string"}],
      "relationships":[{"name":"posts","destination":"Post","inverse":"tags","toMany":true,"deleteRule":"nullify"}]}]}
    """)

  /// A cancelled write inside a client transaction undoes only its own changes: the
  /// client's transaction, with its earlier uncommitted insert, stays open and commits.
  /// (SQLite rolls back the whole transaction when a write statement is interrupted, so
  /// the server must not let that happen, or must notice it.) Tried at several moments.
  func testCancelledWriteKeepsTheClientTransaction() throws {
    let server = try ServerProcess()
    _ = try server.call("model.define", ["schema": Self.postTagSchema])
    let tagCount = 30_000
    var changes: [JSONValue] = (0..<tagCount).map { i in ["op": "insert", "entity": "Tag", "ref": .string("$t\(i)"), "values": ["name": .string("tag \(i)")]] }
    changes.append(["op": "insert", "entity": "Post", "ref": "$p", "values": ["title": "linked", "tags": .array((0..<tagCount).map { .string("$t\($0)") })]])
    let saved = try server.call("context.save", ["changes": .array(changes)], timeout: 120)
    // (JSONObject lookups are linear: walk the members once.)
    let tagIDs = (saved["ids"]?.objectValue?.members ?? []).filter { $0.key.hasPrefix("$t") }.map(\.value)
    XCTAssertEqual(tagIDs.count, tagCount)
    func newPost() throws -> JSONValue {
      try XCTUnwrap(try server.call("objects.insert", ["entity": "Post", "values": ["title": "linked", "tags": .array(tagIDs)]], timeout: 60)["_id"])
    }
    // How long the delete takes when it runs to the end.
    var start = Date()
    _ = try server.call("objects.delete", ["id": try XCTUnwrap(saved["ids"]?["$p"])], timeout: 60)
    let baseline = Date().timeIntervalSince(start)
    print("CancellationTests: deleting a post with \(tagCount) tags takes \(Int(baseline * 1000)) ms")
    var post = try newPost()

    var cancelledCount = 0
    for (attempt, fraction) in [0.5, 0.3, 0.7, 0.4, 0.6, 0.2, 0.8, 0.45, 0.55, 0.35].enumerated() {
      let marker = "uncommitted \(attempt)"
      XCTAssertEqual(try server.call("transaction.begin")["depth"], 1)
      _ = try server.call("objects.insert", ["entity": "Tag", "values": ["name": .string(marker)]])
      start = Date()
      let id = server.sendRequest("objects.delete", ["id": post])
      // Wait without reading: the reply, if the delete already finished, must stay unread.
      usleep(UInt32(baseline * fraction * 1_000_000))
      server.sendNotification("$/cancelRequest", ["id": id])
      let reply = try XCTUnwrap(try server.readReply(timeout: 60))
      XCTAssertEqual(reply["id"], id)
      let open = try server.call("store.info")["openTransactions"]
      let kept = try server.call("query.count", ["entity": "Tag", "where": "name == %@", "args": [.string(marker)]])["count"]
      let commit = try server.request("transaction.commit")
      if reply.errorCode == -32800 {
        cancelledCount += 1
        XCTAssertEqual(reply.errorKind, "cancelled")
        XCTAssertEqual(open, 1, "attempt \(attempt): after the cancel the store reports \(open ?? .null) open transactions")
        XCTAssertEqual(kept, 1, "attempt \(attempt) (cancel after \(Int(baseline * fraction * 1000)) ms): the client's uncommitted insert vanished: the whole client transaction was rolled back")
        XCTAssertEqual(commit["result"]?["depth"], 0, "attempt \(attempt): commit after the cancel failed: \(commit["error"] ?? .null)")
        XCTAssertEqual(try server.call("objects.get", ["id": post, "toMany": "count"])["tags"], .int(Int64(tagCount)), "attempt \(attempt): the cancelled delete left changes")
      } else {
        // The delete finished before the cancel was read: it stays done.
        XCTAssertNotNil(reply["result"], "\(reply)")
        XCTAssertEqual(commit["result"]?["depth"], 0)
        post = try newPost()
      }
      if open != 1 || kept != 1 || commit["result"] == nil {
        while (try server.call("store.info")["openTransactions"]?.intValue ?? 0) > 0 { _ = try server.request("transaction.rollback") }
        break
      }
    }
    print("CancellationTests: \(cancelledCount) deletes cancelled inside a client transaction")
    XCTAssertGreaterThan(cancelledCount, 0, "no attempt was cancelled in time")
    XCTAssertEqual(try server.call("store.check")["ok"], true)
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0)
  }

  /// protocol.md: a cancel reaches only a request read before it; a later request that
  /// reuses the id (or one sent after the answer) is not affected.
  func testCancelReachesOnlyRequestsReadBeforeIt() throws {
    let server = try ServerProcess()
    server.sendRaw(Data((notificationLine("$/cancelRequest", ["id": "early"]) + "\n" + requestLine("early", "store.check") + "\n").utf8))
    let early = try XCTUnwrap(try server.readReply())
    XCTAssertEqual(early["id"], "early")
    XCTAssertEqual(early["result"]?["ok"], true, "a cancel read before the request cancelled it: \(early)")
    // Cancel an answered request, then reuse its id.
    XCTAssertNotNil(try server.request("store.info")["result"])
    let reused = server.sendRequest("store.check", id: 500)
    XCTAssertEqual(try server.readReply()?["id"], reused)
    server.sendNotification("$/cancelRequest", ["id": 500])
    let again = try server.request("store.check")
    XCTAssertNotNil(again["result"])
    server.sendRequest("store.check", id: 500)
    let second = try XCTUnwrap(try server.readReply())
    XCTAssertEqual(second["id"], 500)
    XCTAssertEqual(second["result"]?["ok"], true, "a stale cancel hit a later request reusing the id: \(second)")
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0)
  }

  func testCancellingAQueuedRequest() throws {
    let scan = try makeLongScan()
    let server = scan.server
    let longID = server.sendRequest("query.count", ["entity": "Item", "where": Self.slowPredicate])
    XCTAssertNil(server.readLine(timeout: 0.15))
    // Queued behind the running count, then cancelled before it starts.
    let queuedID: JSONValue = "queued-request"
    server.sendRaw(
      Data(
        (requestLine(queuedID, "query.count", ["entity": "Item"]) + "\n" + notificationLine("$/cancelRequest", ["id": queuedID]) + "\n"
          + requestLine("after", "store.info") + "\n").utf8))
    let first = try XCTUnwrap(try server.readReply(timeout: 60))
    XCTAssertEqual(first["id"], longID)
    XCTAssertEqual(first["result"]?["count"]?.intValue, Int64(scan.rows), "the running request was not the one cancelled")
    let second = try XCTUnwrap(try server.readReply())
    XCTAssertEqual(second["id"], queuedID)
    XCTAssertEqual(second.errorCode, -32800, "\(second)")
    XCTAssertEqual(second.errorKind, "cancelled")
    let third = try XCTUnwrap(try server.readReply())
    XCTAssertEqual(third["id"], "after")
    XCTAssertNotNil(third["result"])

    // Cancelling ids that are unknown or already answered is silent and harmless.
    server.sendNotification("$/cancelRequest", ["id": 987_654])
    server.sendNotification("$/cancelRequest", ["id": longID])
    server.sendNotification("$/cancelRequest", ["id": "never-sent"])
    XCTAssertEqual(try server.call("query.count", ["entity": "Item", "where": "n < 10"])["count"], 10)
    try assertStoreIntact(scan)
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0)
  }
}
