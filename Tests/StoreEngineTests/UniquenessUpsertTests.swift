import JSONCore
import XCTest

@testable import StoreEngine

final class UniquenessUpsertTests: XCTestCase {
  private let people = schema(
    entity(
      "Person",
      [attr("email", "string", unique: true), attr("first", "string"), attr("last", "string"), attr("age", "int", optional: true)],
      uniqueness: [["first", "last"]]))

  func testSingleUniqueViolationNamesTheExistingObject() throws {
    let store = try makeStore(people)
    let ann = try store.add("Person", ["email": "ann@x", "first": "Ann", "last": "A"])
    let e = expectStoreError(.constraint) { try store.insert(entity: "Person", values: ["email": "ann@x", "first": "Bob", "last": "B"]) }
    XCTAssertEqual(e?.details["existing"], .string(ann))
    XCTAssertEqual(e?.details["attributes"], ["email"])
    XCTAssertEqual(e?.details["entity"], "Person")
    XCTAssertEqual(e?.details["constraint"], "unique")
    XCTAssertEqual(e?.place, ErrorPlace(.values))
    XCTAssertEqual(e?.message, "values: unique constraint 'email' of 'Person' violated: the value is already used by \(ann)")
    XCTAssertEqual(try store.count(FetchRequest(entity: "Person")), 1)
  }

  func testCompoundUniqueViolation() throws {
    let store = try makeStore(people)
    let ann = try store.add("Person", ["email": "1", "first": "Ann", "last": "A"])
    XCTAssertNoThrow(try store.add("Person", ["email": "2", "first": "Ann", "last": "B"]), "only the pair must be unique")
    let e = expectStoreError(.constraint) { try store.insert(entity: "Person", values: ["email": "3", "first": "Ann", "last": "A"]) }
    XCTAssertEqual(e?.details["attributes"], ["first", "last"])
    XCTAssertEqual(e?.details["existing"], .string(ann))
    XCTAssertTrue(e?.message.contains("[first, last]") ?? false, e?.message ?? "")
  }

  func testUpdateIntoAViolation() throws {
    let store = try makeStore(people)
    let ann = try store.add("Person", ["email": "ann", "first": "Ann", "last": "A"])
    let bob = try store.add("Person", ["email": "bob", "first": "Bob", "last": "B"])
    let e = expectStoreError(.constraint) { try store.update(id: bob, values: ["first": "Ann", "last": "A"]) }
    XCTAssertEqual(e?.details["existing"], .string(ann))
    XCTAssertNoThrow(try store.update(id: ann, values: ["email": "ann"]), "setting the same value on itself is fine")
    XCTAssertEqual(try store.value(bob, "first"), "Bob")
  }

  func testNullsDoNotCollide() throws {
    let store = try makeStore(schema(entity("Tagged", [attr("code", "string", optional: true, unique: true)])))
    try store.add("Tagged")
    XCTAssertNoThrow(try store.add("Tagged"))
  }

  func testUpsertInsertsThenUpdates() throws {
    let store = try makeStore(people)
    let first = try store.upsert(entity: "Person", values: ["email": "ann@x", "first": "Ann", "last": "A", "age": 30], on: nil)
    XCTAssertTrue(first.inserted)
    let second = try store.upsert(entity: "Person", values: ["email": "ann@x", "first": "Ann", "last": "A", "age": 31], on: nil)
    XCTAssertFalse(second.inserted)
    XCTAssertEqual(second.object["_id"], first.object["_id"])
    XCTAssertEqual(second.object["age"], 31)
    XCTAssertEqual(try store.count(FetchRequest(entity: "Person")), 1)
  }

  func testUpsertOnCompoundKeys() throws {
    let store = try makeStore(people)
    let a = try store.upsert(entity: "Person", values: ["email": "1", "first": "Ann", "last": "A"], on: ["last", "first"])
    let b = try store.upsert(entity: "Person", values: ["email": "1-new", "first": "Ann", "last": "A"], on: ["first", "last"])
    XCTAssertTrue(a.inserted)
    XCTAssertFalse(b.inserted)
    XCTAssertEqual(b.object["email"], "1-new")
  }

  func testUpsertErrors() throws {
    let store = try makeStore(people)
    let notUnique = expectStoreError(.validation) { try store.upsert(entity: "Person", values: ["first": "A", "age": 1], on: ["age"]) }
    XCTAssertTrue(notUnique?.message.contains("is not a uniqueness constraint") ?? false)
    let missing = expectStoreError(.validation) { try store.upsert(entity: "Person", values: ["first": "A"], on: ["email"]) }
    XCTAssertEqual(missing?.details["attribute"], "email")
    expectStoreError(.validation) { try store.upsert(entity: "Person", values: ["age": 3], on: nil) }
    let none = try makeStore(schema(entity("Free", [attr("x", "int")])))
    let e = expectStoreError(.validation) { try none.upsert(entity: "Free", values: ["x": 1], on: nil) }
    XCTAssertTrue(e?.message.contains("(it has none)") ?? false, e?.message ?? "")
  }

  func testUpsertUpdateCanStillViolateAnotherConstraint() throws {
    let store = try makeStore(people)
    let ann = try store.add("Person", ["email": "ann", "first": "Ann", "last": "A"])
    try store.add("Person", ["email": "bob", "first": "Bob", "last": "B"])
    let e = expectStoreError(.constraint) {
      try store.upsert(entity: "Person", values: ["email": "bob", "first": "Ann", "last": "A"], on: ["email"])
    }
    XCTAssertEqual(e?.details["existing"], .string(ann))
  }
}
