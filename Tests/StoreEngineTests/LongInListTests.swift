import JSONCore
import TestSupport
import XCTest

@testable import StoreEngine

/// `IN` lists longer than `SQLBuilder.inlineMembers` are bound as one JSON array: any
/// length works (a statement binds at most 32,766 values) and answers as the short form.
final class LongInListTests: XCTestCase {
  private func makeItems(_ count: Int) throws -> Store {
    let store = try makeStore(
      schema(entity("Item", [attr("title", "string", optional: true), attr("n", "int", optional: true), attr("x", "double", optional: true)])))
    for i in 0..<count {
      let values: JSONObject =
        i % 10 == 9 ? ["title": .null, "n": .null, "x": .null] : ["title": .string("Item \(i)"), "n": .int(Int64(i)), "x": .double(Double(i) / 2)]
      _ = try store.add("Item", values)
    }
    return store
  }

  func testLongListsAnswerAsShortOnesDoAtAnyLength() throws {
    let store = try makeItems(1_000)
    let evens: [JSONValue] = stride(from: 0, to: 40_000, by: 2).map { .int(Int64($0)) }
    let expectedEvens = (0..<1_000).filter { $0 % 2 == 0 && $0 % 10 != 9 }.count
    XCTAssertEqual(try store.idsWhere("Item", "n IN %@", [.array(evens)]).count, expectedEvens)
    XCTAssertEqual(try store.idsWhere("Item", "n IN %@", [.array(evens + [.null])]).count, expectedEvens + 100, "nil in the list matches nil rows")
    XCTAssertEqual(try store.idsWhere("Item", "NOT (n IN %@)", [.array(evens)]).count, 1_000 - expectedEvens, "nil rows are not in the list")
    let upper: [JSONValue] = (0..<40_000).map { .string("ITEM \($0)") }
    XCTAssertEqual(try store.idsWhere("Item", "title IN[c] %@", [.array(upper)]).count, 900)
    XCTAssertEqual(try store.idsWhere("Item", "title IN %@", [.array(upper)]).count, 0, "without [c] case matters")
    let halves: [JSONValue] = (0..<2_000).map { .double(Double($0) / 2) }
    XCTAssertEqual(try store.idsWhere("Item", "x IN %@", [.array(halves)]).count, 900)
    let some = Array(try store.idsWhere("Item").prefix(700))
    XCTAssertEqual(try store.idsWhere("Item", "SELF IN %@", [.array(some.map { .string($0) })]), some)
    // The same list just under and just over the inline length gives the same answer.
    for n in [SQLBuilder.inlineMembers, SQLBuilder.inlineMembers + 1] {
      let list: [JSONValue] = (0..<n).map { .int(Int64($0)) }
      XCTAssertEqual(try store.idsWhere("Item", "n IN %@", [.array(list)]).count, (0..<n).filter { $0 % 10 != 9 }.count, "\(n) members")
    }
  }
}
