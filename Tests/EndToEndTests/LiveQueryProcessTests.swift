import Foundation
import JSONCore
import TestSupport
import XCTest

/// History and live queries, within one server and across two servers on one file.
final class LiveQueryProcessTests: XCTestCase {
  static let model = schema(
    entity(
      "Task",
      [
        attr("title", "string"), attr("rank", "int", default: 0), attr("done", "bool", default: false),
        attr("code", "string", optional: true, unique: true),
      ]))

  /// Applies a `query/changed` to a list of objects, as protocol.md says.
  static func apply(_ change: JSONValue, to list: [JSONValue]) -> [JSONValue] {
    var out = list
    let moved = change["moved"]?.arrayValue ?? []
    var removals = (change["deleted"]?.arrayValue ?? []).compactMap { $0["index"]?.intValue }
    removals += moved.compactMap { $0["from"]?.intValue }
    for i in removals.sorted(by: >) { out.remove(at: Int(i)) }
    var insertions: [(Int64, JSONValue)] = (change["inserted"]?.arrayValue ?? []).map { ($0["index"]!.intValue!, $0["object"]!) }
    insertions += moved.map { ($0["to"]!.intValue!, $0["object"]!) }
    for (i, o) in insertions.sorted(by: { $0.0 < $1.0 }) { out.insert(o, at: Int(i)) }
    for u in change["updated"]?.arrayValue ?? [] { out[Int(u["index"]!.intValue!)] = u["object"]! }
    return out
  }

  /// Notifications that arrived while waiting for a reply.
  private var early: [JSONValue] = []

  /// A call whose reply may come after `query/changed` notifications (kept for later).
  /// The bound is wide: an observer may first have to send a long backlog of changes, and
  /// a debug build on a loaded 2-core machine takes seconds for that.
  private func call(_ server: ServerProcess, _ method: String, _ params: JSONObject = [:], timeout: TimeInterval = 120) throws -> JSONValue
  {
    let id = server.sendRequest(method, params)
    let deadline = Date().addingTimeInterval(timeout)
    while let m = try server.readMessage(timeout: max(0.01, deadline.timeIntervalSinceNow)) {
      if m["method"] == "query/changed" {
        early.append(m["params"]!)
        continue
      }
      XCTAssertEqual(m["id"], id)
      return try XCTUnwrap(m["result"], "\(method) failed: \(m)")
    }
    if server.process.isRunning { throw ServerProcessError.noReply(method: method, stderr: server.stderr) }
    throw ServerProcessError.noReply(
      method: method, stderr: "the server exited (status \(server.process.terminationStatus)): \(server.stderr)")
  }

