import JSONCore
import PostgresCore
import SchemaModel
import TestSupport
import XCTest

@testable import StoreEngine

/// A store follows another connection's schema change in each request's own snapshot or
/// write transaction (Store+SchemaFollowing.swift), on a store file and, with
/// MODELSTORE_TEST_PG, on a PostgreSQL schema: B has read version 1, A installs version 2,
/// and B's next request reads or writes by version 2, whatever it is, with no check of its
/// own before it. On PostgreSQL the check costs no round trip of its own: it goes in the
/// round trip that opens the request's transaction or snapshot.
final class SchemaFollowingTests: XCTestCase {
  /// Version 2 renames `title` (`label`), gives `priority` another default, and adds a
  /// required attribute with a default.
  static let v1 = schema(entity("Task", [attr("title", "string", optional: true), attr("priority", "int", default: 1)]), version: "1")
  static let v2 = schema(
    entity(
      "Task",
      [
        attr("label", "string", optional: true, originalName: "title"), attr("priority", "int", default: 5),
        attr("note", "string", default: "n"),
      ]),
    version: "2")
  /// Version 3 changes nothing but a default: no table changes.
  static let v3 = schema(
    entity("Task", [attr("label", "string", optional: true), attr("priority", "int", default: 7), attr("note", "string", default: "n")]),
    version: "3")

  private var schemas: [PostgresTestSchema] = []
  override func tearDown() { schemas.forEach { $0.drop() } }

  /// Where a store for `engine` lives: a file, or a fresh PostgreSQL schema (nil without a
  /// cluster).
  private func location(_ engine: String) throws -> String? {
    guard engine == "postgresql" else { return temporaryPath(self) }
    guard PostgresTestCluster.url != nil else { return nil }
    let s = try PostgresTestSchema("follow")
    schemas.append(s)
    return s.storeURL
  }

  /// Two stores (two connections) on one new store at version 1 with one task, for each
  /// engine available.
  private func eachEngine(_ body: (_ engine: String, _ a: Store, _ b: Store) throws -> Void) throws {
    for engine in ["sqlite", "postgresql"] {
      guard let path = try location(engine) else { continue }
      let a = try Store(path: path)
      _ = try a.define(Self.v1)
      _ = try a.insert(entity: "Task", values: ["title": "first"])
      let b = try Store(path: path)
      XCTAssertEqual(b.schema?.version, "1")
      defer {
        a.close()
        b.close()
      }
      try body(engine, a, b)
    }
  }

  private func roundTrips(_ store: Store, _ body: () throws -> Void) rethrows -> Int? {
    guard let pg = store.connection as? PostgresConnection else {
      try body()
      return nil
    }
    let before = pg.roundTrips
    try body()
    return pg.roundTrips - before
  }

  private func request(_ entity: String, _ predicate: String? = nil) throws -> FetchRequest {
    var r = FetchRequest(entity: entity)
    if let predicate { r.predicate = try PredicateParser.parse(predicate) }
    return r
  }

  func testAReadFollowsAChangeInItsOwnSnapshot() throws {
    try eachEngine { engine, a, b in
      _ = try a.define(Self.v2)
      // The predicate names what version 2 calls the attribute: it fails by version 1.
      let found = try b.fetch(try request("Task", "label == 'first'"))
      XCTAssertEqual(found.map { $0["label"] }, ["first"], engine)
      XCTAssertEqual(found.map { $0["note"] }, ["n"], engine)
      XCTAssertEqual(b.schema?.version, "2", engine)
      // Nothing changed since: one round trip on PostgreSQL, the check in it (once the
      // statements are prepared again after the schema was read again).
      _ = try b.count(try request("Task", "priority == 1"))
      let trips = try roundTrips(b) { XCTAssertEqual(try b.count(try request("Task", "priority == 1")), 1) }
      if engine == "postgresql" { XCTAssertEqual(trips, 1, "a read and its check are one round trip") }
    }
  }

  /// SQLite: a read whose snapshot began before another connection's change, which
  /// commits while the read runs (between two of its statements), answers by the schema of
  /// its snapshot, and the next read by the new one. (On PostgreSQL the change would wait
  /// for the read: a schema change waits for the reads under way.)
  func testAReadAnswersByTheSchemaOfItsSnapshot() throws {
    try eachEngine { engine, a, b in
      guard engine == "sqlite" else { return }
      _ = try b.insert(entity: "Task", values: ["title": "second"])
      b.afterObjectRead = {
        b.afterObjectRead = nil
        do { _ = try a.define(Self.v2) } catch { XCTFail("\(error)") }
      }
      let both = try b.get(ids: ["Task/1", "Task/2"])
      XCTAssertEqual(both.map { $0["title"] }, ["first", "second"], "version 1, the snapshot's")
      XCTAssertEqual(b.schema?.version, "1")
      XCTAssertEqual(try b.get(id: "Task/2")["label"], "second", "the next read follows version 2")
    }
  }

