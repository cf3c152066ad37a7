import JSONCore
import SQLiteCore
import XCTest

@testable import StoreEngine

/// Storage format 2: `_ent` holds an entity code from `_ms_entities`; renames rename the
/// code's row, never the objects' rows.
final class EntityCodeTests: XCTestCase {
  private let animals = schema(
    entity("Animal", [attr("name", "string")], relationships: [rel("home", "Home", inverse: "residents")]),
    entity("Dog", parent: "Animal", [attr("chip", "string", optional: true)]),
    entity("Puppy", parent: "Dog", [attr("age", "int", default: 0)]),
    entity("Cat", parent: "Animal"),
    entity("Home", [attr("street", "string")], relationships: [rel("residents", "Animal", inverse: "home", toMany: true)]))

  private func codeRows(_ store: Store) throws -> [String: Int64] {
    var out: [String: Int64] = [:]
    try store.connection.prepare("SELECT \"name\", \"code\" FROM \"_ms_entities\"").forEachRow { out[$0.text(0)] = $0.int(1) }
    return out
  }

  /// `(_pk, _ent, typeof(_ent))` of every row of `table`, by key.
  private func entityColumn(_ store: Store, _ table: String) throws -> [[SQLValue]] {
    var out: [[SQLValue]] = []
    try store.connection.prepare("SELECT \"_pk\", \"_ent\", typeof(\"_ent\") FROM \(Identifier.quote(table)) ORDER BY \"_pk\"")
      .forEachRow { out.append([$0.value(0), $0.value(1), $0.value(2)]) }
    return out
  }

  func testCodesFromOneInSchemaOrderAndRowsHoldThem() throws {
    let store = try makeStore(animals)
    XCTAssertEqual(try codeRows(store), ["Animal": 1, "Dog": 2, "Puppy": 3, "Cat": 4, "Home": 5])
    let sql = try XCTUnwrap(try store.connection.scalar("SELECT sql FROM sqlite_schema WHERE name = 'Animal'"))
    XCTAssertEqual(
      sql,
      .text(
        "CREATE TABLE \"Animal\" (\"_pk\" INTEGER PRIMARY KEY, \"_ent\" INTEGER NOT NULL, \"name\" TEXT, \"home\" INTEGER, \"chip\" TEXT, \"age\" INTEGER)"
      ))
    try store.add("Animal", ["name": "generic"])
    try store.add("Puppy", ["name": "bit"])
    try store.add("Cat", ["name": "tom"])
    XCTAssertEqual(
      try entityColumn(store, "Animal"),
      [
        [.integer(1), .integer(1), .text("integer")], [.integer(2), .integer(3), .text("integer")],
        [.integer(3), .integer(4), .text("integer")],
      ])
  }

  func testSubentityFiltersUseCodes() throws {
    let store = try makeStore(animals)
    let home = try store.add("Home", ["street": "Elm"])
    let a = try store.add("Animal", ["name": "a", "home": .string(home)])
    let d = try store.add("Dog", ["name": "d", "home": .string(home)])
    let p = try store.add("Puppy", ["name": "p", "home": .string(home)])
    let c = try store.add("Cat", ["name": "c"])
    XCTAssertEqual([a, d, p, c], ["Animal/1", "Dog/2", "Puppy/3", "Cat/4"])
    XCTAssertEqual(try store.idsWhere("Animal"), [a, d, p, c])
    XCTAssertEqual(try store.idsWhere("Animal", subentities: false), [a])
    XCTAssertEqual(try store.idsWhere("Dog"), [d, p])
    XCTAssertEqual(try store.idsWhere("Dog", subentities: false), [d])
    XCTAssertEqual(try store.idsWhere("Dog", "name BEGINSWITH 'p'"), [p])
    XCTAssertEqual(try store.entityCounts().map { "\($0.entity)=\($0.count)" }, ["Animal=1", "Dog=1", "Puppy=1", "Cat=1", "Home=1"])
    // Polymorphic ids decoded from codes: to-many lists, to-ones, ids read by key.
    XCTAssertEqual(try store.value(home, "residents"), ids(a, d, p))
    XCTAssertEqual(try store.value(p, "home"), .string(home))
    XCTAssertEqual(try store.get(id: "Animal/3")["_id"], .string(p), "an id naming the root finds the concrete object")
    expectStoreError(.notFound) { try store.get(id: "Cat/3") }
  }

