import Foundation
import JSONCore
import TestSupport
import XCTest

/// Live queries checked against an independent model of the store: one process is the
/// only writer, so the state at history token T is its first T commits applied. Every
/// `query/changed` another process sends, applied to the list it maintains, must give
/// exactly the model's fetch at the notification's token (sort ties broken by `_pk`, as
/// protocol.md says), with complete objects and, when sectioned, the sections in full.
///
/// `MODELSTORE_LIVE_STRESS_COMMITS` sets the commits per seed (default 150; try 3000).
final class LiveQueryStressTests: XCTestCase {
  static let model = schema(
    entity("Task", [attr("title", "string"), attr("rank", "int", default: 0), attr("done", "bool", default: false)]))

  static var commits: Int { ProcessInfo.processInfo.environment["MODELSTORE_LIVE_STRESS_COMMITS"].flatMap(Int.init) ?? 150 }

  struct Row: Equatable {
    var title: String
    var rank: Int64
    var done: Bool
  }
  /// Objects by `_pk`.
  typealias State = [Int64: Row]

  /// One subscription: its params and the model's answer.
  struct View: Sendable {
    var params: JSONObject
    var rows: @Sendable (State) -> [(Int64, Row)]
    var sectioned = false
  }

  static let select: JSONValue = ["title", "rank", "done"]
  static let views: [View] = [
    View(params: ["entity": "Task", "where": "done == NO", "sort": ["rank", "title"], "select": select]) { s in
      s.filter { !$0.value.done }.sorted { ($0.value.rank, $0.value.title, $0.key) < ($1.value.rank, $1.value.title, $1.key) }
    },
    // Ties on every rank: broken by _pk.
    View(params: ["entity": "Task", "sort": ["rank"], "select": select]) { s in
      s.sorted { ($0.value.rank, $0.key) < ($1.value.rank, $1.key) }
    },
    // The sort does not start with the section key: the fetch puts the section key first.
    View(
      params: ["entity": "Task", "sort": ["title"], "sectionBy": "rank", "select": select],
      rows: { s in s.sorted { ($0.value.rank, $0.value.title, $0.key) < ($1.value.rank, $1.value.title, $1.key) } }, sectioned: true),
    View(params: ["entity": "Task", "where": "rank >= 2", "sort": [["key": "title", "ascending": false]], "select": select]) { s in
      s.filter { $0.value.rank >= 2 }.sorted { a, b in a.value.title != b.value.title ? a.value.title > b.value.title : a.key < b.key }
    },
  ]

  typealias SeededRandom = FuzzTests.SeededRandom

  /// One change of a batch; `target` is `Task/n` or a `$ref` of the batch.
  enum Op {
    case insert(ref: String, Row)
    case update(target: String, rank: Int64?, done: Bool?)
    case delete(target: String)

    var json: JSONValue {
      switch self {
      case .insert(let ref, let r):
        return [
          "op": "insert", "entity": "Task", "ref": .string(ref),
          "values": ["title": .string(r.title), "rank": .int(r.rank), "done": .bool(r.done)],
        ]
      case .update(let t, let rank, let done):
        var v: JSONObject = [:]
        if let rank { v.append("rank", .int(rank)) }
        if let done { v.append("done", .bool(done)) }
        return ["op": "update", "id": .string(t), "values": .object(v)]
      case .delete(let t): return ["op": "delete", "id": .string(t)]
      }
    }
  }

  /// A batch over the objects known to live (`live`), none deleted by a batch in flight.
  /// Its first insert always survives it, so every batch is one history transaction.
  static func batch(_ rng: inout SeededRandom, live: [Int64], ties: Bool) -> [Op] {
    func row() -> Row {
      Row(
        title: "t\(Int.random(in: 0..<(ties ? 3 : 40), using: &rng))", rank: .random(in: 0..<5, using: &rng),
        done: Int.random(in: 0..<5, using: &rng) == 0)
    }
    var ops: [Op] = [.insert(ref: "$n0", row())]
    var targets = live.map { "Task/\($0)" }
    var refs = 0
    var deletable = targets
    for _ in 0..<Int.random(in: 0...5, using: &rng) {
      let roll = Int.random(in: 0..<10, using: &rng)
      if roll < 2 || targets.isEmpty {
        refs += 1
        ops.append(.insert(ref: "$n\(refs)", row()))
        targets.append("$n\(refs)")
        deletable.append("$n\(refs)")
      } else if roll < 6 {
        // Rank updates move rows; one object is often hit twice (several ops on one object).
        let t = Int.random(in: 0..<4, using: &rng) == 0 ? targets.last! : targets.randomElement(using: &rng)!
        ops.append(.update(target: t, rank: .random(in: 0..<5, using: &rng), done: nil))
      } else if roll < 8 {
        ops.append(.update(target: targets.randomElement(using: &rng)!, rank: nil, done: .random(using: &rng)))
      } else if let victim = deletable.randomElement(using: &rng) {
        ops.append(.delete(target: victim))
        targets.removeAll { $0 == victim }
        deletable.removeAll { $0 == victim }
      }
    }
    return ops
  }

