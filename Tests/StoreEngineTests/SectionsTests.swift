import JSONCore
import SchemaModel
import XCTest

@testable import StoreEngine

/// `sectionBy`: NSFetchedResultsController's grouping of a fetched page.
final class SectionsTests: XCTestCase {
  private var seed: SeedTasks!
  override func setUpWithError() throws { seed = try SeedTasks() }
  override func tearDown() { seed = nil }

  private func fetch(
    _ key: GroupingKey, sort: [SortKey] = [], where predicate: String? = nil, limit: Int? = nil, offset: Int? = nil,
    store: Store? = nil, entity: String = "Task"
  ) throws -> (ids: [String], sections: [Section]) {
    var r = FetchRequest(entity: entity, predicate: try predicate.map { try PredicateParser.parse($0) })
    r.sectionBy = key
    r.sort = sort
    r.limit = limit
    r.offset = offset
    let result = try (store ?? seed.store).fetchWithSections(r)
    return (result.objects.compactMap { $0["_id"]?.stringValue }, try XCTUnwrap(result.sections))
  }

  private func s(_ key: JSONValue, _ start: Int, _ count: Int) -> Section { Section(key: key, start: start, count: count) }

  // MARK: - Key paths

  /// The seed's task list by category name: tasks without a category form the nil
  /// section, first (nil sorts first ascending); the sort given comes after the section key.
  func testByToOneKeyPathWithNils() throws {
    let r = try fetch(GroupingKey(keyPath: "category.name"), sort: [SortKey(keyPath: "title")])
    XCTAssertEqual(r.ids, tasks(3, 6, 2, 4, 5, 8, 7, 1))
    XCTAssertEqual(r.sections, [s(.null, 0, 2), s("Home", 2, 3), s("Work", 5, 3)])
    XCTAssertEqual(r.sections.map(\.end), [2, 5, 8])
  }

  func testByAttribute() throws {
    let r = try fetch(GroupingKey(keyPath: "isCompleted"))
    XCTAssertEqual(r.ids, tasks(1, 3, 4, 6, 7, 8, 2, 5))
    XCTAssertEqual(r.sections, [s(false, 0, 6), s(true, 6, 2)])
  }

  func testByToOneRelationshipGivesIDs() throws {
    let r = try fetch(GroupingKey(keyPath: "category"))
    XCTAssertEqual(r.sections, [s(.null, 0, 2), s(.string(SeedTasks.home), 2, 3), s(.string(SeedTasks.work), 5, 3)])
  }

  /// A first sort key on the section key path is kept, direction included.
  func testMatchingFirstSortKeyIsKept() throws {
    let r = try fetch(GroupingKey(keyPath: "category.name"), sort: [SortKey(keyPath: "category.name", ascending: false)])
    XCTAssertEqual(r.sections.map(\.key), ["Work", "Home", .null])
    XCTAssertEqual(r.ids, tasks(1, 7, 8, 2, 4, 5, 3, 6))
  }

  /// Limit and offset apply to objects; sections describe the returned page.
  func testSectionsDescribeThePage() throws {
    let r = try fetch(GroupingKey(keyPath: "category.name"), sort: [SortKey(keyPath: "title")], limit: 4, offset: 1)
    XCTAssertEqual(r.ids, tasks(6, 2, 4, 5))
    XCTAssertEqual(r.sections, [s(.null, 0, 1), s("Home", 1, 3)])
    let empty = try fetch(GroupingKey(keyPath: "category.name"), where: "priority > 10")
    XCTAssertEqual(empty.ids, [])
    XCTAssertEqual(empty.sections, [])
  }

  // MARK: - Date buckets

  /// The seed's task list by day of creation, in Paris and in UTC: tasks 3 and 5 change
  /// day (5 because summer time started that night).
  func testByDayInParisAndUTC() throws {
    let paris = try fetch(GroupingKey(keyPath: "createdAt", bucket: .day, timeZone: "Europe/Paris"))
    XCTAssertEqual(paris.ids, tasks(1, 2, 3, 4, 5, 6, 7, 8))
    XCTAssertEqual(
      paris.sections,
      [
        s("2026-03-27", 0, 1), s("2026-03-28", 1, 1), s("2026-03-29", 2, 2), s("2026-03-30", 4, 2), s("2026-04-01", 6, 1),
        s("2027-01-01", 7, 1),
      ])
    let utc = try fetch(GroupingKey(keyPath: "createdAt", bucket: .day))
    XCTAssertEqual(
      utc.sections,
      [
        s("2026-03-27", 0, 1), s("2026-03-28", 1, 2), s("2026-03-29", 3, 2), s("2026-03-30", 5, 1), s("2026-04-01", 6, 1),
        s("2026-12-31", 7, 1),
      ])
    let fixed = try fetch(GroupingKey(keyPath: "createdAt", bucket: .day, timeZone: "-05:00"))
    XCTAssertEqual(fixed.sections.map(\.key), ["2026-03-27", "2026-03-28", "2026-03-29", "2026-03-30", "2026-04-01", "2026-12-31"])
    XCTAssertEqual(fixed.sections.map(\.count), [1, 3, 1, 1, 1, 1])
  }