  func testRenamedEntityKeepsItsCodeAndNoRowIsRewritten() throws {
    let store = try makeStore(animals)
    let d = try store.add("Dog", ["name": "rex", "chip": "X1"])
    let p = try store.add("Puppy", ["name": "bit"])
    let before = try entityColumn(store, "Animal")
    let changesBefore = store.connection.totalChanges
    let renamed = schema(
      entity("Animal", [attr("name", "string")], relationships: [rel("home", "Home", inverse: "residents")]),
      entity("Hound", parent: "Animal", [attr("chip", "string", optional: true)], originalName: "Dog"),
      entity("Puppy", parent: "Hound", [attr("age", "int", default: 0)]),
      entity("Cat", parent: "Animal"),
      entity("Home", [attr("street", "string")], relationships: [rel("residents", "Animal", inverse: "home", toMany: true)]),
      version: "2")
    let r = try store.define(renamed)
    XCTAssertEqual(r.steps, ["rename entity Dog to Hound"])
    XCTAssertEqual(try entityColumn(store, "Animal"), before, "rows keep their codes")
    XCTAssertEqual(try codeRows(store), ["Animal": 1, "Hound": 2, "Puppy": 3, "Cat": 4, "Home": 5])
    XCTAssertLessThan(store.connection.totalChanges - changesBefore, 10, "a handful of bookkeeping rows, not one per object")
    XCTAssertEqual(try store.get(id: "Hound/1")["name"], "rex")
    XCTAssertEqual(try store.idsWhere("Hound"), ["Hound/1", p])
    expectStoreError(.notFound) { try store.get(id: d) }
  }

  func testRetiredCodesStayTakenAndTheirNamesMayBeReused() throws {
    let store = try makeStore(schema(entity("A", [attr("x", "int")]), entity("B", [attr("y", "int")]), entity("C", [attr("z", "int")])))
    try store.add("A", ["x": 1])
    try store.add("B", ["y": 2])
    // C is removed (empty): its code stays taken, under its name.
    _ = try store.define(schema(entity("A", [attr("x", "int")]), entity("B", [attr("y", "int")]), version: "2"))
    XCTAssertEqual(try codeRows(store), ["A": 1, "B": 2, "C": 3])
    // A is renamed to C, the retired entity's name, and D is added: the retired row keeps
    // its code under a name no entity can have, A's objects keep code 1, D gets the next.
    _ = try store.define(
      schema(
        entity("C", [attr("x", "int")], originalName: "A"), entity("B", [attr("y", "int")]), entity("D", [attr("w", "int")]), version: "3"))
    XCTAssertEqual(try codeRows(store), ["C": 1, "B": 2, "C~3": 3, "D": 4])
    XCTAssertEqual(try store.get(id: "C/1")["x"], 1)
    XCTAssertEqual(try store.get(id: "B/1")["y"], 2)
    XCTAssertEqual(try store.add("D", ["w": 5]), "D/1")
    XCTAssertEqual(store.entityCodes.name(3), "C~3")
    XCTAssertEqual(store.entityCodes.code("D"), 4)
  }

  func testUnknownCodeNeverMatchesAnEntity() throws {
    let store = try makeStore(animals)
    try store.add("Dog", ["name": "rex"])
    try store.connection.execute("UPDATE \"Animal\" SET \"_ent\" = 99")
    XCTAssertEqual(store.entityCodes.name(99), "?99")
    expectStoreError(.notFound) { try store.get(id: "Dog/1") }
    XCTAssertEqual(try store.idsWhere("Dog"), [])
  }
}
