import Foundation
import JSONCore
import StoreEngine
import TestSupport
import XCTest

/// `Store.discardCreatedStore`: a command that made a PostgreSQL store and then failed
/// takes the schema back, but only one its opening created and nobody wrote to since.
final class PostgresCreatedStoreTests: XCTestCase {
  private var pg: PostgresTestSchema!
  override func setUpWithError() throws { pg = try PostgresTestSchema("created") }
  override func tearDown() { pg?.drop() }

  private func schemaExists() throws -> Bool {
    try PostgresTestCluster.psql("SELECT count(*) FROM pg_namespace WHERE nspname = '\(pg.name)'", url: pg.clusterURL).stdout == "1"
  }

  func testASchemaTheOpeningCreatedIsDroppedWithEverythingInIt() throws {
    let store = try Store(path: pg.storeURL)
    XCTAssertTrue(try schemaExists())
    // A write that was rolled back (a failed import) leaves the store as it was made.
    XCTAssertThrowsError(
      try store.importObjects(.bytes(Array("{\"entity\":\"Nope\",\"id\":\"x\",\"values\":{}}\n".utf8)), mode: .insert))
    XCTAssertTrue(store.discardCreatedStore())
    store.close()
    XCTAssertFalse(try schemaExists(), "the schema, its tables and functions are gone")
  }

  func testASchemaThatWasThereBeforeStays() throws {
    XCTAssertEqual(try PostgresTestCluster.psql("CREATE SCHEMA \"\(pg.name)\"", url: pg.clusterURL).status, 0)
    let store = try Store(path: pg.storeURL)
    XCTAssertFalse(store.discardCreatedStore())
    store.close()
    XCTAssertTrue(try schemaExists())
    // Nor does an opening that found the store drop it.
    let again = try Store(path: pg.storeURL)
    XCTAssertFalse(again.discardCreatedStore())
    again.close()
    XCTAssertTrue(try schemaExists())
  }

  /// Another server opened the new store and committed to it: the store is its now.
  func testAStoreAnotherServerWroteToStays() throws {
    let maker = try Store(path: pg.storeURL)
    let other = try Store(path: pg.storeURL)
    _ = try other.define(schema(entity("Note", [attr("text", "string")])))
    other.close()
    XCTAssertFalse(maker.discardCreatedStore())
    maker.close()
    XCTAssertTrue(try schemaExists())
    XCTAssertEqual(try pg.psql("SELECT count(*) FROM _ms_schema_versions").stdout, "1")
  }

  /// Something of the user's in the new schema keeps it, with the store as it was.
  func testASchemaHoldingSomethingElseStays() throws {
    let store = try Store(path: pg.storeURL)
    XCTAssertEqual(try pg.psql("CREATE TABLE mine (x int)").status, 0)
    XCTAssertFalse(store.discardCreatedStore())
    store.close()
    XCTAssertEqual(try pg.psql("SELECT count(*) FROM _ms_meta WHERE key = 'formatVersion'").stdout, "1")
  }
}
