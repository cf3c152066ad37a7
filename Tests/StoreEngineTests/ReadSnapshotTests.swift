import JSONCore
import XCTest

@testable import StoreEngine

/// A read request runs all its statements on one snapshot: a commit made by another
/// connection between two of them (`afterObjectRead`, run after each object read by id)
/// is seen by none of them, and an object's `_version` always matches its values.
final class ReadSnapshotTests: XCTestCase {
  private let counterSchema = schema(
    entity("Counter", [attr("value", "int64", default: 0)], relationships: [rel("peer", "Counter", optional: true)]))

  /// Two stores (two connections) on one file, and two counters.
  private func stores() throws -> (reader: Store, writer: Store, a: String, b: String) {
    let path = temporaryPath(self)
    let reader = try Store(path: path)
    _ = try reader.define(counterSchema)
    let writer = try Store(path: path)
    let a = try reader.add("Counter")
    let b = try reader.add("Counter", ["peer": .string(a)])
    addTeardownBlock {
      reader.close()
      writer.close()
    }
    return (reader, writer, a, b)
  }

  /// One increment of `id` by the other connection, committed.
  private func increment(_ store: Store, _ id: String) throws {
    guard case .int(let v)? = try store.get(id: id)["value"] else { return XCTFail("no value in \(id)") }
    _ = try store.update(id: id, values: ["value": .int(v + 1)])
  }

  /// `increment` from a hook, which cannot throw.
  private func commitIncrement(_ store: Store, _ id: String) {
    do { try increment(store, id) } catch { XCTFail("the concurrent commit failed: \(error)") }
  }

  private func pair(_ o: JSONObject) -> [JSONValue?] { [o["value"], o["_version"]] }

  func testValueAndVersionComeFromOneSnapshot() throws {
    let (reader, writer, a, _) = try stores()
    // A fresh object is at version 1 with value 0: value == version - 1 in every state.
    reader.afterObjectRead = {
      reader.afterObjectRead = nil
      self.commitIncrement(writer, a)
    }
    let first = try reader.get(id: a, withVersion: true)
    XCTAssertEqual(pair(first), [.int(0), .int(1)], "the state before the concurrent commit, value and version together")
    XCTAssertEqual(pair(try reader.get(id: a, withVersion: true)), [.int(1), .int(2)], "the next read sees the commit")
  }

  func testSeveralObjectsComeFromOneSnapshot() throws {
    let (reader, writer, a, b) = try stores()
    // After the first object is read, the other connection commits a change to both.
    reader.afterObjectRead = {
      reader.afterObjectRead = nil
      self.commitIncrement(writer, a)
      self.commitIncrement(writer, b)
    }
    let objects = try reader.get(ids: [a, b], withVersion: true)
    XCTAssertEqual(objects.map(pair), [[.int(0), .int(1)], [.int(0), .int(1)]], "both as they were when the request began")
    XCTAssertEqual(try reader.get(ids: [a, b], withVersion: true).map(pair), [[.int(1), .int(2)], [.int(1), .int(2)]])
  }

  func testIncludedObjectsComeFromTheSameSnapshot() throws {
    let (reader, writer, a, b) = try stores()
    reader.afterObjectRead = {
      reader.afterObjectRead = nil
      self.commitIncrement(writer, a)
    }
    let o = try reader.get(id: b, include: ["peer"])
    guard case .object(let peer)? = o["peer"] else { return XCTFail("peer not expanded: \(o)") }
    XCTAssertEqual(peer["value"], .int(0), "the related object read by the second statement as of the first")
    XCTAssertEqual(try reader.get(id: a)["value"], .int(1))
  }

  func testReadsTakeNoWriteLock() throws {
    let (reader, writer, a, _) = try stores()
    // The other connection commits while the read request is in the middle of its work:
    // with a write lock held by the reader this would fail with `busy`.
    var committed = false
    reader.afterObjectRead = {
      reader.afterObjectRead = nil
      self.commitIncrement(writer, a)
      committed = true
    }
    _ = try reader.get(ids: [a], include: ["peer"])
    XCTAssertTrue(committed)
    XCTAssertTrue(reader.connection.isAutocommit, "the snapshot is closed after the request")
  }

  func testInsideAClientTransactionTheTransactionIsTheSnapshot() throws {
    let (reader, _, a, _) = try stores()
    _ = try reader.begin()
    _ = try reader.update(id: a, values: ["value": .int(5)])
    XCTAssertEqual(pair(try reader.get(id: a, withVersion: true)), [.int(5), .int(2)], "the transaction's own change")
    _ = try reader.rollback()
    XCTAssertEqual(pair(try reader.get(id: a, withVersion: true)), [.int(0), .int(1)])
  }

  func testUpdateWithIfVersionReturnsTheNewVersion() throws {
    let (reader, writer, a, _) = try stores()
    let updated = try reader.update(id: a, values: ["value": .int(1)], ifVersion: 1)
    XCTAssertEqual(pair(updated), [.int(1), .int(2)])
    XCTAssertThrowsError(try writer.update(id: a, values: ["value": .int(1)], ifVersion: 1)) { e in
      XCTAssertEqual((e as? StoreError)?.kind, .conflict)
    }
    XCTAssertEqual(pair(try writer.get(id: a, withVersion: true)), [.int(1), .int(2)], "the refused update changed nothing")
  }

  /// Each request follows another connection's schema change in its own snapshot or write
  /// transaction; a write transaction reads the schema cookie only when something was
  /// committed since it was last read (the WAL index header tells).
  func testSchemaChangesAreFollowedInTheRequestsOwnSnapshotOrTransaction() throws {
    let (reader, writer, a, _) = try stores()
    // The first update of a Counter gives its table `_opt`: a schema change of its own.
    try increment(writer, a)
    XCTAssertEqual(try reader.get(id: a)["value"], 1, "read after the cookie, in the same snapshot")
    _ = try reader.update(id: a, values: ["value": 4])  // (which sees `_opt` once, and stops asking)
    _ = try reader.get(id: a)
    // Nothing committed since that read looked: the write does not read the cookie.
    var statements = reader.connection.statementsRun
    _ = try reader.update(id: a, values: ["value": 5])
    let quiet = reader.connection.statementsRun - statements
    // Another connection commits: the same write reads the cookie once, under the write lock.
    _ = try reader.get(id: a)
    try increment(writer, a)
    statements = reader.connection.statementsRun
    _ = try reader.update(id: a, values: ["value": 7])
    XCTAssertEqual(
      reader.connection.statementsRun - statements, quiet + 1, "a commit by another connection makes the write read the cookie")

    let wider = schema(
      entity(
        "Counter", [attr("value", "int64", default: 0), attr("note", "string", optional: true)],
        relationships: [rel("peer", "Counter", optional: true)]),
      version: "2")
    _ = try writer.define(wider)
    XCTAssertEqual(try reader.get(id: a)["note"], .null, "the read follows the schema the other connection defined")
    XCTAssertEqual(reader.schema?.version, "2")
    let third = schema(
      entity(
        "Counter", [attr("value", "int64", default: 3), attr("note", "string", default: "n")],
        relationships: [rel("peer", "Counter", optional: true)]),
      version: "3")
    _ = try writer.define(third)
    let inserted = try reader.insert(entity: "Counter", values: [:])
    XCTAssertEqual([inserted["value"], inserted["note"]], [3, "n"], "the write follows it, in its own transaction")
    XCTAssertEqual(reader.schema?.version, "3")
  }
}
