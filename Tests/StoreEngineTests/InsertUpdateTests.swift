import JSONCore
import SchemaModel
import XCTest

@testable import StoreEngine

final class InsertUpdateTests: XCTestCase {
  func testInsertAppliesLiteralDefaultsAndReturnsTheObject() throws {
    let store = try makeStore(taskCategorySchema)
    let o = try store.insert(entity: "Task", values: ["title": "Buy milk"])
    XCTAssertEqual(o["_id"], "Task/1")
    XCTAssertEqual(o["_entity"], "Task")
    XCTAssertEqual(o["title"], "Buy milk")
    XCTAssertEqual(o["isCompleted"], .bool(false))
    XCTAssertEqual(o["priority"], .int(0))
    XCTAssertEqual(o["notes"], .null)
    XCTAssertEqual(o["due"], .null)
    XCTAssertEqual(o["category"], .null)
    XCTAssertEqual(o.keys, ["_id", "_entity", "title", "isCompleted", "priority", "notes", "due", "category"])
    XCTAssertEqual(try store.get(id: "Task/1"), o)
  }

  func testInsertAnswerEqualsTheStoredObject() throws {
    // Inserts without relationship values answer from the bound values; that answer must
    // be exactly what a read returns.
    let lib = try Library()
    let store = lib.store
    // Each way of sending to-many relationships, the answer read back from the bound
    // values (no relationship given) or from the row.
    for mode in ToManyMode.allCases {
      let n = mode.rawValue
      let inserted: [JSONObject] = [
        try store.insert(entity: "Tag", values: ["name": .string("fresh \(n)")], toMany: mode),
        try store.insert(entity: "Author", values: ["name": "New", "born": "1901-02-03T04:05:06.789+01:00"], toMany: mode),
        try store.insert(
          entity: "Book",
          values: ["title": "T", "pages": 3, "price": "007.10", "rating": 2, "meta": ["k": [1, 2]], "published": "2000-01-01"], toMany: mode
        ),
        try store.insert(
          entity: "Book", values: ["title": "R", "pages": 1, "author": .string(lib.zola), "tags": [.string(lib.classic)]], toMany: mode),
        // A to-one alone: answered from the bound values and the resolved target.
        try store.insert(entity: "Book", values: ["title": "S", "pages": 2, "author": .string(lib.zola)], toMany: mode),
        try store.insert(entity: "Book", values: ["title": "U", "pages": 2, "author": .null], toMany: mode),
      ]
      for o in inserted {
        let id = try XCTUnwrap(o["_id"]?.stringValue)
        XCTAssertEqual(o, try store.get(id: id, toMany: mode), "\(id), toMany \(n)")
      }
      XCTAssertEqual(inserted[2]["price"], "7.1")
      XCTAssertEqual(inserted[2]["rating"], 2.0)
      let empty: [ToManyMode: JSONValue?] = [.none: nil, .ids: .array([]), .count: .int(0)]
      XCTAssertEqual(inserted[2]["tags"], empty[mode]!, n)
      XCTAssertEqual(inserted[1]["books"], empty[mode]!, n)
      XCTAssertEqual(inserted[3]["tags"], [.none: nil, .ids: ids(lib.classic), .count: 1][mode]!, n)
    }
  }

  func testInsertAnswerOfASubentityEqualsTheStoredObject() throws {
    let store = try makeStore(
      schema(
        entity(
          "Base", [attr("a", "int", default: 1), attr("t", "string", default: "x", transient: true)], relationships: [rel("peer", "Base")]),
        entity("Sub", parent: "Base", [attr("b", "date", default: ["generate": "now"])])))
    let o = try store.insert(entity: "Sub", values: [:])
    XCTAssertEqual(o, try store.get(id: "Sub/1"))
    XCTAssertEqual(o.keys, ["_id", "_entity", "a", "t", "b", "peer"])
    // A to-one given by an ancestor's id answers with the concrete object's id.
    let p = try store.insert(entity: "Base", values: ["peer": "Base/1"])
    XCTAssertEqual(p["peer"], "Sub/1")
    XCTAssertEqual(p, try store.get(id: p["_id"]!.stringValue!))
  }

