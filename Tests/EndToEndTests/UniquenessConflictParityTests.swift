import Foundation
import JSONCore
import TestSupport
import XCTest

/// A uniqueness that a new schema adds and the stored objects break is refused with the
/// groups of objects that share a value, listed alike on both engines (`make
/// swift-test-postgresql` runs this on PostgreSQL): each group by key, the groups by
/// value, and objects whose value is nil in none (nil values never conflict). The
/// differential fuzzer found a group in another order on PostgreSQL (its rows as last
/// written, its groups as hashed); SQLite listed the objects without a value as a group.
final class UniquenessConflictParityTests: XCTestCase {
  func testTheConflictsAreListedByValueThenKeyWithoutNils() throws {
    let s = try ServerProcess()
    defer {
      s.closeInput()
      _ = s.waitForExit()
    }
    func schema(unique: Bool) -> JSONValue {
      [
        "version": unique ? "2" : "1",
        "entities": [
          ["name": "Author", "attributes": [["name": "u", "type": "string", "optional": true, "unique": .bool(unique)]]],
          ["name": "Poet", "parent": "Author", "attributes": [["name": "n", "type": "int", "optional": true]]],
        ],
      ]
    }
    _ = try s.call("model.define", ["schema": schema(unique: false)])
    for (entity, u) in [("Author", "b"), ("Poet", "a"), ("Author", "b"), ("Author", nil), ("Author", nil), ("Author", "a"), ("Poet", "c")] {
      _ = try s.call("objects.insert", ["entity": .string(entity), "values": ["u": u.map { .string($0) } ?? .null]])
    }
    // Written again: last in its table on PostgreSQL.
    _ = try s.call("objects.update", ["id": "Author/1", "values": ["u": "b"]])
    let e = try s.callFailing("model.define", ["schema": schema(unique: true)])
    XCTAssertEqual(e["data"]?["conflicts"], [["Poet/2", "Author/6"], ["Author/1", "Author/3"]], "\(e)")
    XCTAssertEqual(
      e["message"], "the uniqueness of (u) for 'Author' does not hold for the stored objects: 2 groups of objects share a value")
  }

  /// A required attribute's default filled into several objects breaks a uniqueness it is
  /// in: the same refusal, with the objects that would share the value (the fuzzer's case:
  /// the index refused the fill itself, with the engine's own message, "UNIQUE constraint
  /// failed: Book.l2" on SQLite, "duplicate key value violates ..." on PostgreSQL).
  func testADefaultThatBreaksAUniquenessIsReportedWithItsObjects() throws {
    let s = try ServerProcess()
    defer {
      s.closeInput()
      _ = s.waitForExit()
    }
    func schema(required: Bool) -> JSONValue {
      let u: JSONValue =
        required
        ? ["name": "u", "type": "int64", "optional": false, "unique": true, "default": 1]
        : ["name": "u", "type": "int64", "optional": true, "unique": true]
      return [
        "version": required ? "2" : "1",
        "entities": [["name": "Book", "attributes": [["name": "t", "type": "string", "optional": true], u]]],
      ]
    }
    _ = try s.call("model.define", ["schema": schema(required: false)])
    for u: JSONValue in [.null, 1, .null, 2] { _ = try s.call("objects.insert", ["entity": "Book", "values": ["u": u]]) }
    let e = try s.callFailing("model.define", ["schema": schema(required: true)])
    XCTAssertEqual(e["data"]?["conflicts"], [["Book/1", "Book/2", "Book/3"]], "\(e)")
    XCTAssertEqual(e["message"], "the uniqueness of (u) for 'Book' does not hold for the stored objects: 1 group of objects share a value")
    // Nothing was changed.
    XCTAssertEqual(try s.call("query.count", ["entity": "Book", "where": "u == nil"])["count"], 2)
  }
}