  func testByWeekMonthYear() throws {
    let week = try fetch(GroupingKey(keyPath: "createdAt", bucket: .week, timeZone: "Europe/Paris"))
    XCTAssertEqual(week.sections, [s("2026-W13", 0, 4), s("2026-W14", 4, 3), s("2026-W53", 7, 1)])
    let weekUTC = try fetch(GroupingKey(keyPath: "createdAt", bucket: .week))
    XCTAssertEqual(weekUTC.sections, [s("2026-W13", 0, 5), s("2026-W14", 5, 2), s("2026-W53", 7, 1)])
    let month = try fetch(GroupingKey(keyPath: "createdAt", bucket: .month, timeZone: "Europe/Paris"))
    XCTAssertEqual(month.sections, [s("2026-03", 0, 6), s("2026-04", 6, 1), s("2027-01", 7, 1)])
    let year = try fetch(GroupingKey(keyPath: "createdAt", bucket: .year, timeZone: "Europe/Paris"))
    XCTAssertEqual(year.sections, [s("2026", 0, 7), s("2027", 7, 1)])
    XCTAssertEqual(try fetch(GroupingKey(keyPath: "createdAt", bucket: .year)).sections, [s("2026", 0, 8)])
  }

  /// Newest first: the descending date sort is kept and the days come in that order.
  func testDescendingDateSortKeepsDaysTogether() throws {
    let r = try fetch(
      GroupingKey(keyPath: "createdAt", bucket: .day, timeZone: "Europe/Paris"), sort: [SortKey(keyPath: "createdAt", ascending: false)],
      limit: 4)
    XCTAssertEqual(r.ids, tasks(8, 7, 6, 5))
    XCTAssertEqual(r.sections, [s("2027-01-01", 0, 1), s("2026-04-01", 1, 1), s("2026-03-30", 2, 2)])
  }

  /// Around New York's and Paris's switches, in both directions.
  func testDayBucketsAcrossDSTChanges() throws {
    let store = try makeStore(schema(entity("Event", [attr("at", "date", optional: true)])))
    for at in [
      "2026-03-08T04:59:00Z", "2026-03-08T05:00:00Z", "2026-03-09T03:59:00Z", "2026-03-09T04:00:00Z", "2026-10-25T22:59:00Z",
      "2026-10-25T23:00:00Z",
    ] {
      try store.add("Event", ["at": .string(at)])
    }
    try store.add("Event", [:])
    let ny = try fetch(GroupingKey(keyPath: "at", bucket: .day, timeZone: "America/New_York"), store: store, entity: "Event")
    XCTAssertEqual(ny.sections.map(\.key), [.null, "2026-03-07", "2026-03-08", "2026-03-09", "2026-10-25"])
    XCTAssertEqual(ny.sections.map(\.count), [1, 1, 2, 1, 2])
    let paris = try fetch(GroupingKey(keyPath: "at", bucket: .day, timeZone: "Europe/Paris"), store: store, entity: "Event")
    XCTAssertEqual(paris.sections.map(\.key), [.null, "2026-03-08", "2026-03-09", "2026-10-25", "2026-10-26"])
    XCTAssertEqual(paris.sections.map(\.count), [1, 2, 2, 1, 1])
  }

  // MARK: - Errors

  func testErrorsNameTheParam() throws {
    func expectInvalid(_ key: GroupingKey, _ path: String, _ fragment: String, line: UInt = #line) {
      let e = expectStoreError(.invalidArgument, { try self.fetch(key) }, line: line)
      XCTAssertEqual(e?.place?.description, path, line: line)
      XCTAssertEqual(e?.placeInData, true, line: line)
      XCTAssertTrue(e?.message.contains(fragment) ?? false, e?.message ?? "", line: line)
      XCTAssertTrue(e?.message.hasPrefix(path) ?? false, e?.message ?? "", line: line)
    }
    expectInvalid(GroupingKey(keyPath: "colour"), "sectionBy", "'colour' is not an attribute or relationship of entity 'Task'")
    expectInvalid(GroupingKey(keyPath: "category.tasks"), "sectionBy", "to-many")
    expectInvalid(GroupingKey(keyPath: "title", bucket: .day), "sectionBy.bucket", "buckets need a date attribute")
    expectInvalid(GroupingKey(keyPath: "createdAt", bucket: .day, timeZone: "Mars/Base"), "sectionBy.timeZone", "'Mars/Base'")
    expectInvalid(GroupingKey(keyPath: "createdAt", bucket: .day, timeZone: "+19:00"), "sectionBy.timeZone", "'+19:00'")
    let lib = try makeStore(librarySchema)
    let e = expectStoreError(.invalidArgument) { try self.fetch(GroupingKey(keyPath: "meta"), store: lib, entity: "Book") }
    XCTAssertTrue(e?.message.contains("json") ?? false)
  }

  /// `ms_bucket` in hand-written SQL: NULL in, NULL out; an unknown zone is an SQL error
  /// that names it.
  func testSQLFunction() throws {
    let c = seed.store.connection
    XCTAssertEqual(
      try c.scalar("SELECT ms_bucket(?, 'day', 'Europe/Paris')", [.real(ISODate.parse("2026-03-28T23:30:00Z")!)]), .text("2026-03-29"))
    XCTAssertEqual(try c.scalar("SELECT ms_bucket(NULL, 'day', 'UTC')"), .null)
    XCTAssertThrowsError(try c.scalar("SELECT ms_bucket(0, 'day', 'Mars/Base')")) { XCTAssertTrue("\($0)".contains("Mars/Base"), "\($0)") }
    XCTAssertThrowsError(try c.scalar("SELECT ms_bucket(0, 'hour', 'UTC')"))
  }
}