  static func pk(_ id: String) -> Int64? { id.hasPrefix("Task/") ? Int64(id.dropFirst(5)) : nil }

  /// Applies a committed batch (its refs resolved by the reply's `ids`) to the state.
  static func apply(_ ops: [Op], ids: JSONValue?, to state: inout State) throws {
    func resolve(_ t: String) throws -> Int64 {
      let id = t.hasPrefix("$") ? ids?[t]?.stringValue : t
      return try XCTUnwrap(id.flatMap(pk), "unresolved \(t)")
    }
    for op in ops {
      switch op {
      case .insert(let ref, let r): state[try resolve(ref)] = r
      case .update(let t, let rank, let done):
        let k = try resolve(t)
        if let rank { state[k]!.rank = rank }
        if let done { state[k]!.done = done }
      case .delete(let t): state[try resolve(t)] = nil
      }
    }
  }

  /// A notification or first result: the subscription, its token and payload.
  struct Received {
    var subscription: String
    var token: Int64
    var params: JSONValue
  }

  /// Reads `server`'s output up to the reply to `id`, keeping notifications.
  static func reply(_ server: ServerProcess, _ id: JSONValue, into received: inout [Received]) throws -> JSONValue {
    let deadline = Date().addingTimeInterval(120)
    while let m = try server.readMessage(timeout: max(0.01, deadline.timeIntervalSinceNow)) {
      if m["method"] == "query/changed" {
        let p = m["params"]!
        received.append(Received(subscription: p["subscription"]?.stringValue ?? "?", token: p["token"]?.intValue ?? -1, params: p))
        continue
      }
      guard m["id"] == id else { throw Failure("a reply to \(m["id"] ?? .null) while waiting for \(id)") }
      guard let result = m["result"] else { throw Failure("request \(id) failed: \(m)") }
      return result
    }
    throw Failure("no reply to \(id) within 120 s: \(server.stderr)")
  }