  func testGeneratedDefaults() throws {
    let store = try makeStore(
      schema(
        entity(
          "Item",
          [
            attr("key", "uuid", default: ["generate": "uuid"]), attr("code", "string", default: ["generate": "uuid"]),
            attr("createdAt", "date", default: ["generate": "now"]),
          ])))
    let before = currentTimeSeconds()
    let a = try store.insert(entity: "Item", values: [:])
    let b = try store.insert(entity: "Item", values: [:])
    let after = currentTimeSeconds()
    let key = try XCTUnwrap(a["key"]?.stringValue)
    XCTAssertEqual(UUIDText.canonical(key), key)
    XCTAssertNotEqual(a["key"], b["key"])
    XCTAssertNotNil(UUIDText.canonical(try XCTUnwrap(a["code"]?.stringValue)))
    let created = try XCTUnwrap(ISODate.parse(try XCTUnwrap(a["createdAt"]?.stringValue)))
    XCTAssertGreaterThanOrEqual(created, before)
    XCTAssertLessThanOrEqual(created, after)
    let explicit = try store.insert(entity: "Item", values: ["key": "e621e1f8-c36c-495a-93fc-0c247a3e6e5f"])
    XCTAssertEqual(explicit["key"], "E621E1F8-C36C-495A-93FC-0C247A3E6E5F", "given values win over generators")
  }

