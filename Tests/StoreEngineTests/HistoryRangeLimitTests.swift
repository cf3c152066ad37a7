import JSONCore
import SQLiteCore
import XCTest

@testable import StoreEngine

/// A history row stores runs of keys (`[first, last]`); a damaged or hostile one that names
/// billions of ids must not make `history.fetch` or a live query spell them all out.
final class HistoryRangeLimitTests: XCTestCase {
  func testAHugeRunInAHistoryRowIsRefusedNotSpelledOut() throws {
    let store = try makeStore(taskCategorySchema)
    _ = try store.insert(entity: "Category", values: ["name": "home"])
    for (first, last) in [(Int64(1), Int64.max), (Int64.min, Int64.max), (Int64(1), Int64(HistoryTransaction.maxSpelledIDs) + 1)] {
      let changes = "[{\"op\":\"insert\",\"entity\":\"Category\",\"pks\":[[\(first),\(last)]]}]"
      try store.connection.run(
        "INSERT INTO \(Store.historyTable) (\"timestamp\", \"author\", \"changes\") VALUES (0, NULL, ?)", [.text(changes)])
      let t = try XCTUnwrap(try store.history().last)
      XCTAssertThrowsError(try t.json()) { XCTAssertEqual(($0 as? StoreError)?.kind, .storage) }
      XCTAssertEqual(t.ids, [], "the live query is told everything changed instead")
      XCTAssertTrue(t.hasBulk)
    }
    let ordinary = "[{\"op\":\"insert\",\"entity\":\"Category\",\"pks\":[[1,3]]}]"
    try store.connection.run("INSERT INTO \(Store.historyTable) (\"timestamp\", \"author\", \"changes\") VALUES (0, NULL, ?)", [.text(ordinary)])
    let t = try XCTUnwrap(try store.history().last)
    XCTAssertEqual(t.ids, ["Category/1", "Category/2", "Category/3"])
    XCTAssertFalse(t.hasBulk)
  }
}
