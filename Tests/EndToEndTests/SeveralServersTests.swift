import Foundation
import JSONCore
import TestSupport
import XCTest

/// Several servers on one store (issue #15): three `modelstore serve` processes, two of
/// them writing at once (random saves, and read-modify-write increments of one counter
/// with `ifVersion`, retried on `conflict` or `busy`), the third running a live query. The
/// live query, its notifications applied, ends exactly equal to a fresh fetch, its tokens
/// only increase, and the counter lost no increment. One file on SQLite, one schema on
/// PostgreSQL (`TestEngine`), where the third server learns of the others' commits from
/// PostgreSQL's notifications.
final class SeveralServersTests: XCTestCase {
  static let model = schema(
    entity("Task", [attr("title", "string"), attr("rank", "int", default: 0), attr("done", "bool", default: false)]),
    entity("Counter", [attr("value", "int64", default: 0)]))
  static let view: JSONObject = ["entity": "Task", "where": "done == NO", "sort": ["rank", "title"], "select": ["title", "rank", "done"]]
  static let rounds = 150

  /// One writer: its own tasks (only it updates or deletes them, so its saves never meet
  /// the other's objects), and its step in the counter's read-modify-write.
  struct Writer {
    let server: ServerProcess
    let name: String
    var tasks: [String] = []
    /// The counter as last read (value, version), when the next step is the update.
    var read: (value: Int64, version: Int64)?
    var increments = 0
    var conflicts = 0
    var busy = 0
    /// The request in flight and what it was.
    var pending: (id: JSONValue, kind: Kind)?

    enum Kind {
      case save([String: Int])  // refs of inserted tasks
      case readCounter, updateCounter
    }
  }

  func testALiveQueryInAThirdServerFollowsTwoWritersAndNoIncrementIsLost() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let path = try dir.store("shared.store")
    let a = try ServerProcess(arguments: ["serve", "--store", path])
    _ = try a.call("model.define", ["schema": Self.model])
    let counter = try XCTUnwrap(try a.call("objects.insert", ["entity": "Counter"])["_id"])
    let b = try ServerProcess(arguments: ["serve", "--store", path])
    let c = try ServerProcess(arguments: ["serve", "--store", path])

    let first = try c.call("query.observe", Self.view)
    var list = try XCTUnwrap(first["objects"]?.arrayValue)
    var token = try XCTUnwrap(first["token"]?.intValue)
    var notifications = 0
    var problems: [String] = []
    /// Applies every notification `c` has sent so far, keeping its pipe from filling up;
    /// with `waitingUntil`, waits for the next one (at most until then) and applies it.
    func follow(waitingUntil deadline: Date? = nil) throws {
      while let m = try c.readMessage(timeout: deadline.map { max(0.01, $0.timeIntervalSinceNow) } ?? 0.001) {
        guard m["method"] == "query/changed", let p = m["params"] else { return problems.append("the observer sent \(m)") }
        if p["error"] != nil { problems.append("the subscription ended: \(p)") }
        let t = p["token"]?.intValue ?? -1
        if t <= token { problems.append("token \(t) after \(token)") }
        token = t
        list = LiveQueryProcessTests.apply(p, to: list)
        notifications += 1
        if deadline != nil { return }
      }
    }

    var rng = FuzzTests.SeededRandom(state: 15)
    var writers = [Writer(server: a, name: "a"), Writer(server: b, name: "b")]
    for round in 0..<Self.rounds {
      // Both writers get a request before either reply is read: their work overlaps.
      for w in writers.indices { writers[w].pending = send(&writers[w], counter: counter, round: round, rng: &rng) }
      for w in writers.indices { try settle(&writers[w], problems: &problems) }
      try follow()
    }
    // A last save that the view shows, whose token the observer must reach.
    let marker = try a.call("objects.insert", ["entity": "Task", "values": ["title": "marker", "rank": -1]])
    let last = try XCTUnwrap(try a.call("history.fetch", ["after": .int(token)])["lastToken"]?.intValue)
    let deadline = Date().addingTimeInterval(120)  // a bound for failures only
    while token < last && Date() < deadline { try follow(waitingUntil: deadline) }
    XCTAssertGreaterThanOrEqual(token, last, "the observer did not follow the writers' commits within 120 s")
    XCTAssertEqual(list.first?["_id"], marker["_id"], "the marker leads the view")