  func testEveryTypeRoundTripsThroughTheStore() throws {
    let types = ["string", "int", "int16", "int32", "int64", "double", "float", "decimal", "bool", "date", "uuid", "data", "url", "json"]
    let store = try makeStore(schema(entity("All", types.map { attr("v\($0)", $0, optional: true) })))
    let values: JSONObject = [
      "vstring": "é\u{0}x", "vint": .int(Int64.max), "vint16": -32768, "vint32": 2_147_483_647, "vint64": .int(Int64.min),
      "vdouble": 0.1, "vfloat": 0.5, "vdecimal": "0012.3400", "vbool": true, "vdate": "2024-02-29T14:00:00+02:00",
      "vuuid": "e621e1f8-c36c-495a-93fc-0c247a3e6e5f", "vdata": "AAEC/w==", "vurl": "https://example.com/x?y=1",
      "vjson": ["nested": [1, .null, "two"]],
    ]
    let o = try store.insert(entity: "All", values: values)
    XCTAssertEqual(o["vstring"], "é\u{0}x")
    XCTAssertEqual(o["vint"], .int(Int64.max))
    XCTAssertEqual(o["vint16"], -32768)
    XCTAssertEqual(o["vint32"], 2_147_483_647)
    XCTAssertEqual(o["vint64"], .int(Int64.min))
    XCTAssertEqual(o["vdouble"], 0.1)
    XCTAssertEqual(o["vfloat"], 0.5)
    XCTAssertEqual(o["vdecimal"], "12.34")
    XCTAssertEqual(o["vbool"], true)
    XCTAssertEqual(o["vdate"], "2024-02-29T12:00:00.000Z")
    XCTAssertEqual(o["vuuid"], "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
    XCTAssertEqual(o["vdata"], "AAEC/w==")
    XCTAssertEqual(o["vurl"], "https://example.com/x?y=1")
    XCTAssertEqual(o["vjson"], ["nested": [1, .null, "two"]])
    let empty = try store.insert(entity: "All", values: ["vstring": "", "vdata": ""])
    XCTAssertEqual(empty["vstring"], "", "empty string is not null")
    XCTAssertEqual(empty["vdata"], "", "empty data is not null")
    XCTAssertEqual(empty["vint"], .null)
  }

  func testWrongTypeNamesEntityAndAttribute() throws {
    let store = try makeStore(taskCategorySchema)
    let e = expectStoreError(.validation) { try store.insert(entity: "Task", values: ["title": 5]) }
    XCTAssertEqual(e?.details["entity"], "Task")
    XCTAssertEqual(e?.details["attribute"], "title")
    XCTAssertEqual(e?.details["expected"], "a string")
    XCTAssertEqual(e?.place?.description, "values.title")
    XCTAssertEqual(e?.message, "values.title: Task.title expected a string for type string, got integer 5")
    let range = expectStoreError(.validation) { try store.insert(entity: "Task", values: ["title": "x", "priority": 70000]) }
    XCTAssertEqual(range?.details["attribute"], "priority")
    XCTAssertEqual(try store.count(FetchRequest(entity: "Task")), 0, "nothing was inserted")
  }

  func testMissingRequiredValue() throws {
    let store = try makeStore(taskCategorySchema)
    let e = expectStoreError(.validation) { try store.insert(entity: "Task", values: ["notes": "no title"]) }
    XCTAssertEqual(e?.details["entity"], "Task")
    XCTAssertEqual(e?.details["attribute"], "title")
    XCTAssertEqual(e?.message, "values.title: missing required value for 'Task.title' (string, no default)")
    expectStoreError(.validation) { try store.insert(entity: "Task", values: ["title": .null]) }
  }

  func testUnknownKeyAndStoreAssignedKeys() throws {
    let store = try makeStore(taskCategorySchema)
    let e = expectStoreError(.validation) { try store.insert(entity: "Task", values: ["title": "x", "tittle": "y"]) }
    XCTAssertEqual(e?.details["attribute"], "tittle")
    XCTAssertEqual(e?.details["entity"], "Task")
    XCTAssertEqual(e?.message, "values.tittle: 'tittle' is not an attribute or relationship of 'Task'")
    expectStoreError(.validation) { try store.insert(entity: "Task", values: ["title": "x", "_id": "Task/9"]) }
    expectStoreError(.validation) { try store.insert(entity: "Task", values: ["title": "x", "_pk": 9]) }
    expectStoreError(.validation) { try store.insert(entity: "Task", values: ["title": "x", "_entity": "Category"]) }
    XCTAssertNoThrow(try store.insert(entity: "Task", values: ["title": "x", "_entity": "Task"]), "a matching echo is accepted")
  }

  func testUnknownEntity() throws {
    let store = try makeStore(taskCategorySchema)
    let e = expectStoreError(.notFound) { try store.insert(entity: "Ghost", values: [:]) }
    XCTAssertEqual(e?.details["entity"], "Ghost")
  }

  func testUpdateChangesOnlyGivenKeys() throws {
    let store = try makeStore(taskCategorySchema)
    let id = try store.add("Task", ["title": "a", "priority": 3, "notes": "n"])
    let o = try store.update(id: id, values: ["priority": 5, "notes": .null, "_id": .string(id)])
    XCTAssertEqual(o["title"], "a")
    XCTAssertEqual(o["priority"], 5)
    XCTAssertEqual(o["notes"], .null)
    XCTAssertEqual(try store.get(id: id), o)
  }

  func testUpdateErrors() throws {
    let store = try makeStore(taskCategorySchema)
    let id = try store.add("Task", ["title": "a"])
    let nulled = expectStoreError(.validation) { try store.update(id: id, values: ["title": .null]) }
    XCTAssertEqual(nulled?.details["attribute"], "title")
    XCTAssertEqual(nulled?.details["id"], .string(id))
    expectStoreError(.validation) { try store.update(id: id, values: ["priority": "high"]) }
    expectStoreError(.validation) { try store.update(id: id, values: ["bogus": 1]) }
    expectStoreError(.validation) { try store.update(id: id, values: ["_id": "Task/99"]) }
    XCTAssertEqual(try store.value(id, "title"), "a")
    expectStoreError(.notFound) { try store.update(id: "Task/99", values: ["title": "x"]) }
    expectStoreError(.notFound) { try store.update(id: "Ghost/1", values: [:]) }
    expectStoreError(.validation) { try store.update(id: "Task-1", values: [:]) }
    expectStoreError(.validation) { try store.update(id: "Task/0", values: [:]) }
    expectStoreError(.validation) { try store.update(id: "Task/-1", values: [:]) }
  }

  func testIdsAreNeverReused() throws {
    let store = try makeStore(taskCategorySchema)
    let a = try store.add("Task", ["title": "a"])
    _ = try store.delete(id: a)
    let b = try store.add("Task", ["title": "b"])
    XCTAssertNotEqual(a, b)
    expectStoreError(.notFound) { try store.get(id: a) }
  }

  func testGetManyKeepsOrderAndNamesMissing() throws {
    let store = try makeStore(taskCategorySchema)
    let a = try store.add("Task", ["title": "a"])
    let b = try store.add("Task", ["title": "b"])
    XCTAssertEqual(try store.get(ids: [b, a]).map { $0["title"] }, ["b", "a"])
    let e = expectStoreError(.notFound) { try store.get(ids: [a, "Task/77"]) }
    XCTAssertEqual(e?.details["id"], "Task/77")
    XCTAssertTrue(e?.message.contains("Task/77") ?? false)
  }

  func testTransientAttributesAreNotStored() throws {
    let store = try makeStore(
      schema(entity("Doc", [attr("text", "string"), attr("draft", "string", default: "scratch", transient: true)])))
    let o = try store.insert(entity: "Doc", values: ["text": "t", "draft": "ignored"])
    XCTAssertEqual(o["draft"], "scratch", "a transient reads as its default")
    let u = try store.update(id: "Doc/1", values: ["draft": "also ignored"])
    XCTAssertEqual(u["draft"], "scratch")
  }

  func testOptimisticCounterGrowsOnUpdate() throws {
    let store = try makeStore(taskCategorySchema)
    let id = try store.add("Task", ["title": "a"])
    func opt() throws -> Int64? {
      if case .integer(let n)? = try store.connection.scalar("SELECT \"_opt\" FROM \"Task\" WHERE \"_pk\" = 1") { return n }
      return nil
    }
    // No row of the table was updated yet: it has no `_opt`, and every row is at version 1.
    XCTAssertFalse(try store.columnNames("Task").contains("_opt"))
    XCTAssertEqual(try store.get(id: id, withVersion: true)["_version"], 1)
    _ = try store.update(id: id, values: ["priority": 1])
    XCTAssertEqual(try opt(), 2)
    _ = try store.update(id: id, values: ["priority": 2])
    XCTAssertEqual(try opt(), 3)
  }
}
