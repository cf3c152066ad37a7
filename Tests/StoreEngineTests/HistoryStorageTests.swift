import JSONCore
import SQLiteCore
import XCTest

@testable import StoreEngine

/// Format 2's history rows: the compact change blob, tokens that are never handed out
/// twice, damaged rows reported, and retention.
final class HistoryStorageTests: XCTestCase {
  private func groups(_ text: String) throws -> JSONValue { try JSONParser.parse(text) }

  func testTheBlobGivesBackEveryKindOfGroup() throws {
    let text = """
      [{"op":"insert","entity":"Task","pks":[[1,3],[7,7],[2,2]]},
       {"op":"update","entity":"Task","keys":["priority","title"],"pks":[[9223372036854775806,9223372036854775807]]},
       {"op":"update","entity":"Ünïcode","keys":[],"pks":[[5,5]]},
       {"op":"delete","entity":"Category","pks":[[4,4],[1,2]]},
       {"op":"delete","entity":"Category","pks":[[12,12]],"tombstone":{"name":"home","n":1.5}},
       {"op":"bulk","kind":"import","entities":["Task","Category"],"count":3}]
      """
    let g = try groups(text)
    let blob = ChangeEncoding.encode(g)
    XCTAssertEqual(try ChangeEncoding.decode(blob), g)
    // One insert of one object: a handful of bytes, where the JSON text took 46.
    let one = ChangeEncoding.encode(try groups(#"[{"op":"insert","entity":"Task","pks":[[200000,200000]]}]"#))
    XCTAssertLessThanOrEqual(one.count, 16)
  }

  func testEveryTruncationOrCorruptionOfABlobIsRefusedNotMisread() throws {
    let blob = ChangeEncoding.encode(
      try groups(#"[{"op":"update","entity":"Task","keys":["title"],"pks":[[1,3]]},{"op":"bulk","count":3}]"#))
    for n in 0..<blob.count {
      XCTAssertThrowsError(try ChangeEncoding.decode(Array(blob[0..<n])), "cut at \(n)")
    }
    XCTAssertThrowsError(try ChangeEncoding.decode([2, 9]), "unknown entry kind")
    XCTAssertThrowsError(try ChangeEncoding.decode([7]), "unknown version")
    XCTAssertThrowsError(try ChangeEncoding.decode([2, 1, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F]), "a name longer than the blob")
    XCTAssertThrowsError(try ChangeEncoding.decode([2] + [UInt8](repeating: 0x80, count: 12)), "a varint that never ends")
  }

  func testADamagedRowIsAnErrorNamingItsTokenNotAnEmptyTransaction() throws {
    let store = try makeStore(taskCategorySchema)
    _ = try store.insert(entity: "Category", values: ["name": "home"])
    try store.connection.run(
      "INSERT INTO \(Store.historyTable) (\"timestamp\", \"author\", \"changes\") VALUES (0, NULL, ?)", [.blob([2, 1, 4, 84])])
    XCTAssertThrowsError(try store.history()) { e in
      XCTAssertEqual((e as? StoreError)?.kind, .storage)
      XCTAssertTrue((e as? StoreError)?.message.contains("history transaction 2") == true, "\(e)")
    }
  }

  func testRowsAreStoredAsBlobsAndReadBackAsBefore() throws {
    let store = try makeStore(taskCategorySchema)
    let c = try store.insert(entity: "Category", values: ["name": "home"])
    _ = try store.update(id: c["_id"]!.stringValue!, values: ["color": "red"])
    _ = try store.delete(id: c["_id"]!.stringValue!)
    XCTAssertEqual(
      try store.connection.scalar("SELECT group_concat(typeof(\"changes\")) FROM \(Store.historyTable)"), .text("blob,blob,blob"))
    let h = try store.history()
    XCTAssertEqual(h.map(\.token), [1, 2, 3])
    XCTAssertEqual(h[0].ids, ["Category/1"])
    XCTAssertEqual(try h[1].json()["changes"], try groups(#"[{"op":"update","entity":"Category","keys":["color"],"ids":["Category/1"]}]"#))
    XCTAssertEqual(h[2].changes.arrayValue?[0]["tombstone"], try groups(#"{"name":"home"}"#))
  }

  func testTokensAreNeverHandedOutTwiceEvenWhenEveryRowIsDeleted() throws {
    let store = try makeStore(taskCategorySchema)
    for i in 0..<3 { _ = try store.insert(entity: "Category", values: ["name": .string("c\(i)")]) }
    XCTAssertEqual(try store.latestHistoryToken(), 3)
    XCTAssertEqual(try store.deleteHistory(before: 100), 3)
    XCTAssertEqual(try store.history().count, 0)
    _ = try store.insert(entity: "Category", values: ["name": "next"])
    XCTAssertEqual(try store.history().map(\.token), [4])
    // A deletion that keeps the newest row needs no record, and changes nothing after it.
    _ = try store.insert(entity: "Category", values: ["name": "after"])
    XCTAssertEqual(try store.deleteHistory(before: 5), 1)
    _ = try store.insert(entity: "Category", values: ["name": "last"])
    XCTAssertEqual(try store.history().map(\.token), [5, 6])
  }

  func testRetentionByCountKeepsTheNewestTransactions() throws {
    let store = try makeStore(taskCategorySchema)
    store.historyRetention = .count(50)
    for i in 0..<300 { _ = try store.insert(entity: "Category", values: ["name": .string("c\(i)")]) }
    let tokens = try store.history().map(\.token)
    XCTAssertEqual(tokens.last, 300)
    XCTAssertGreaterThanOrEqual(tokens.count, 50)
    XCTAssertLessThanOrEqual(tokens.count, 50 + Int(HistoryRetention.slack(50)))
    XCTAssertEqual(tokens, Array(tokens.first!...300), "the newest, without gaps")
  }

  func testRetentionByDurationDropsOldTransactions() throws {
    let store = try makeStore(taskCategorySchema)
    for i in 0..<5 { _ = try store.insert(entity: "Category", values: ["name": .string("old\(i)")]) }
    // Age the first four by a day; the fifth stays young.
    try store.connection.run("UPDATE \(Store.historyTable) SET \"timestamp\" = \"timestamp\" - 86400 WHERE \"token\" <= 4")
    store.historyRetention = .duration(3600)
    _ = try store.insert(entity: "Category", values: ["name": "new"])
    XCTAssertEqual(try store.history().map(\.token), [5, 6])
  }

  func testRetentionTextForms() throws {
    XCTAssertEqual(try HistoryRetention.parse("forever"), .forever)
    XCTAssertEqual(try HistoryRetention.parse("100000"), .count(100000))
    XCTAssertEqual(try HistoryRetention.parse("90s"), .duration(90))
    XCTAssertEqual(try HistoryRetention.parse("7d"), .duration(7 * 86400))
    XCTAssertEqual(try HistoryRetention.parse("2w").description, "2w")
    XCTAssertEqual(try HistoryRetention.parse("120m").description, "2h")
    for bad in ["", "0", "-5", "7x", "d", "1.5h", "0d", "forever ", "99999999999999999999"] {
      XCTAssertThrowsError(try HistoryRetention.parse(bad), bad) { XCTAssertEqual(($0 as? StoreError)?.kind, .invalidArgument) }
    }
  }

  /// A load of one request per object keeps a history row per object: those rows must be a
  /// small part of the file, not several times the data (sizes are exact, not timed).
  func testAPerObjectLoadDoesNotMakeTheFileManyTimesBigger() throws {
    func fileSize(perRow: Bool) throws -> Int64 {
      let path = temporaryPath(self)
      let store = try Store(path: path)
      _ = try store.define(taskCategorySchema)
      let values: (Int) -> JSONObject = { ["title": .string("task \($0)"), "priority": .int(Int64($0 % 5))] }
      if perRow {
        for i in 0..<10_000 { _ = try store.insert(entity: "Task", values: values(i)) }
      } else {
        _ = try store.save((0..<10_000).map { .insert(entity: "Task", ref: nil, values: values($0)) })
      }
      try store.connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
      let pages = try store.connection.scalar("PRAGMA page_count")
      store.close()
      guard case .integer(let n)? = pages else { return 0 }
      return n
    }
    let perRow = try fileSize(perRow: true)
    let oneSave = try fileSize(perRow: false)
    print("history size: per-object load \(perRow) pages, one save \(oneSave) pages")
    XCTAssertLessThan(Double(perRow) / Double(oneSave), 2.0, "\(perRow) pages vs \(oneSave)")
  }
}
