import JSONCore
import XCTest

@testable import StoreEngine

final class RelationshipValidationTests: XCTestCase {
  private let required = schema(
    entity("Order", [attr("number", "int")], relationships: [rel("customer", "Customer", inverse: "orders", optional: false)]),
    entity("Customer", [attr("name", "string")], relationships: [rel("orders", "Order", inverse: "customer", toMany: true)]))

  func testRequiredToOneMustBeSetOnInsert() throws {
    let store = try makeStore(required)
    let e = expectStoreError(.validation) { try store.add("Order", ["number": 1]) }
    XCTAssertEqual(e?.details["relationship"], "customer")
    XCTAssertEqual(e?.details["entity"], "Order")
    XCTAssertEqual(e?.message, "Order/1: required relationship 'Order.customer' has no value")
    XCTAssertEqual(try store.count(FetchRequest(entity: "Order")), 0)
    let c = try store.add("Customer", ["name": "c"])
    XCTAssertNoThrow(try store.add("Order", ["number": 1, "customer": .string(c)]))
  }

  func testRequiredToOneCannotBeCleared() throws {
    let store = try makeStore(required)
    let c = try store.add("Customer", ["name": "c"])
    let o = try store.add("Order", ["number": 1, "customer": .string(c)])
    expectStoreError(.validation) { try store.update(id: o, values: ["customer": .null]) }
    expectStoreError(.validation) { try store.update(id: c, values: ["orders": .array([])]) }
    let nullified = expectStoreError(.validation) { try store.delete(id: c) }
    XCTAssertEqual(nullified?.details["id"], .string(o), "nullify would leave the order without its required customer")
    XCTAssertTrue(store.exists(c))
    XCTAssertEqual(try store.value(o, "customer"), .string(c))
  }

  func testMovingARequiredToOneToAnotherOwnerIsFine() throws {
    let store = try makeStore(required)
    let a = try store.add("Customer", ["name": "a"])
    let b = try store.add("Customer", ["name": "b"])
    let o = try store.add("Order", ["number": 1, "customer": .string(a)])
    _ = try store.update(id: b, values: ["orders": ids(o)])
    XCTAssertEqual(try store.value(o, "customer"), .string(b))
  }

  private let counted = schema(
    entity("Team", [attr("name", "string")], relationships: [rel("players", "Player", inverse: "team", toMany: true, min: 1, max: 3)]),
    entity("Player", [attr("name", "string")], relationships: [rel("team", "Team", inverse: "players")]))

  func testMinimumCount() throws {
    let store = try makeStore(counted)
    let e = expectStoreError(.validation) { try store.add("Team", ["name": "empty"]) }
    XCTAssertEqual(e?.details["min"], 1)
    XCTAssertEqual(e?.details["count"], 0)
    XCTAssertEqual(e?.details["relationship"], "players")
    let p = try store.add("Player", ["name": "p"])
    let t = try store.add("Team", ["name": "t", "players": ids(p)])
    expectStoreError(.validation) { try store.update(id: p, values: ["team": .null]) }
    expectStoreError(.validation) { try store.delete(id: p) }
    XCTAssertEqual(strings(try store.value(t, "players")), [p])
  }

  func testMaximumCount() throws {
    let store = try makeStore(counted)
    let players = try (1...4).map { try store.add("Player", ["name": .string("p\($0)")]) }
    let e = expectStoreError(.validation) { try store.add("Team", ["name": "big", "players": .array(players.map { .string($0) })]) }
    XCTAssertEqual(e?.details["max"], 3)
    XCTAssertEqual(e?.details["count"], 4)
    let t = try store.add("Team", ["name": "ok", "players": .array(players.prefix(3).map { .string($0) })])
    expectStoreError(.validation) { try store.update(id: players[3], values: ["team": .string(t)]) }
    XCTAssertEqual(try store.value(players[3], "team"), .null)
  }

  func testCountsAreCheckedOnTheLosingSideToo() throws {
    let store = try makeStore(counted)
    let p1 = try store.add("Player", ["name": "p1"])
    let p2 = try store.add("Player", ["name": "p2"])
    let a = try store.add("Team", ["name": "a", "players": ids(p1)])
    try store.add("Team", ["name": "b", "players": ids(p2)])
    // Stealing a's only player would leave a below its minimum.
    expectStoreError(.validation) { try store.add("Team", ["name": "c", "players": ids(p1)]) }
    XCTAssertEqual(strings(try store.value(a, "players")), [p1])
  }
}
