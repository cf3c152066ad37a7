import JSONCore
import XCTest

@testable import StoreEngine

final class InheritanceTests: XCTestCase {
  private let vehicles = schema(
    entity(
      "Vehicle", abstract: true, [attr("wheels", "int"), attr("name", "string")],
      relationships: [rel("owner", "Person", inverse: "vehicles")]),
    entity("Car", parent: "Vehicle", [attr("seats", "int")]),
    entity("Truck", parent: "Vehicle", [attr("load", "double")]),
    entity("Person", [attr("name", "string")], relationships: [rel("vehicles", "Vehicle", inverse: "owner", toMany: true)]))

  func testAbstractParentInsertIsRefused() throws {
    let store = try makeStore(vehicles)
    let e = expectStoreError(.validation) { try store.add("Vehicle", ["wheels": 4, "name": "v"]) }
    XCTAssertEqual(e?.details["entity"], "Vehicle")
    XCTAssertTrue(e?.message.contains("abstract") ?? false)
    XCTAssertTrue(e?.message.contains("Car, Truck") ?? false, e?.message ?? "")
  }

  func testFetchingTheParentReturnsSubentityObjectsWithTheirOwnAttributes() throws {
    let store = try makeStore(vehicles)
    let car = try store.add("Car", ["wheels": 4, "name": "car", "seats": 5])
    let truck = try store.add("Truck", ["wheels": 6, "name": "truck", "load": 7.5])
    XCTAssertEqual(car, "Car/1")
    XCTAssertEqual(truck, "Truck/2", "one key space per hierarchy")
    var r = FetchRequest(entity: "Vehicle")
    r.sort = [SortKey(keyPath: "wheels")]
    let all = try store.fetch(r)
    XCTAssertEqual(all.map { $0["_entity"] }, ["Car", "Truck"])
    XCTAssertEqual(all[0].keys, ["_id", "_entity", "wheels", "name", "seats", "owner"])
    XCTAssertEqual(all[0]["seats"], 5)
    XCTAssertNil(all[0]["load"], "a car has no load")
    XCTAssertEqual(all[1]["load"], 7.5)
    XCTAssertNil(all[1]["seats"])
    XCTAssertEqual(try store.count(FetchRequest(entity: "Vehicle")), 2)
    XCTAssertEqual(try store.idsWhere("Car"), [car])
    XCTAssertEqual(try store.idsWhere("Vehicle", "wheels > 4"), [truck])
    XCTAssertEqual(try store.idsWhere("Truck", "load > 5"), [truck], "sub-entity attributes in predicates")
  }

  func testGetThroughTheParentNameReturnsTheConcreteObject() throws {
    let store = try makeStore(vehicles)
    let car = try store.add("Car", ["wheels": 4, "name": "car", "seats": 5])
    let o = try store.get(id: "Vehicle/1")
    XCTAssertEqual(o["_id"], .string(car))
    XCTAssertEqual(o["seats"], 5)
    expectStoreError(.notFound) { try store.get(id: "Truck/1") }
  }

  func testPolymorphicRelationships() throws {
    let store = try makeStore(vehicles)
    let car = try store.add("Car", ["wheels": 4, "name": "car", "seats": 5])
    let truck = try store.add("Truck", ["wheels": 6, "name": "truck", "load": 1])
    let p = try store.add("Person", ["name": "p", "vehicles": ids(truck, car)])
    XCTAssertEqual(Set(strings(try store.value(p, "vehicles"))), [car, truck], "ids carry the concrete entity")
    XCTAssertEqual(try store.value(car, "owner"), .string(p))
    let other = try store.add("Person", ["name": "q"])
    expectStoreError(.validation) { try store.update(id: car, values: ["owner": .string(car)]) }
    _ = try store.update(id: truck, values: ["owner": .string(other)])
    XCTAssertEqual(strings(try store.value(p, "vehicles")), [car])
  }

  private let animals = schema(
    entity("Animal", [attr("name", "string")]),
    entity("Dog", parent: "Animal", [attr("chip", "string", optional: true, unique: true)]),
    entity("Cat", parent: "Animal", [attr("chip", "string", optional: true)]))

  func testIncludeSubentitiesFalse() throws {
    let store = try makeStore(animals)
    let a = try store.add("Animal", ["name": "generic"])
    let d = try store.add("Dog", ["name": "rex"])
    let c = try store.add("Cat", ["name": "tom"])
    XCTAssertEqual(try store.idsWhere("Animal"), [a, d, c])
    XCTAssertEqual(try store.idsWhere("Animal", subentities: false), [a])
    XCTAssertEqual(try store.idsWhere("Dog", subentities: false), [d])
    var r = FetchRequest(entity: "Animal")
    r.includeSubentities = false
    XCTAssertEqual(try store.count(r), 1)
    XCTAssertEqual(try store.fetch(r).map { $0["_id"] }, [.string(a)])
  }

