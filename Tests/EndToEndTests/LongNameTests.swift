import Foundation
import JSONCore
import TestSupport
import XCTest

/// Names longer than PostgreSQL's 63-byte identifiers: entities, attributes and
/// relationships alike in their first 63 bytes, and the names the engine derives from them
/// (a join table `_J_Entity.relationship`, index names, the index of a hierarchy's `_ent`)
/// stay distinct and exact on both engines (on PostgreSQL the connection writes a short
/// form of each: protocol.md, "PostgreSQL engine: what differs"), through queries,
/// uniqueness, a migration, `store.check`, and `modelstore copy` both ways.
final class LongNameTests: XCTestCase {
  private var dir: TemporaryDirectory!
  override func setUpWithError() throws { dir = try TemporaryDirectory("modelstore-long-names") }
  override func tearDown() { dir?.remove() }

  static let stem = String(repeating: "x", count: 60)
  /// 67 bytes each, the same first 66.
  static let first = "Entity\(stem)A"
  static let second = "Entity\(stem)B"
  /// Sub-entity of `first` (its hierarchy table has an `_ent` index named after `first`).
  static let child = "Child\(stem)C"
  /// 72 to 74 bytes, the same first 69.
  static let one = "attribute\(stem)One"
  static let two = "attribute\(stem)Two"
  static let three = "attribute\(stem)Three"
  static let links = "linked\(stem)Seconds"
  static let backLinks = "linked\(stem)Firsts"
  static let owner = "owner\(stem)Entity"
  static let owned = "owner\(stem)Owned"

  static func v1(extra: Bool = false) -> JSONValue {
    schema(
      entity(
        first, [attr(one, "string", unique: true), attr(two, "int", indexed: true)],
        relationships: [
          rel(links, second, inverse: backLinks, toMany: true), rel(owned, second, inverse: owner, toMany: true),
        ]),
      entity(child, parent: first, [attr("note", "string", optional: true)]),
      entity(
        second, [attr(one, "string"), attr(two, "int")] + (extra ? [attr(three, "string", default: "new", indexed: true)] : []),
        relationships: [
          rel(backLinks, first, inverse: links, toMany: true), rel(owner, first, inverse: owned, optional: true),
        ], indexes: [[one, two]]),
      version: extra ? "2" : "1")
  }

  /// Builds the store at `path` through a server and checks what it answers.
  private func build(_ path: String) throws {
    let s = try ServerProcess(arguments: ["serve", "--store", path])
    _ = try s.call("model.define", ["schema": Self.v1()])
    var firsts: [JSONValue] = []
    for i in 0..<4 {
      let e = i == 3 ? Self.child : Self.first
      let o = try s.call("objects.insert", ["entity": .string(e), "values": [Self.one: .string("name \(i)"), Self.two: .int(Int64(i))]])
      firsts.append(o["_id"] ?? .null)
    }
    for i in 0..<3 {
      _ = try s.call(
        "objects.insert",
        [
          "entity": .string(Self.second),
          "values": [
            Self.one: .string("second \(i)"), Self.two: .int(Int64(10 * i)), Self.backLinks: .array(Array(firsts[i...])),
            Self.owner: firsts[0],
          ],
        ])
    }
    // The two attributes alike in their first 63 bytes are two columns.
    let fetched = try s.call(
      "query.fetch",
      ["entity": .string(Self.first), "where": .string("\(Self.two) >= 1 AND \(Self.links).@count > 1"), "sort": [.string(Self.two)]])
    XCTAssertEqual(fetched["objects"]?.arrayValue?.map { $0[Self.one]?.stringValue }, ["name 1", "name 2", "name 3"])
    XCTAssertEqual(
      try s.call("query.count", ["entity": .string(Self.second), "where": .string("\(Self.owner).\(Self.one) == 'name 0'")])["count"],
      3)
    XCTAssertEqual(try s.call("query.count", ["entity": .string(Self.child)])["count"], 1)
    // Uniqueness on the long attribute, not on its neighbour.
    let dup = try s.callFailing("objects.insert", ["entity": .string(Self.first), "values": [Self.one: "name 1", Self.two: 1]])
    XCTAssertEqual(dup["data"]?["kind"]?.stringValue, "constraint", "\(dup)")
    // A migration adds a long indexed column to the entity whose name is alike.
    let migrated = try s.call("migration.apply", ["schemas": [Self.v1(), Self.v1(extra: true)], "backup": false])
    XCTAssertEqual(migrated["stages"]?.arrayValue?.first?["status"], "applied", "\(migrated)")
    XCTAssertEqual(
      try s.call("query.count", ["entity": .string(Self.second), "where": .string("\(Self.three) == 'new'")])["count"], 3)
    XCTAssertEqual(try s.call("query.count", ["entity": .string(Self.first)])["count"], 4, "nothing was lost")
    let check = try s.call("store.check")
    XCTAssertEqual(check["ok"], true, "\(check)")
    s.closeInput()
    XCTAssertEqual(s.waitForExit(), 0, s.stderr)
  }

  private func export(_ store: String) throws -> String {
    let r = try runModelstore(["export", "--store", store])
    XCTAssertEqual(r.status, 0, r.stderr)
    return r.stdout
  }

  func testLongNamesStayDistinctAndCopyBothWays() throws {
    let path = try dir.store("long.store")
    try build(path)
    let before = try export(path)
    if TestEngine.isPostgres {
      // The short form protocol.md gives for this very name.
      let short = "Entityxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx_c1be05e0dccaa561"
      XCTAssertEqual(try dir.sql("long.store", "SELECT count(*) FROM pg_class WHERE relname = '\(short)'"), "1")
    }
    XCTAssertTrue(before.contains(Self.three), before)
    // Into a file and back into the engine under test (a schema on PostgreSQL).
    let file = dir.file("copy.store")
    let out = try runModelstore(["copy", "--from", path, "--to", file, "--history"])
    XCTAssertEqual(out.status, 0, out.stderr)
    let back = try dir.store("back.store")
    let again = try runModelstore(["copy", "--from", file, "--to", back, "--history"])
    XCTAssertEqual(again.status, 0, again.stderr)
    XCTAssertEqual(try export(file), before)
    XCTAssertEqual(try export(back), before)
    let s = try ServerProcess(arguments: ["serve", "--store", back])
    XCTAssertEqual(try s.call("store.check")["ok"], true)
    XCTAssertEqual(try s.call("query.count", ["entity": .string(Self.first), "where": .string("\(Self.links).@count == 3")])["count"], 2)
  }
}
