#if canImport(Glibc)
import Glibc
#endif
import JSONCore
import XCTest

@testable import StoreEngine

final class ClientTransactionTests: XCTestCase {
  private func titles(_ store: Store) throws -> [String] {
    var r = FetchRequest(entity: "Task")
    r.sort = [SortKey(keyPath: "title")]
    return try store.fetch(r).compactMap { $0["title"]?.stringValue }
  }

  func testBeginCommit() throws {
    let store = try makeStore(taskCategorySchema)
    XCTAssertEqual(try store.begin(), 1)
    XCTAssertEqual(store.openTransactions, 1)
    try store.add("Task", ["title": "a"])
    XCTAssertEqual(try store.info()["openTransactions"], 1)
    XCTAssertEqual(try store.commit(), 0)
    XCTAssertEqual(store.openTransactions, 0)
    XCTAssertEqual(try titles(store), ["a"])
    XCTAssertTrue(store.connection.isAutocommit)
  }

  func testRollbackUndoesEverySinceBegin() throws {
    let store = try makeStore(taskCategorySchema)
    try store.add("Task", ["title": "before"])
    _ = try store.begin()
    try store.add("Task", ["title": "a"])
    _ = try store.update(id: "Task/1", values: ["title": "changed"])
    XCTAssertEqual(try titles(store), ["a", "changed"], "reads see the open transaction's work")
    XCTAssertEqual(try store.rollback(), 0)
    XCTAssertEqual(try titles(store), ["before"])
  }

  func testNestedLevels() throws {
    let store = try makeStore(taskCategorySchema)
    XCTAssertEqual(try store.begin(), 1)
    try store.add("Task", ["title": "outer"])
    XCTAssertEqual(try store.begin(), 2)
    try store.add("Task", ["title": "inner"])
    XCTAssertEqual(try store.rollback(), 1)
    XCTAssertEqual(try titles(store), ["outer"], "only the inner level was undone")
    XCTAssertEqual(try store.begin(), 2)
    try store.add("Task", ["title": "inner2"])
    XCTAssertEqual(try store.commit(), 1)
    XCTAssertEqual(try store.commit(), 0)
    XCTAssertEqual(try titles(store), ["inner2", "outer"])
  }

  func testCommitOrRollbackWithoutBegin() throws {
    let store = try makeStore(taskCategorySchema)
    let e = expectStoreError(.transaction) { try store.commit() }
    XCTAssertEqual(e?.message, "no transaction is open (call transaction.begin first)")
    expectStoreError(.transaction) { try store.rollback() }
    _ = try store.begin()
    _ = try store.commit()
    expectStoreError(.transaction) { try store.commit() }
  }

  func testAFailedRequestInsideATransactionKeepsTheTransaction() throws {
    let store = try makeStore(taskCategorySchema)
    _ = try store.begin()
    try store.add("Task", ["title": "kept"])
    expectStoreError(.validation) { try store.add("Task", ["priority": 1]) }
    expectStoreError(.constraint) {
      try store.save([.insert(entity: "Category", ref: nil, values: ["name": "x"]), .insert(entity: "Category", ref: nil, values: ["name": "x"])])
    }
    XCTAssertEqual(store.openTransactions, 1)
    try store.add("Task", ["title": "also kept"])
    _ = try store.commit()
    XCTAssertEqual(try titles(store), ["also kept", "kept"])
    XCTAssertEqual(try store.count(FetchRequest(entity: "Category")), 0)
  }

  func testDefineIsRefusedInsideATransaction() throws {
    // A rollback would undo the tables but not the installed schema, so define waits.
    let store = try makeStore(schema(entity("Note", [attr("text", "string")])))
    _ = try store.begin()
    try store.add("Note", ["text": "pending"])
    let e = expectStoreError(.transaction) { try store.define(schema(entity("Note", [attr("text", "string")]), entity("Extra"))) }
    XCTAssertTrue(e?.message.contains("commit or roll back first") ?? false)
    XCTAssertEqual(store.openTransactions, 1, "the transaction is untouched")
    XCTAssertEqual(store.schema?.entities.map(\.name), ["Note"])
    _ = try store.rollback()
    XCTAssertEqual(try store.count(FetchRequest(entity: "Note")), 0)
    XCTAssertTrue(try store.define(schema(entity("Note", [attr("text", "string")]), entity("Extra"))).changed)
  }

  func testOpenTransactionIsLostWhenTheStoreGoesAway() throws {
    let path = temporaryPath(self)
    do {
      let store = try Store(path: path)
      _ = try store.define(taskCategorySchema)
      try store.add("Task", ["title": "committed"])
      _ = try store.begin()
      try store.add("Task", ["title": "uncommitted"])
    }
    let reopened = try Store(path: path)
    XCTAssertEqual(try titles(reopened), ["committed"])
  }

  func testCloseRollsBackAndCheckpoints() throws {
    let path = temporaryPath(self)
    let store = try Store(path: path)
    _ = try store.define(taskCategorySchema)
    try store.add("Task", ["title": "committed"])
    _ = try store.begin()
    try store.add("Task", ["title": "uncommitted"])
    store.close()
    XCTAssertEqual(store.openTransactions, 0)
    var st = stat()
    if stat(path + "-wal", &st) == 0 { XCTAssertEqual(st.st_size, 0, "the WAL was checkpointed into the main file") }
    let reopened = try Store(path: path)
    XCTAssertEqual(try titles(reopened), ["committed"])
  }
}