  struct Failure: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
  }

  /// The list's objects as rows; nil (and a problem) for an incomplete object.
  static func rows(_ list: [JSONValue]) -> [(Int64, Row)]? {
    var out: [(Int64, Row)] = []
    for o in list {
      guard let id = o["_id"]?.stringValue.flatMap(pk), let title = o["title"]?.stringValue, let rank = o["rank"]?.intValue,
        case .bool(let done)? = o["done"]
      else { return nil }
      out.append((id, Row(title: title, rank: rank, done: done)))
    }
    return out
  }

  static func sections(_ rows: [(Int64, Row)]) -> JSONValue {
    var out: [(Int64, Int, Int)] = []
    for (i, r) in rows.enumerated() {
      if let last = out.last, last.0 == r.1.rank { out[out.count - 1].2 += 1 } else { out.append((r.1.rank, i, 1)) }
    }
    return .array(out.map { ["key": .int($0.0), "count": .int(Int64($0.2)), "range": [.int(Int64($0.1)), .int(Int64($0.1 + $0.2))]] })
  }

  /// One run: `window` saves in flight at once (1: one at a time); the observer fetches
  /// every `fetchEvery` batches and otherwise idles. Returns the problems found.
  func run(seed: UInt64, window: Int, fetchEvery: Int, ties: Bool) throws -> (problems: [String], notifications: Int) {
    let dir = try TemporaryDirectory()
    let path = try dir.store("stress.store")
    let writer = try ServerProcess(arguments: ["serve", "--store", path])
    _ = try writer.call("model.define", ["schema": Self.model])
    let observer = try ServerProcess(arguments: ["serve", "--store", path])
    var rng = SeededRandom(state: seed)
    var received: [Received] = []
    var firsts: [(view: Int, subscription: String, token: Int64, objects: [JSONValue], sections: JSONValue?)] = []
    func observe(_ v: Int) throws {
      let r = try Self.reply(observer, observer.sendRequest("query.observe", Self.views[v].params), into: &received)
      firsts.append((v, r["subscription"]?.stringValue ?? "?", r["token"]?.intValue ?? -1, r["objects"]?.arrayValue ?? [], r["sections"]))
    }
    try observe(0)
    try observe(1)

    let total = Self.commits
    var states: [State] = [[:]]
    var inFlight: [(id: JSONValue, ops: [Op], deletes: Set<Int64>)] = []
    var pendingDeletes: Set<Int64> = []
    func settleOne() throws {
      let f = inFlight.removeFirst()
      guard let r = try writer.readReply(timeout: 120) else { throw Failure("no reply from the writer: \(writer.stderr)") }
      guard r["id"] == f.id, let result = r["result"] else { throw Failure("save \(f.id) failed: \(r)") }
      var s = states.last!
      try Self.apply(f.ops, ids: result["ids"], to: &s)
      states.append(s)
      pendingDeletes.subtract(f.deletes)
    }
    for n in 0..<total {
      if inFlight.count >= window { try settleOne() }
      let live = states.last!.keys.filter { !pendingDeletes.contains($0) }.sorted()
      let ops = Self.batch(&rng, live: live, ties: ties)
      let deletes = Set(ops.compactMap { op -> Int64? in if case .delete(let t) = op { return Self.pk(t) } else { return nil } })
      pendingDeletes.formUnion(deletes)
      inFlight.append((writer.sendRequest("context.save", ["changes": .array(ops.map(\.json))]), ops, deletes))
      if n == total / 3 {
        try observe(2)
        try observe(3)
      }
      if n % fetchEvery == fetchEvery - 1 {
        _ = try Self.reply(observer, observer.sendRequest("query.fetch", Self.views[n % 4].params), into: &received)
      }
    }
    while !inFlight.isEmpty { try settleOne() }

    // The writer's history: one transaction per batch, tokens 1...total in commit order.
    let history = try writer.call("history.fetch", timeout: 60)
    let tokens = history["transactions"]?.arrayValue?.compactMap { $0["token"]?.intValue } ?? []
    guard tokens == Array(1...Int64(total)) else { throw Failure("history tokens are not 1...\(total): \(tokens.prefix(10))...") }
    // Every commit is visible now: the poll after the first request reads them all, and
    // its notifications come before the second reply.
    for _ in 0..<2 { _ = try Self.reply(observer, observer.sendRequest("store.info"), into: &received) }

    var problems: [String] = []
    for first in firsts {
      let view = Self.views[first.view]
      func expect(_ list: [JSONValue], _ sections: JSONValue?, at token: Int64, _ what: String) {
        guard token >= 0, token <= Int64(total) else { return problems.append("\(what): token \(token) outside 0...\(total)") }
        guard let got = Self.rows(list) else { return problems.append("\(what): an incomplete object in \(list)") }
        let want = view.rows(states[Int(token)])
        if got.map(\.0) != want.map(\.0) || got.map(\.1) != want.map(\.1) {
          problems.append("\(what) at token \(token): \(got.map(\.0)) != expected \(want.map(\.0))")
        } else if view.sectioned, sections != Self.sections(want) {
          problems.append("\(what) at token \(token): sections \(sections ?? .null) != expected \(Self.sections(want))")
        }
      }
      var list = first.objects
      var token = first.token
      expect(list, first.sections, at: token, "view \(first.view) first result")
      for r in received where r.subscription == first.subscription {
        if r.params["error"] != nil { problems.append("view \(first.view): ended with \(r.params)") }
        if r.token <= token { problems.append("view \(first.view): token \(r.token) after \(token)") }
        token = r.token
        list = LiveQueryProcessTests.apply(r.params, to: list)
        expect(list, r.params["sections"], at: token, "view \(first.view) notification")
      }
      expect(list, view.sectioned ? Self.sections(view.rows(states[total])) : nil, at: Int64(total), "view \(first.view) at the end")
      // And the server agrees: a fresh fetch is the list, object for object.
      let fresh = try Self.reply(observer, observer.sendRequest("query.fetch", view.params), into: &received)
      if fresh["objects"]?.arrayValue != list { problems.append("view \(first.view): the list is not a fresh fetch at the end") }
    }
    for p in [writer, observer] {
      p.closeInput()
      XCTAssertEqual(p.waitForExit(timeout: 30), 0)
    }
    return (problems, received.count)
  }

  private func runSeeds(_ seeds: [UInt64], window: Int, fetchEvery: Int, ties: Bool) throws {
    for seed in seeds {
      let (problems, notifications) = try run(seed: seed, window: window, fetchEvery: fetchEvery, ties: ties)
      XCTAssertEqual(problems.count, 0, "seed \(seed): \(problems.count) problems, first: \(problems.prefix(3))")
      XCTAssertGreaterThan(notifications, 0, "seed \(seed): nothing was observed")
      print(
        "live stress seed \(seed) (window \(window), ties \(ties)): \(Self.commits) commits, \(notifications) notifications, \(problems.count) problems"
      )
    }
  }

  /// Burst: 64 saves in flight while the observer idles, fetching now and then.
  func testBurstOfPipelinedSavesFollowsTheModelAtEveryToken() throws {
    try runSeeds([1, 2, 3], window: 64, fetchEvery: 37, ties: false)
  }

  /// Titles from 3 values and ranks from 5: most sort keys tie, the `_pk` decides.
  func testSortTiesFollowTheModelAtEveryToken() throws {
    try runSeeds([4, 5, 6], window: 8, fetchEvery: 5, ties: true)
  }
}
