import Foundation
import JSONCore
import TestSupport
import XCTest

/// Optimistic locking under load: `processes` servers on one file store each add 1 to one
/// counter `increments` times with the documented recipe (`objects.get {withVersion}`,
/// then `objects.update {ifVersion}`, again from the read on `conflict` or `busy`). No
/// increment may be lost, every successful update gets its own `_version`, and no read
/// shows a value and a version from two different states. `make bench` runs the same for
/// minutes (Benchmarks/counters.py).
final class VersionedCounterTests: XCTestCase {
  private var dir: TemporaryDirectory!
  override func setUpWithError() throws { dir = try TemporaryDirectory() }
  override func tearDown() { dir.remove() }

  private let processes = 4
  private static let increments = 200

  /// What one process did.
  private struct Tally {
    var versions: [Int64] = []
    var conflicts = 0
    var busy = 0
    var problems: [String] = []
  }

  /// The workers' tallies, filled from their threads.
  private final class Tallies: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [Tally]
    init(count: Int) { list = Array(repeating: Tally(), count: count) }
    func set(_ i: Int, _ t: Tally) {
      lock.lock()
      list[i] = t
      lock.unlock()
    }
    var all: [Tally] {
      lock.lock()
      defer { lock.unlock() }
      return list
    }
  }

  func testConcurrentIncrementsWithIfVersionLoseNothing() throws {
    let path = try dir.store("counter.store")
    let setup = try ServerProcess(arguments: ["serve", "--store", path])
    _ = try setup.call("model.define", ["schema": schema(entity("Counter", [attr("value", "int64", default: 0)]))])
    guard case .string(let id)? = try setup.call("objects.insert", ["entity": "Counter"])["_id"] else { return XCTFail("no _id") }
    // A new object is at version 1 with value 0, and every committed increment raises both
    // by one (nothing else writes it): every state has value == version - 1.
    let created = try setup.call("objects.get", ["id": .string(id), "withVersion": true])
    XCTAssertEqual(created["value"], .int(0))
    XCTAssertEqual(created["_version"], .int(1))
    setup.closeInput()
    XCTAssertEqual(setup.waitForExit(), 0)

    let servers = try (0..<processes).map { _ in try ServerProcess(arguments: ["serve", "--store", path]) }
    let tallies = Tallies(count: processes)
    let group = DispatchGroup()
    for (i, server) in servers.enumerated() {
      group.enter()
      Thread.detachNewThread {
        tallies.set(i, Self.run(server, id))
        group.leave()
      }
    }
    // Each worker ends by itself (every call has a 10 s reply timeout); the bound only
    // keeps a hung server from hanging the suite.
    XCTAssertEqual(group.wait(timeout: .now() + 300), .success, "the workers did not finish")
    let all = tallies.all

    for (i, t) in all.enumerated() {
      XCTAssertEqual(t.problems, [], "process \(i)")
      XCTAssertEqual(t.versions.count, Self.increments, "process \(i) committed \(t.versions.count) increments")
    }
    let versions = all.flatMap(\.versions)
    XCTAssertEqual(Set(versions).count, versions.count, "two updates returned the same _version")
    XCTAssertEqual(
      versions.sorted(), Array(2...Int64(1 + processes * Self.increments)),
      "the versions returned are not 2...\(1 + processes * Self.increments)")
    let final = try servers[0].call("objects.get", ["id": .string(id), "withVersion": true])
    XCTAssertEqual(final["value"], .int(Int64(processes * Self.increments)), "increments were lost")
    XCTAssertEqual(final["_version"], .int(Int64(processes * Self.increments + 1)))
    for s in servers {
      s.closeInput()
      XCTAssertEqual(s.waitForExit(), 0, s.stderr)
    }
    print(
      "versioned counter: \(processes) processes x \(Self.increments) increments, "
        + "\(all.map(\.conflicts).reduce(0, +)) conflicts and \(all.map(\.busy).reduce(0, +)) busy retried")
  }

  /// One worker's increments: read with the version, write with `ifVersion`, retry.
  private static func run(_ server: ServerProcess, _ id: String) -> Tally {
    var t = Tally()
    do {
      while t.versions.count < increments {
        let read = try server.request("objects.get", ["id": .string(id), "withVersion": true])
        guard case .object(let o)? = read["result"] else {
          if retryable(read, &t) { continue }
          return t
        }
        guard case .int(let value)? = o["value"], case .int(let version)? = o["_version"] else {
          t.problems.append("read without value or _version: \(o)")
          return t
        }
        if value != version - 1 { t.problems.append("read value \(value) with version \(version)") }
        let reply = try server.request(
          "objects.update", ["id": .string(id), "values": ["value": .int(value + 1)], "ifVersion": .int(version)])
        guard case .object(let updated)? = reply["result"] else {
          if retryable(reply, &t) { continue }
          return t
        }
        guard case .int(let newVersion)? = updated["_version"], updated["value"] == .int(value + 1), newVersion == version + 1 else {
          t.problems.append("update from (\(value), \(version)) returned \(updated)")
          return t
        }
        t.versions.append(newVersion)
      }
    } catch {
      t.problems.append("\(error)")
    }
    return t
  }

  /// Counts a `conflict` or `busy` reply, to be retried from the read; anything else is a problem.
  private static func retryable(_ reply: JSONObject, _ t: inout Tally) -> Bool {
    guard case .object(let e)? = reply["error"], case .int(let code)? = e["code"] else {
      t.problems.append("neither result nor error: \(reply)")
      return false
    }
    switch code {
    case -32008: t.conflicts += 1
    case -32009: t.busy += 1
    default:
      t.problems.append("failed: \(e)")
      return false
    }
    return true
  }
}