    // The live query is a fresh fetch, in its own server and in a writer.
    XCTAssertEqual(try c.call("query.fetch", Self.view)["objects"]?.arrayValue, list, "the followed list is not a fresh fetch")
    XCTAssertEqual(try b.call("query.fetch", Self.view)["objects"]?.arrayValue, list, "another server fetches something else")
    XCTAssertEqual(problems, [])
    // (How many commits each notification folds depends on scheduling: only its end is fixed.)
    XCTAssertGreaterThan(notifications, 0, "the observer was told nothing")

    // No increment lost: the counter counts exactly the updates that succeeded.
    let increments = writers.map(\.increments).reduce(0, +)
    let final = try a.call("objects.get", ["id": counter, "withVersion": true])
    XCTAssertEqual(final["value"], .int(Int64(increments)), "increments were lost")
    XCTAssertEqual(final["_version"], .int(Int64(increments + 1)))
    XCTAssertGreaterThan(increments, 10)
    for s in [a, b, c] {
      s.closeInput()
      XCTAssertEqual(s.waitForExit(), 0, s.stderr)
    }
    print(
      "several servers (\(TestEngine.current)): \(Self.rounds) rounds, \(notifications) notifications, \(list.count) objects in the view, "
        + "\(increments) increments with \(writers.map(\.conflicts).reduce(0, +)) conflicts and \(writers.map(\.busy).reduce(0, +)) busy retried"
    )
  }

  /// Sends the writer's next request: the counter's next step every third round (a read,
  /// or an update of what was read, with `ifVersion`), a random save of its own tasks
  /// otherwise.
  private func send(_ w: inout Writer, counter: JSONValue, round: Int, rng: inout FuzzTests.SeededRandom) -> (JSONValue, Writer.Kind) {
    if round % 3 == 0 || w.read != nil {
      if let read = w.read {
        let id = w.server.sendRequest(
          "objects.update", ["id": counter, "values": ["value": .int(read.value + 1)], "ifVersion": .int(read.version)])
        return (id, .updateCounter)
      }
      return (w.server.sendRequest("objects.get", ["id": counter, "withVersion": true]), .readCounter)
    }
    var changes: [JSONValue] = []
    var refs: [String: Int] = [:]
    var targets = w.tasks
    for _ in 0..<Int.random(in: 1...4, using: &rng) {
      let roll = Int.random(in: 0..<10, using: &rng)
      let rank = JSONValue.int(.random(in: 0..<6, using: &rng))
      if roll < 4 || targets.isEmpty {
        let ref = "$\(w.name)\(refs.count)"
        refs[ref] = refs.count
        let title = JSONValue.string("\(w.name) \(Int.random(in: 0..<50, using: &rng))")
        changes.append([
          "op": "insert", "entity": "Task", "ref": .string(ref), "values": ["title": title, "rank": rank, "done": .bool(roll == 0)],
        ])
      } else if roll < 8 {
        changes.append([
          "op": "update", "id": .string(targets.randomElement(using: &rng)!), "values": ["rank": rank, "done": .bool(roll == 7)],
        ])
      } else {
        let victim = targets.randomElement(using: &rng)!
        targets.removeAll { $0 == victim }
        changes.append(["op": "delete", "id": .string(victim)])
      }
    }
    w.tasks = targets
    return (w.server.sendRequest("context.save", ["changes": .array(changes)]), .save(refs))
  }

  /// Reads the reply to the writer's request in flight and takes it into account.
  private func settle(_ w: inout Writer, problems: inout [String]) throws {
    guard let (id, kind) = w.pending else { return }
    w.pending = nil
    let reply = try XCTUnwrap(try w.server.readReply(timeout: 30), "writer \(w.name): no reply; \(w.server.stderr)")
    guard reply["id"] == id else { return problems.append("writer \(w.name): reply \(reply) to another request than \(id)") }
    if let result = reply["result"] {
      switch kind {
      case .save(let refs):
        w.tasks += refs.keys.sorted().compactMap { result["ids"]?[$0]?.stringValue }
      case .readCounter:
        guard let value = result["value"]?.intValue, let version = result["_version"]?.intValue else {
          return problems.append("writer \(w.name): counter read \(result)")
        }
        w.read = (value, version)
      case .updateCounter:
        if result["_version"]?.intValue != (w.read?.version ?? 0) + 1 { problems.append("writer \(w.name): update returned \(result)") }
        w.read = nil
        w.increments += 1
      }
      return
    }
    // Only the counter's steps may fail, and only by losing the race: read again.
    switch (kind, reply.errorCode) {
    case (.updateCounter, -32008): w.conflicts += 1
    case (.updateCounter, -32009), (.readCounter, -32009): w.busy += 1
    default: return problems.append("writer \(w.name): \(reply)")
    }
    w.read = nil
  }
}