  func testAWriteFollowsAChangeUnderItsWriteLock() throws {
    try eachEngine { engine, a, b in
      _ = try a.define(Self.v2)
      // Valid by version 1 too (no `label`): the first statement carries the check on
      // PostgreSQL, finds version 2, and the insert runs again by it.
      let inserted = try b.insert(entity: "Task", values: [:])
      XCTAssertEqual([inserted["priority"], inserted["note"], inserted["label"]], [5, "n", .null], engine)
      XCTAssertEqual(b.schema?.version, "2", engine)
      _ = try a.define(Self.v3)
      // Only a default changed: no table did, yet the schema is followed.
      let encoded = try b.insertEncoded(entity: "Task", values: ["label": "third"])
      let object = try XCTUnwrap(try JSONParser.parse(String(decoding: encoded.bytes, as: UTF8.self)).objectValue)
      XCTAssertEqual(object["priority"], 7, engine)
      XCTAssertEqual(try a.get(id: try XCTUnwrap(object["_id"]?.stringValue))["priority"], 7, engine)
    }
  }

  /// A write that fails before its first statement failed by the schema held: it is
  /// checked, and runs again by the new schema, which accepts it.
  func testAWriteRefusedByTheSchemaHeldRunsAgainByTheNewOne() throws {
    try eachEngine { engine, a, b in
      _ = try a.define(Self.v2)
      let inserted = try b.insert(entity: "Task", values: ["label": "second"])
      XCTAssertEqual(inserted["label"], "second", engine)
      // And a refusal by the new schema stays a refusal, naming what it names.
      let e = expectStoreError(.validation) { try b.insert(entity: "Task", values: ["title": "old name"]) }
      XCTAssertTrue(e?.message.contains("title") ?? false, "\(engine): \(e?.message ?? "")")
    }
  }

  /// An autocommit insert on PostgreSQL: the opening (with the lock, the check and the
  /// first key), the INSERT, the COMMIT; a read is one; a client transaction's begin one.
  func testRoundTripsOnPostgreSQL() throws {
    guard PostgresTestCluster.url != nil else { throw XCTSkip("MODELSTORE_TEST_PG is unset") }
    try eachEngine { engine, a, b in
      guard engine == "postgresql" else { return }
      _ = try b.insert(entity: "Task", values: ["title": "warm"])  // prepares, and asks the first key at openings from now on
      _ = try b.count(FetchRequest(entity: "Task"))
      let insert = { _ = try b.insertEncoded(entity: "Task", values: [:]) }
      XCTAssertEqual(try roundTrips(b, insert), 3, "the opening with the lock, the check and the first key; the INSERT; the COMMIT")
      XCTAssertEqual(try roundTrips(b) { _ = try b.count(FetchRequest(entity: "Task")) }, 1, "the snapshot's opening, the check, the count")
      XCTAssertEqual(try roundTrips(b) { _ = try b.begin() }, 1, "the transaction, its lock, the check and the first key, at once")
      XCTAssertEqual(try roundTrips(b, insert), 1, "the INSERT, its savepoint queued before it")
      XCTAssertEqual(try roundTrips(b) { _ = try b.commit() }, 1)
      // Another connection's change: the first statement found it, the schema was read
      // again and the insert ran again, by version 2.
      _ = try a.define(Self.v2)
      XCTAssertEqual(try b.insert(entity: "Task", values: [:])["priority"], 5)
      _ = try b.count(FetchRequest(entity: "Task"))  // (its statement prepared again)
      XCTAssertEqual(try roundTrips(b, insert), 3, "and back to three")
    }
  }

  /// A migration planned from the schema goes no further when another connection changed
  /// it between two of its stages: the stage fails before it changes anything.
  func testAMigrationStopsWhenTheSchemaChangedBetweenItsStages() throws {
    try eachEngine { engine, a, b in
      let chain = try [Self.v1, Self.v2, Self.v3].map { try Store.decodeSchema($0, path: ErrorPlace(.schemas)) }
      var hooks = MigrationHooks()
      var defined = false
      hooks.progress = { done, _, _ in
        // Between stage 1 (committed) and stage 2: B installs another version 3.
        guard done == 1, !defined else { return }
        defined = true
        let other = schema(
          entity(
            "Task", [attr("label", "string", optional: true), attr("priority", "int", default: 9), attr("note", "string", default: "n")]),
          version: "3b")
        do { _ = try b.define(other) } catch { XCTFail("\(engine): \(error)") }
      }
      let e = expectStoreError(.schemaMismatch) { try a.migrate(chain: chain, stages: [], options: MigrationOptions(), hooks: hooks) }
      XCTAssertEqual(e?.details["reason"], "schemaChanged", "\(engine): \(e?.message ?? "")")
      XCTAssertEqual(a.schema?.version, "3b", "\(engine): read again once the migration stopped")
      XCTAssertEqual(try a.insert(entity: "Task", values: [:])["priority"], 9, engine)
    }
  }
}
