import JSONCore
import SQLiteCore
import XCTest

@testable import StoreEngine

/// Storage format 2: keys without AUTOINCREMENT, never reused, the largest committed one
/// kept per table in `_ms_keys` and written once per transaction.
final class KeyAllocationTests: XCTestCase {
  private let notes = schema(
    entity("Note", [attr("text", "string")], relationships: [rel("tags", "Tag", inverse: "notes", toMany: true)]),
    entity("Tag", [attr("name", "string", unique: true)], relationships: [rel("notes", "Note", inverse: "tags", toMany: true)]))

  private func maxima(_ store: Store) throws -> [String: Int64] {
    var out: [String: Int64] = [:]
    try store.connection.prepare("SELECT \"name\", \"max\" FROM \"_ms_keys\"").forEachRow { out[$0.text(0)] = $0.int(1) }
    return out
  }

  func testFreshStoreStartsAtOneWithoutAutoincrement() throws {
    let store = try makeStore(notes)
    XCTAssertEqual(try maxima(store), [:])
    XCTAssertEqual(try store.add("Note", ["text": "a"]), "Note/1")
    XCTAssertEqual(try store.add("Tag", ["name": "t"]), "Tag/1")
    XCTAssertEqual(try maxima(store), ["Note": 1, "Tag": 1])
    XCTAssertEqual(
      try store.connection.scalar("SELECT count(*) FROM sqlite_schema WHERE name IN ('Note', 'Tag') AND sql LIKE '%AUTOINCREMENT%'"),
      .integer(0))
    XCTAssertEqual(try store.connection.scalar("SELECT count(*) FROM sqlite_sequence WHERE name IN ('Note', 'Tag')"), .integer(0))
  }

  func testDeletingTheNewestObjectNeverFreesItsKey() throws {
    let store = try makeStore(notes)
    for text in ["a", "b", "c"] { try store.add("Note", ["text": .string(text)]) }
    _ = try store.delete(id: "Note/3")
    XCTAssertEqual(try store.add("Note", ["text": "d"]), "Note/4")
    _ = try store.delete(id: "Note/4")
    _ = try store.delete(id: "Note/2")
    XCTAssertEqual(try store.add("Note", ["text": "e"]), "Note/5")
    XCTAssertEqual(try maxima(store)["Note"], 5)
  }

  func testOneWriteOfTheMaximumPerTransaction() throws {
    let store = try makeStore(notes)
    _ = try store.save((0..<200).map { .insert(entity: "Note", ref: nil, values: ["text": .string("n\($0)")]) })
    XCTAssertEqual(try maxima(store), ["Note": 200])
    XCTAssertEqual(try store.add("Note", ["text": "next"]), "Note/201")
  }

  func testRolledBackClientTransactionForgetsItsKeys() throws {
    let store = try makeStore(notes)
    try store.add("Note", ["text": "kept"])
    _ = try store.begin()
    XCTAssertEqual(try store.add("Note", ["text": "undone"]), "Note/2")
    XCTAssertEqual(try store.add("Note", ["text": "undone too"]), "Note/3")
    _ = try store.rollback()
    XCTAssertEqual(try maxima(store)["Note"], 1, "nothing of the transaction was written")
    XCTAssertEqual(try store.add("Note", ["text": "after"]), "Note/2", "keys never committed may be taken again")
    XCTAssertEqual(try store.idsWhere("Note"), ["Note/1", "Note/2"])
  }

  func testRolledBackSavepointLeavesAGap() throws {
    let store = try makeStore(notes)
    _ = try store.begin()
    XCTAssertEqual(try store.add("Note", ["text": "a"]), "Note/1")
    _ = try store.begin()
    XCTAssertEqual(try store.add("Note", ["text": "b"]), "Note/2")
    _ = try store.rollback()
    expectStoreError(.validation) { try store.add("Note", [:]) }
    XCTAssertEqual(try store.add("Note", ["text": "c"]), "Note/3", "the savepoint's key is not handed out twice")
    _ = try store.commit()
    XCTAssertEqual(try maxima(store)["Note"], 3)
    XCTAssertEqual(try store.idsWhere("Note"), ["Note/1", "Note/3"])
  }

  func testImportedKeysRaiseTheMaximum() throws {
    let source = try makeStore(notes)
    for i in 0..<5 { try source.add("Note", ["text": .string("n\(i)")]) }
    for i in 1...3 { _ = try source.delete(id: "Note/\(i)") }
    let sink = MemorySink(limit: 1 << 20)
    _ = try source.export(ExportOptions(), to: sink)
    let copy = try Store(path: nil)
    _ = try copy.importObjects(.bytes(sink.bytes), mode: .replace)
    XCTAssertEqual(try copy.idsWhere("Note"), ["Note/4", "Note/5"])
    XCTAssertEqual(try maxima(copy)["Note"], 5)
    _ = try copy.delete(id: "Note/5")
    XCTAssertEqual(try copy.add("Note", ["text": "new"]), "Note/6")
  }

  func testRenamedTableKeepsItsMaximum() throws {
    let store = try makeStore(schema(entity("Note", [attr("text", "string")])))
    for text in ["a", "b", "c"] { try store.add("Note", ["text": .string(text)]) }
    _ = try store.delete(id: "Note/3")
    _ = try store.define(schema(entity("Memo", [attr("text", "string")], originalName: "Note"), version: "2"))
    XCTAssertEqual(try maxima(store), ["Memo": 3])
    XCTAssertEqual(try store.add("Memo", ["text": "d"]), "Memo/4")
  }

  func testKeysOfADroppedTableAreNotReusedWhenItComesBack() throws {
    let store = try makeStore(schema(entity("Note", [attr("text", "string")]), entity("Tag", [attr("name", "string")])))
    try store.add("Tag", ["name": "t"])
    _ = try store.delete(id: "Tag/1")
    _ = try store.define(schema(entity("Note", [attr("text", "string")]), version: "2"))
    _ = try store.define(schema(entity("Note", [attr("text", "string")]), entity("Tag", [attr("name", "string")]), version: "3"))
    XCTAssertEqual(try store.add("Tag", ["name": "again"]), "Tag/2")
    XCTAssertEqual(store.entityCodes.code("Tag"), 2, "an entity added again under its old name gets its code back")
  }
}