  private func readChange(_ server: ServerProcess, timeout: TimeInterval = 60) throws -> JSONValue {
    if !early.isEmpty { return early.removeFirst() }
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
      guard let m = try server.readMessage(timeout: deadline.timeIntervalSinceNow) else { break }
      if m["method"] == "query/changed" { return m["params"]! }
    }
    throw NoChange(timeout: timeout)
  }

  /// No `query/changed` came within the bound: the test fails at once instead of waiting on.
  private struct NoChange: Error, CustomStringConvertible {
    let timeout: TimeInterval
    var description: String { "no query/changed within \(timeout) s" }
  }

  func testHistoryRecordsEveryCommitWithAuthorsAndTombstones() throws {
    let server = try ServerProcess()
    _ = try server.call("initialize", ["author": "app"])
    _ = try server.call("model.define", ["schema": Self.model])
    let a = try XCTUnwrap(
      try server.call("objects.insert", ["entity": "Task", "values": ["title": "a", "code": "A-1"]])["_id"]?.stringValue)
    _ = try server.call("context.save", ["author": "sync", "changes": [["op": "update", "id": .string(a), "values": ["rank": 2]]]])
    _ = try server.call("transaction.begin")
    _ = try server.call("objects.insert", ["entity": "Task", "values": ["title": "b"]])
    _ = try server.call("transaction.rollback")
    _ = try server.call("transaction.begin")
    _ = try server.call("objects.insert", ["entity": "Task", "values": ["title": "c"]])
    _ = try server.call("objects.delete", ["id": .string(a)])
    _ = try server.call("transaction.commit")
    let h = try server.call("history.fetch")
    let ts = try XCTUnwrap(h["transactions"]?.arrayValue)
    XCTAssertEqual(ts.count, 3, "the rolled-back transaction left nothing")
    XCTAssertEqual(ts.map { $0["token"]?.intValue }, [1, 2, 3])
    XCTAssertEqual(ts.map { $0["author"] }, ["app", "sync", "app"])
    XCTAssertEqual(ts[1]["changes"], [["op": "update", "entity": "Task", "keys": ["rank"], "ids": [.string(a)]]])
    let last = try XCTUnwrap(ts[2]["changes"]?.arrayValue)
    XCTAssertEqual(last.first?["op"], "insert")
    XCTAssertEqual(last.last?["tombstone"], ["code": "A-1"])
    XCTAssertEqual(try server.call("history.fetch", ["author": "sync"])["transactions"]?.arrayValue?.count, 1)
    XCTAssertEqual(try server.call("history.fetch", ["after": 2])["transactions"]?.arrayValue?.count, 1)
    XCTAssertEqual(try server.call("history.delete", ["before": 3])["deleted"], 2)
    XCTAssertEqual(try server.call("history.fetch")["transactions"]?.arrayValue?.map { $0["token"] }, [3])
  }

  func testALiveQueryInOneProcessFollowsCommitsInAnother() throws {
    let dir = try TemporaryDirectory()
    let path = try dir.store("shared.store")
    let a = try ServerProcess(arguments: ["serve", "--store", path])
    _ = try a.call("model.define", ["schema": Self.model])
    let b = try ServerProcess(arguments: ["serve", "--store", path])
    let observed = try a.call("query.observe", ["entity": "Task", "where": "done == NO", "sort": ["rank", "title"]])
    let sub = try XCTUnwrap(observed["subscription"])
    var list = try XCTUnwrap(observed["objects"]?.arrayValue)
    XCTAssertEqual(list, [])

    var generator = SystemRandomNumberGenerator()
    var ids: [String] = []
    var applied = 0
    for step in 0..<60 {
      let roll = Int.random(in: 0..<10, using: &generator)
      if ids.isEmpty || roll < 4 {
        let o = try b.call(
          "objects.insert", ["entity": "Task", "values": ["title": .string("t\(step)"), "rank": .int(Int64.random(in: 0..<5))]])
        ids.append(o["_id"]!.stringValue!)
      } else if roll < 7 {
        _ = try b.call("objects.update", ["id": .string(ids.randomElement()!), "values": ["rank": .int(Int64.random(in: 0..<5))]])
      } else if roll < 8 {
        _ = try b.call("objects.update", ["id": .string(ids.randomElement()!), "values": ["done": .bool(Bool.random())]])
      } else {
        let victim = ids.remove(at: Int.random(in: 0..<ids.count))
        _ = try b.call("objects.delete", ["id": .string(victim)])
      }
      // The change arrives on A's next idle tick; then A's own fetch must agree with it.
      var fresh = try XCTUnwrap(
        try call(a, "query.fetch", ["entity": "Task", "where": "done == NO", "sort": ["rank", "title"]])["objects"]?.arrayValue)
      var waited = 0
      while list != fresh && waited < 50 {
        let change = try readChange(a)
        XCTAssertEqual(change["subscription"], sub)
        list = Self.apply(change, to: list)
        applied += 1
        waited += 1
        fresh = try XCTUnwrap(
          try call(a, "query.fetch", ["entity": "Task", "where": "done == NO", "sort": ["rank", "title"]])["objects"]?.arrayValue)
      }
      XCTAssertEqual(list, fresh, "after step \(step)")
    }
    XCTAssertGreaterThan(applied, 30, "most steps changed the result and were reported")
    print("live query: \(applied) changes applied over 60 random writes from another process")
    _ = try call(a, "query.unobserve", ["subscription": sub])
    XCTAssertEqual(try a.callFailing("query.unobserve", ["subscription": sub])["data"]?["kind"], "notFound")
  }

  func testAnIdleObserverIsToldWithoutAskingAnything() throws {
    let dir = try TemporaryDirectory()
    let path = try dir.store("idle.store")
    let a = try ServerProcess(arguments: ["serve", "--store", path])
    _ = try a.call("model.define", ["schema": Self.model])
    let b = try ServerProcess(arguments: ["serve", "--store", path])
    _ = try a.call("query.observe", ["entity": "Task"])
    _ = try b.call("objects.insert", ["entity": "Task", "values": ["title": "x"]])
    let change = try readChange(a)
    XCTAssertEqual(change["inserted"]?.arrayValue?.first?["object"]?["title"], "x")
    XCTAssertEqual(change["token"], 1)
  }

  /// 4 processes write 10k objects each (in saves of 100) while 2 observe: every write is
  /// there exactly once, each observer's list equals a fresh fetch, and nobody failed.
  func testFourWritersAndTwoObserversOnOneFile() throws {
    let dir = try TemporaryDirectory()
    let path = try dir.store("stress.store")
    let setup = try ServerProcess(arguments: ["serve", "--store", path])
    _ = try setup.call("model.define", ["schema": Self.model])
    let observers = try (0..<2).map { _ in try ServerProcess(arguments: ["serve", "--store", path]) }
    var lists: [[JSONValue]] = []
    for o in observers {
      lists.append(
        try XCTUnwrap(try o.call("query.observe", ["entity": "Task", "sort": ["title"], "select": ["title"]])["objects"]?.arrayValue))
    }
    let writers = try (0..<4).map { _ in try ServerProcess(arguments: ["serve", "--store", path]) }
    let batches = 100, perBatch = 100
    var sent: [[JSONValue]] = Array(repeating: [], count: writers.count)
    for b in 0..<batches {
      for (w, writer) in writers.enumerated() {
        let changes: [JSONValue] = (0..<perBatch).map { i in
          ["op": "insert", "entity": "Task", "values": ["title": .string(String(format: "w%d-%05d", w, b * perBatch + i))]]
        }
        sent[w].append(writer.sendRequest("context.save", ["changes": .array(changes)]))
      }
    }
    for (w, writer) in writers.enumerated() {
      for id in sent[w] {
        let reply = try XCTUnwrap(try writer.readReply(timeout: 120))
        XCTAssertEqual(reply["id"], id)
        XCTAssertNil(reply["error"], "writer \(w): \(reply)")
      }
    }
    let total = writers.count * batches * perBatch
    XCTAssertEqual(try setup.call("query.count", ["entity": "Task"])["count"]?.intValue, Int64(total))
    for (k, o) in observers.enumerated() {
      var fresh: [JSONValue] = []
      var rounds = 0
      repeat {
        fresh = try XCTUnwrap(
          try call(o, "query.fetch", ["entity": "Task", "sort": ["title"], "select": ["title"]])["objects"]?.arrayValue)
        while lists[k] != fresh, rounds < 10_000 {
          let change = try readChange(o, timeout: 120)
          if let error = change["error"] { throw XCTSkip("observer \(k)'s subscription ended: \(error)") }
          lists[k] = Self.apply(change, to: lists[k])
          rounds += 1
          if lists[k].count == fresh.count { break }
        }
      } while lists[k] != fresh && rounds < 10_000
      XCTAssertEqual(lists[k].count, total, "observer \(k)")
      XCTAssertEqual(lists[k], fresh, "observer \(k)")
      XCTAssertEqual(Set(lists[k].compactMap { $0["title"]?.stringValue }).count, total, "every write exactly once")
      early = []
    }
    for p in writers + observers + [setup] {
      p.closeInput()
      XCTAssertEqual(p.waitForExit(timeout: 30), 0)
    }
  }

  func testASchemaDefinedByAnotherProcessIsFollowed() throws {
    let dir = try TemporaryDirectory()
    let path = try dir.store("late.store")
    let a = try ServerProcess(arguments: ["serve", "--store", path])
    let b = try ServerProcess(arguments: ["serve", "--store", path])
    XCTAssertEqual(try b.call("model.get")["schema"], .null)
    _ = try a.call("model.define", ["schema": Self.model])
    XCTAssertEqual(try b.call("objects.insert", ["entity": "Task", "values": ["title": "x"]])["_id"], "Task/1")
    // And a migration there: the other process sees the renamed attribute.
    let v2 = schema(
      entity(
        "Task",
        [
          attr("name", "string", originalName: "title"), attr("rank", "int", default: 0), attr("done", "bool", default: false),
          attr("code", "string", optional: true, unique: true),
        ]),
      version: "2")
    _ = try a.call("migration.apply", ["schemas": [Self.model, v2], "backup": false])
    XCTAssertEqual(try b.call("objects.get", ["id": "Task/1"])["name"], "x")
  }

  func testOptimisticUpdatesFromTwoProcessesNeverLoseOne() throws {
    let dir = try TemporaryDirectory()
    let path = try dir.store("opt.store")
    let a = try ServerProcess(arguments: ["serve", "--store", path])
    _ = try a.call("model.define", ["schema": Self.model])
    _ = try a.call("objects.insert", ["entity": "Task", "values": ["title": "x"]])
    let b = try ServerProcess(arguments: ["serve", "--store", path])
    let seenByA = try XCTUnwrap(try a.call("objects.get", ["id": "Task/1", "withVersion": true])["_version"]?.intValue)
    let seenByB = try XCTUnwrap(try b.call("objects.get", ["id": "Task/1", "withVersion": true])["_version"]?.intValue)
    XCTAssertEqual(seenByA, seenByB)
    let first = try a.call("objects.update", ["id": "Task/1", "values": ["rank": 1], "ifVersion": .int(seenByA)])
    XCTAssertEqual(first["_version"]?.intValue, seenByA + 1)
    let lost = try b.callFailing("objects.update", ["id": "Task/1", "values": ["rank": 2], "ifVersion": .int(seenByB)])
    XCTAssertEqual(lost["code"], -32008)
    XCTAssertEqual(lost["data"]?["kind"], "conflict")
    XCTAssertEqual(lost["data"]?["actual"]?.intValue, seenByA + 1)
    XCTAssertEqual(try b.call("objects.get", ["id": "Task/1"])["rank"], 1, "the first write stands")
    // Without ifVersion both apply, in commit order.
    _ = try b.call("objects.update", ["id": "Task/1", "values": ["rank": 3]])
    XCTAssertEqual(try a.call("objects.get", ["id": "Task/1"])["rank"], 3)
  }

  func testProcessesCreatingOneNewStoreAtOnceAllSucceed() throws {
    for round in 0..<5 {
      let dir = try TemporaryDirectory()
      let path = try dir.store("new.store")
      let servers = try (0..<4).map { _ in try ServerProcess(arguments: ["serve", "--store", path]) }
      for (i, s) in servers.enumerated() {
        XCTAssertEqual(try s.call("store.info")["format"], "modelstore", "round \(round), process \(i): \(s.stderrAtEnd(timeout: 0))")
      }
      for s in servers { s.closeInput() }
    }
  }
}