  func testPartialUniqueIndexOnASubentity() throws {
    let store = try makeStore(animals)
    let cat = try store.add("Cat", ["name": "tom", "chip": "X1"])
    let rex = try store.add("Dog", ["name": "rex", "chip": "X1"])
    XCTAssertNotEqual(cat, rex, "a cat may share a dog's chip: the constraint is the dog's")
    XCTAssertNoThrow(try store.add("Cat", ["name": "felix", "chip": "X1"]))
    let e = expectStoreError(.constraint) { try store.add("Dog", ["name": "fido", "chip": "X1"]) }
    XCTAssertEqual(e?.details["entity"], "Dog")
    XCTAssertEqual(e?.details["existing"], .string(rex), "the holder is the other dog, not the cat that happens to come first")
    var indexSQL: [String] = []
    try store.connection.prepare("SELECT sql FROM sqlite_schema WHERE type = 'index' AND sql LIKE '%UNIQUE%'").forEachRow {
      indexSQL.append($0.text(0))
    }
    XCTAssertEqual(indexSQL.count, 1)
    let dog = try XCTUnwrap(store.entityCodes.code("Dog"))
    XCTAssertTrue(indexSQL.first?.contains("WHERE \"_ent\" IN (\(dog))") ?? false, "the index names Dog by its code: \(indexSQL)")
  }

  func testUpsertOnASubentityOnlyMatchesThatEntity() throws {
    let store = try makeStore(animals)
    try store.add("Cat", ["name": "tom", "chip": "X1"])
    let r = try store.upsert(entity: "Dog", values: ["name": "rex", "chip": "X1"], on: ["chip"])
    XCTAssertTrue(r.inserted)
    XCTAssertEqual(r.object["_entity"], "Dog")
  }

  func testSiblingAttributesWithTheSameNameAndTypeShareAColumn() throws {
    let store = try makeStore(
      schema(
        entity("Item", [attr("label", "string")]),
        entity("Book", parent: "Item", [attr("code", "string", optional: true)]),
        entity("Part", parent: "Item", [attr("code", "string", optional: true)])))
    let book = try store.insert(entity: "Book", values: ["label": "b", "code": "0042"])
    let part = try store.insert(entity: "Part", values: ["label": "p", "code": "0042"])
    XCTAssertEqual(book["code"], "0042")
    XCTAssertEqual(part["code"], "0042")
    XCTAssertEqual(try store.idsWhere("Book", "code == '0042'"), ["Book/1"])
    XCTAssertEqual(try store.idsWhere("Part", "code == '0042'"), ["Part/2"])
    XCTAssertEqual(try store.connection.scalar("SELECT count(*) FROM pragma_table_info('Item') WHERE name = 'code'"), .integer(1))
  }

  func testSiblingAttributesWithTheSameNameButDifferentStorageAreRefused() throws {
    // They would share one column of the hierarchy's table: an int stored into a TEXT
    // column would read back as a string, so the schema is refused up front.
    let store = try Store(path: nil)
    let e = expectStoreError(.invalidModel) {
      try store.define(
        schema(
          entity("Item", [attr("label", "string")]),
          entity("Book", parent: "Item", [attr("code", "string", optional: true)]),
          entity("Part", parent: "Item", [attr("code", "int", optional: true)])))
    }
    let codes = (e?.details["issues"]?.arrayValue ?? []).compactMap { $0["code"]?.stringValue }
    XCTAssertEqual(codes, ["conflictingColumn"])
    XCTAssertNil(store.schema)
  }

  func testDeletingASubentityObjectThroughTheParentID() throws {
    let store = try makeStore(vehicles)
    let car = try store.add("Car", ["wheels": 4, "name": "car", "seats": 5])
    XCTAssertEqual(try store.delete(id: "Vehicle/1"), [car])
    XCTAssertEqual(try store.count(FetchRequest(entity: "Vehicle")), 0)
  }

  func testInfoCountsConcreteEntitiesOnly() throws {
    let store = try makeStore(vehicles)
    try store.add("Car", ["wheels": 4, "name": "c", "seats": 2])
    try store.add("Car", ["wheels": 4, "name": "d", "seats": 2])
    try store.add("Truck", ["wheels": 6, "name": "t", "load": 1])
    let counts = try XCTUnwrap(try store.info()["counts"]?.objectValue)
    XCTAssertEqual(counts, ["Car": 2, "Truck": 1, "Person": 0])
  }
}
