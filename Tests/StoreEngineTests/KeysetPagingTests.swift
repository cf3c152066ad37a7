import JSONCore
import XCTest

@testable import StoreEngine

/// Paging as `modelstore studio`'s page pages a table: a sort, a limit, and for the next
/// page a keyset predicate on the sort key and the object's key, never `offset`
/// (`title >= v AND (title > v OR SELF > id)`; descending `<=`, `<`, and still `SELF > id`,
/// as ties always follow the key ascending). Walking every page that way gives exactly the
/// sorted table, ties included; and with an index on the sort key a page deep in the table
/// costs what the first does (SQLite's steps, not time: the plan is a range search of the
/// index, `SEARCH t USING INDEX ... (title>?)`, with no sort of the whole table).
final class KeysetPagingTests: XCTestCase {
  static let count = 6_000
  static let page = 50

  private func makeItems() throws -> Store {
    let store = try makeStore(
      schema(entity("Item", [attr("title", "string", indexed: true), attr("rank", "int"), attr("note", "string", optional: true)])))
    // Each title four times (ties), inserted out of order.
    let changes: [Change] = (0..<Self.count).map { i in
      let t = (i * 7919) % Self.count
      return .insert(
        entity: "Item", ref: nil, values: ["title": .string("t\(String(format: "%05d", t / 4))"), "rank": .int(Int64(t % 97))])
    }
    _ = try store.save(changes)
    return store
  }

  private func request(_ key: String?, ascending: Bool, after last: JSONObject?) throws -> FetchRequest {
    var r = FetchRequest(entity: "Item")
    if let key { r.sort = [SortKey(keyPath: key, ascending: ascending)] }
    r.limit = Self.page
    guard let last, let id = last["_id"] else { return r }
    guard let key, let value = last[key] else {
      r.predicate = try PredicateParser.parse("SELF > %@", args: [id])
      return r
    }
    let (strict, wide) = ascending ? (">", ">=") : ("<", "<=")
    r.predicate = try PredicateParser.parse("\(key) \(wide) %@ AND (\(key) \(strict) %@ OR SELF > %@)", args: [value, value, id])
    return r
  }

  /// Every page by keyset, in order: the ids, and the SQLite steps of each page.
  private func walk(_ store: Store, _ key: String?, ascending: Bool) throws -> (ids: [String], steps: [Int]) {
    var ids: [String] = []
    var steps: [Int] = []
    var last: JSONObject?
    while true {
      let before = store.connection.vmSteps
      let objects = try store.fetch(try request(key, ascending: ascending, after: last))
      steps.append(store.connection.vmSteps - before)
      ids += objects.compactMap { $0["_id"]?.stringValue }
      guard objects.count == Self.page else { return (ids, steps) }
      last = objects.last
    }
  }

  func testWalkingByKeysetGivesTheSortedTableWithItsTies() throws {
    let store = try makeItems()
    for (key, ascending) in [("title", true), ("title", false), ("rank", true), ("rank", false)] as [(String?, Bool)] + [(nil, true)] {
      var all = FetchRequest(entity: "Item")
      if let key { all.sort = [SortKey(keyPath: key, ascending: ascending)] }
      let sorted = try store.fetch(all).compactMap { $0["_id"]?.stringValue }
      XCTAssertEqual(sorted.count, Self.count)
      XCTAssertEqual(try walk(store, key, ascending: ascending).ids, sorted, "\(key ?? "key") \(ascending ? "ascending" : "descending")")
    }
  }

  func testAPageDeepInAnIndexedSortCostsWhatTheFirstDoes() throws {
    let store = try makeItems()
    for (key, ascending) in [("title", true), ("title", false)] as [(String?, Bool)] + [(nil, true)] {
      let steps = try walk(store, key, ascending: ascending).steps
      let first = steps[0]
      let deepest = steps.dropLast().max() ?? 0
      XCTAssertLessThanOrEqual(deepest, first * 2, "\(key ?? "key"): \(steps)")
      // What the same page costs by offset, at the end of the table: every row before it.
      var byOffset = try request(key, ascending: ascending, after: nil)
      byOffset.offset = Self.count - Self.page
      let before = store.connection.vmSteps
      _ = try store.fetch(byOffset)
      XCTAssertGreaterThan(store.connection.vmSteps - before, deepest * 10, "\(key ?? "key"): offset reads every row before the page")
    }
  }
}
