import JSONCore
import SQLiteCore
import SchemaModel
import XCTest

@testable import StoreEngine

final class AdminTests: XCTestCase {
  func testInfoOfAMemoryStore() throws {
    let store = try makeStore(taskCategorySchema)
    try store.add("Task", ["title": "a"])
    try store.add("Task", ["title": "b"])
    try store.add("Category", ["name": "c"])
    let info = try store.info()
    XCTAssertEqual(info["path"], .null)
    XCTAssertEqual(info["memory"], true)
    XCTAssertEqual(info["readOnly"], false)
    XCTAssertEqual(info["format"], "modelstore")
    XCTAssertEqual(info["formatVersion"], 2)
    XCTAssertEqual(info["schemaVersion"], "1")
    XCTAssertEqual(info["schemaHash"], .string(try XCTUnwrap(store.schema).versionHash))
    XCTAssertEqual(info["counts"], ["Task": 2, "Category": 1])
    XCTAssertEqual(info["openTransactions"], 0)
    if case .int(let size)? = info["sizeBytes"] { XCTAssertGreaterThan(size, 0) } else { XCTFail("sizeBytes") }
    XCTAssertEqual(info["sqliteVersion"], .string(Connection.libraryVersion))
  }

  func testInfoWithoutSchema() throws {
    let store = try Store(path: nil)
    let info = try store.info()
    XCTAssertEqual(info["schemaVersion"], .null)
    XCTAssertEqual(info["schemaHash"], .null)
    XCTAssertEqual(info["counts"], .object([:]))
  }

  func testInfoOfAFileStore() throws {
    let path = temporaryPath(self)
    let store = try Store(path: path)
    _ = try store.define(taskCategorySchema)
    let info = try store.info()
    XCTAssertEqual(info["path"], .string(path))
    XCTAssertEqual(info["memory"], false)
    XCTAssertEqual(info["journalMode"], "wal")
    XCTAssertEqual(try store.connection.scalar("PRAGMA application_id"), .integer(Int64(Store.applicationID)))
  }

  func testCheckFindsNothingOnAGoodStore() throws {
    let lib = try Library()
    let report = try lib.store.check()
    XCTAssertEqual(report["ok"], true)
    XCTAssertEqual(report["integrity"], ["ok"])
    XCTAssertEqual(report["problems"], .array([]))
  }

  func testCheckFindsAMissingColumnAndDanglingKey() throws {
    let store = try makeStore(taskCategorySchema)
    try store.add("Task", ["title": "a"])
    try store.connection.execute("UPDATE \"Task\" SET \"category\" = 99")
    try store.connection.execute("ALTER TABLE \"Category\" DROP COLUMN \"color\"")
    let report = try store.check()
    XCTAssertEqual(report["ok"], false)
    let problems = report["problems"]?.arrayValue ?? []
    XCTAssertTrue(problems.contains { $0["attribute"] == "color" && $0["entity"] == "Category" }, "\(problems)")
    XCTAssertTrue(problems.contains { $0["relationship"] == "category" && $0["count"] == 1 }, "\(problems)")
  }

  func testBackupThenOpenTheCopy() throws {
    let lib = try Library()
    let dest = temporaryPath(self, "copy.modelstore")
    let (path, bytes) = try lib.store.backup(to: dest)
    XCTAssertEqual(path, dest)
    XCTAssertGreaterThan(bytes, 0)
    let copy = try Store(path: dest)
    XCTAssertEqual(copy.schema, lib.store.schema)
    XCTAssertEqual(try copy.get(id: lib.emma), try lib.store.get(id: lib.emma))
    XCTAssertEqual(try copy.count(FetchRequest(entity: "Book")), 5)
    XCTAssertEqual(try copy.check()["ok"], true)
    // The copy is independent.
    try copy.add("Tag", ["name": "only in copy"])
    XCTAssertEqual(try lib.store.count(FetchRequest(entity: "Tag")), 3)
  }

  func testBackupRefusesToOverwrite() throws {
    let store = try makeStore(taskCategorySchema)
    let dest = temporaryPath(self, "copy.modelstore")
    _ = try store.backup(to: dest)
    let e = expectStoreError(.invalidArgument) { try store.backup(to: dest) }
    XCTAssertEqual(e?.details["path"], .string(dest))
    expectStoreError(.notFound) { try store.backup(to: "/nonexistent-dir-for-test/copy.modelstore") }
  }

  func testBackupIsRefusedInsideAClientTransaction() throws {
    let path = temporaryPath(self)
    let store = try Store(path: path)
    _ = try store.define(taskCategorySchema)
    try store.add("Task", ["title": "committed"])
    _ = try store.begin()
    try store.add("Task", ["title": "pending"])
    let dest = temporaryPath(self, "copy.modelstore")
    expectStoreError(.transaction) { try store.backup(to: dest) }
    XCTAssertFalse(fileExists(dest), "no partial copy is left behind")
    _ = try store.rollback()
    _ = try store.backup(to: dest)
    let copy = try Store(path: dest)
    XCTAssertEqual(try copy.check()["ok"], true)
    XCTAssertEqual(try copy.fetch(FetchRequest(entity: "Task")).map { $0["title"] }, ["committed"])
  }
}
