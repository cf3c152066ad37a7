import JSONCore
import XCTest

@testable import StoreEngine

/// `query.aggregate` in the engine: functions, grouping, having, sorting, paging, errors.
final class AggregateTests: XCTestCase {
  private var seed: SeedTasks!
  override func setUpWithError() throws { seed = try SeedTasks() }
  override func tearDown() { seed = nil }

  private func run(
    _ aggregates: [Aggregate], groupBy: [GroupingKey] = [], where predicate: String? = nil, having: String? = nil,
    sort: [AggregateSortKey] = [], limit: Int? = nil, offset: Int? = nil, entity: String = "Task", store: Store? = nil
  ) throws -> [AggregateGroup] {
    let r = try AggregateRequest.parsed(
      entity, aggregates, groupBy: groupBy, where: predicate, having: having, sort: sort, limit: limit, offset: offset)
    return try (store ?? seed.store).aggregate(r)
  }

  private let byCategory = [GroupingKey(keyPath: "category.name")]
  private let countAndTotal = [Aggregate(.count, as: "n"), Aggregate(.sum, "priority", as: "total")]

  /// The group keys of `groups` for `name`, in order.
  private func keys(_ groups: [AggregateGroup], _ name: String = "category.name") -> [JSONValue] {
    groups.map { $0.key[name] ?? "<missing>" }
  }

  // MARK: - Functions

  func testEveryFunctionOverAllObjects() throws {
    let groups = try run([
      Aggregate(.count, as: "n"), Aggregate(.count, "category", as: "categorized"),
      Aggregate(.count, "category", distinct: true, as: "categories"),
      Aggregate(.count, "priority", distinct: true, as: "priorities"), Aggregate(.sum, "priority", as: "total"),
      Aggregate(.sum, "priority", distinct: true, as: "distinctTotal"), Aggregate(.avg, "priority", as: "mean"),
      Aggregate(.avg, "priority", distinct: true, as: "distinctMean"), Aggregate(.min, "createdAt", as: "first"),
      Aggregate(.max, "createdAt", as: "last"), Aggregate(.min, "title", as: "a"), Aggregate(.max, "priority", as: "top"),
      Aggregate(.count, "category.name", distinct: true, as: "names"),
    ])
    XCTAssertEqual(groups.count, 1)
    XCTAssertEqual(groups[0].key, [:])
    XCTAssertEqual(
      groups[0].values,
      [
        "n": 8, "categorized": 6, "categories": 2, "priorities": 5, "total": 14, "distinctTotal": 11, "mean": 1.75, "distinctMean": 2.2,
        "first": "2026-03-27T09:00:00.000Z", "last": "2026-12-31T23:30:00.000Z", "a": "buy milk", "top": 5, "names": 2,
      ])
  }

  /// No objects: one group, count 0, sum 0 (as NSExpression's sum:), the rest nil; with a
  /// groupBy, no groups at all.
  func testEmptyMatch() throws {
    let none = try run(
      countAndTotal + [Aggregate(.avg, "priority", as: "mean"), Aggregate(.max, "createdAt", as: "last")], where: "priority > 99")
    XCTAssertEqual(none.map(\.values), [["n": 0, "total": 0, "mean": .null, "last": .null]])
    XCTAssertEqual(try run(countAndTotal, groupBy: byCategory, where: "priority > 99"), [])
  }

  func testDecimalsAndDoublesAggregateAsNumbers() throws {
    let lib = try Library()
    let all = try run(
      [Aggregate(.sum, "price", as: "total"), Aggregate(.min, "price", as: "cheapest"), Aggregate(.avg, "rating", as: "rating")],
      entity: "Book",
      store: lib.store)
    XCTAssertEqual(all[0].values["cheapest"], .double(9.99))
    XCTAssertEqual(all[0].values["total"]?.doubleValue ?? 0, 132.49, accuracy: 1e-9)
    XCTAssertEqual(all[0].values["rating"]?.doubleValue ?? 0, (4.5 + 3.9 + 4.1) / 3, accuracy: 1e-9)
    let byAuthor = try run(
      [Aggregate(.max, "price", as: "top")], groupBy: [GroupingKey(keyPath: "author.name")], entity: "Book", store: lib.store)
    XCTAssertEqual(keys(byAuthor, "author.name"), [.null, "Jane Austen", "Émile Zola"])
    XCTAssertEqual(byAuthor.map { $0.values["top"] }, [.double(100), .double(10), .double(12.5)])
  }

  func testToManyCountAsKeyAndGroup() throws {
    let sum = try run([Aggregate(.sum, "tasks.@count", as: "tasks")], entity: "Category")
    XCTAssertEqual(sum[0].values, ["tasks": 6])
    let grouped = try run([Aggregate(.count, as: "n")], groupBy: [GroupingKey(keyPath: "tasks.@count")], entity: "Category")
    XCTAssertEqual(grouped, [AggregateGroup(key: ["tasks.@count": 3], values: ["n": 2])])
  }

  // MARK: - Grouping

  func testGroupByToOneKeyPathAttributeAndRelationship() throws {
    let groups = try run(countAndTotal + [Aggregate(.min, "createdAt", as: "earliest")], groupBy: byCategory)
    XCTAssertEqual(keys(groups), [.null, "Home", "Work"])
    XCTAssertEqual(groups.map { $0.values["n"] }, [2, 3, 3])
    XCTAssertEqual(groups.map { $0.values["total"] }, [1, 6, 7])
    XCTAssertEqual(
      groups.map { $0.values["earliest"] }, ["2026-03-28T23:30:00.000Z", "2026-03-28T08:00:00.000Z", "2026-03-27T09:00:00.000Z"])

    let byRelationship = try run(countAndTotal, groupBy: [GroupingKey(keyPath: "category")])
    XCTAssertEqual(keys(byRelationship, "category"), [.null, .string(SeedTasks.home), .string(SeedTasks.work)])

    let two = try run([Aggregate(.count, as: "n")], groupBy: byCategory + [GroupingKey(keyPath: "isCompleted")])
    XCTAssertEqual(
      two.map(\.key),
      [
        ["category.name": .null, "isCompleted": false], ["category.name": "Home", "isCompleted": false],
        ["category.name": "Home", "isCompleted": true],
        ["category.name": "Work", "isCompleted": false],
      ])
    XCTAssertEqual(two.map { $0.values["n"] }, [2, 1, 2, 3])
  }

  /// The seed's tasks per day of creation in Paris (the night of the switch to summer time
  /// included), and per ISO week under a chosen name.
  func testGroupByDateBucket() throws {
    let days = try run(countAndTotal, groupBy: [GroupingKey(keyPath: "createdAt", bucket: .day, timeZone: "Europe/Paris")])
    XCTAssertEqual(keys(days, "createdAt"), ["2026-03-27", "2026-03-28", "2026-03-29", "2026-03-30", "2026-04-01", "2027-01-01"])
    XCTAssertEqual(days.map { $0.values["n"] }, [1, 1, 2, 2, 1, 1])
    XCTAssertEqual(days.map { $0.values["total"] }, [2, 1, 3, 3, 0, 5])
    let weeks = try run(
      [Aggregate(.count, as: "n")],
      groupBy: [
        GroupingKey(keyPath: "createdAt", bucket: .week, timeZone: "America/New_York", alias: "week"),
        GroupingKey(keyPath: "createdAt", bucket: .year, alias: "year"),
      ])
    XCTAssertEqual(
      weeks.map(\.key),
      [["week": "2026-W13", "year": "2026"], ["week": "2026-W14", "year": "2026"], ["week": "2026-W53", "year": "2026"]])
    XCTAssertEqual(weeks.map { $0.values["n"] }, [5, 2, 1])
  }

  func testGroupByWithoutAggregatesListsDistinctKeys() throws {
    XCTAssertEqual(
      try run([], groupBy: byCategory).map(\.key), [["category.name": .null], ["category.name": "Home"], ["category.name": "Work"]])
  }

  // MARK: - having, sort, paging

  func testHaving() throws {
    XCTAssertEqual(keys(try run(countAndTotal, groupBy: byCategory, having: "total > 1 AND n >= 2")), ["Home", "Work"])
    XCTAssertEqual(keys(try run(countAndTotal, groupBy: byCategory, having: "category.name == nil OR total >= 7")), [.null, "Work"])
    XCTAssertEqual(keys(try run(countAndTotal, groupBy: byCategory, having: "NOT (total < 5)")), ["Home", "Work"])
    XCTAssertEqual(keys(try run(countAndTotal, groupBy: byCategory, having: "category.name IN {'Home', nil}")), [.null, "Home"])
    XCTAssertEqual(keys(try run(countAndTotal, groupBy: byCategory, having: "total BETWEEN {2, 6}")), ["Home"])
    XCTAssertEqual(keys(try run(countAndTotal, groupBy: byCategory, having: "6 < total")), ["Work"])
    XCTAssertEqual(keys(try run(countAndTotal, groupBy: byCategory, having: "category.name != 'Home'")), [.null, "Work"])
    XCTAssertEqual(
      keys(try run(countAndTotal, groupBy: byCategory, having: "NOT (category.name == 'Home')")), [.null, "Work"],
      "NOT is two-valued as in where: the nil group is in, as with !=")
    // Dates compare as dates, relationships by id, buckets by key.
    let earliest = [Aggregate(.min, "createdAt", as: "earliest")]
    XCTAssertEqual(keys(try run(earliest, groupBy: byCategory, having: "earliest > '2026-03-28T12:00:00Z'")), [.null])
    let rel = try run(countAndTotal, groupBy: [GroupingKey(keyPath: "category")], having: "category IN {'Category/2', nil}")
    XCTAssertEqual(keys(rel, "category"), [.null, .string(SeedTasks.work)])
    let days = try run(
      countAndTotal, groupBy: [GroupingKey(keyPath: "createdAt", bucket: .day, timeZone: "Europe/Paris")],
      having: "createdAt >= '2026-03-29' AND n == 2")
    XCTAssertEqual(keys(days, "createdAt"), ["2026-03-29", "2026-03-30"])
    // Without groupBy, having filters the one group.
    XCTAssertEqual(try run(countAndTotal, having: "n > 100"), [])
  }

  func testSortAndPaging() throws {
    let byTotal = [AggregateSortKey(key: "total", ascending: false)]
    XCTAssertEqual(keys(try run(countAndTotal, groupBy: byCategory, sort: byTotal)), ["Work", "Home", .null])
    XCTAssertEqual(keys(try run(countAndTotal, groupBy: byCategory, sort: byTotal, limit: 2)), ["Work", "Home"])
    XCTAssertEqual(keys(try run(countAndTotal, groupBy: byCategory, sort: byTotal, limit: 1, offset: 1)), ["Home"])
    XCTAssertEqual(keys(try run(countAndTotal, groupBy: byCategory, sort: byTotal, offset: 2)), [.null])
    let byName = [AggregateSortKey(key: "category.name", ascending: false)]
    XCTAssertEqual(keys(try run(countAndTotal, groupBy: byCategory, sort: byName)), ["Work", "Home", .null])
    // Ties on n (3, 3) are broken by the group key, ascending.
    XCTAssertEqual(
      keys(try run(countAndTotal, groupBy: byCategory, sort: [AggregateSortKey(key: "n", ascending: false)])), ["Home", "Work", .null])
  }

  // MARK: - Errors

  private func expectInvalid(
    _ path: String, _ fragment: String, kind: StoreError.Kind = .invalidArgument, line: UInt = #line, _ body: () throws -> Any
  ) {
    let e = expectStoreError(kind, body, line: line)
    XCTAssertEqual(e?.place?.description, path, e?.message ?? "", line: line)
    XCTAssertEqual(e?.placeInData, true, line: line)
    XCTAssertTrue(e?.message.hasPrefix(path + ":") ?? false, e?.message ?? "", line: line)
    XCTAssertTrue(e?.message.contains(fragment) ?? false, e?.message ?? "", line: line)
  }

  func testKeyAndFunctionErrors() throws {
    expectInvalid("aggregates[0].key", "sum needs a key") { try self.run([Aggregate(.sum, as: "s")]) }
    expectInvalid("aggregates[0].distinct", "count distinct needs a key") {
      try self.run([Aggregate(.count, distinct: true, as: "n")])
    }
    expectInvalid("aggregates[0].distinct", "distinct applies to count, sum and avg, not min") {
      try self.run([Aggregate(.min, "priority", distinct: true, as: "m")])
    }
    expectInvalid("aggregates[1].key", "sum needs a numeric attribute, but 'title' is string") {
      try self.run([Aggregate(.count, as: "n"), Aggregate(.sum, "title", as: "s")])
    }
    expectInvalid("aggregates[0].key", "avg needs a numeric attribute, but 'createdAt' is date") {
      try self.run([Aggregate(.avg, "createdAt", as: "a")])
    }
    expectInvalid("aggregates[0].key", "max needs a number, date or string attribute, but 'isCompleted' is bool") {
      try self.run([Aggregate(.max, "isCompleted", as: "m")])
    }
    expectInvalid("aggregates[0].key", "'category' is a to-one relationship") {
      try self.run([Aggregate(.sum, "category", as: "s")])
    }
    expectInvalid("aggregates[0].key", "'nope' is not an attribute or relationship of entity 'Task'") {
      try self.run([Aggregate(.count, "nope", as: "n")])
    }
    expectInvalid("groupBy[0]", "'category.tasks' is a to-many relationship") {
      try self.run([Aggregate(.count, as: "n")], groupBy: [GroupingKey(keyPath: "category.tasks")])
    }
    expectInvalid("groupBy[0].bucket", "'month' buckets need a date attribute, but 'priority' is int") {
      try self.run([Aggregate(.count, as: "n")], groupBy: [GroupingKey(keyPath: "priority", bucket: .month)])
    }
    expectInvalid("groupBy[0].timeZone", "unknown time zone 'Europe/Atlantis'") {
      try self.run([Aggregate(.count, as: "n")], groupBy: [GroupingKey(keyPath: "createdAt", bucket: .day, timeZone: "Europe/Atlantis")])
    }
    expectInvalid("aggregates", "at least one aggregate") { try self.run([]) }
    expectStoreError(.notFound) { try self.run([Aggregate(.count, as: "n")], entity: "Nope") }
    expectStoreError(.predicate) { try self.run([Aggregate(.count, as: "n")], where: "nope == 1") }
  }

  func testNameErrors() throws {
    let n = Aggregate(.count, as: "n")
    expectInvalid("aggregates[0].as", "'total count' is not an identifier") { try self.run([Aggregate(.count, as: "total count")]) }
    expectInvalid("aggregates[1].as", "'n' is already used by aggregates[0].as") { try self.run([n, n]) }
    expectInvalid("aggregates[0].as", "'isCompleted' is already used by groupBy[0]") {
      try self.run([Aggregate(.count, as: "isCompleted")], groupBy: [GroupingKey(keyPath: "isCompleted")])
    }
    expectInvalid("groupBy[1]", "the group name 'createdAt' is already used by groupBy[0]") {
      try self.run([n], groupBy: [GroupingKey(keyPath: "createdAt", bucket: .day), GroupingKey(keyPath: "createdAt", bucket: .month)])
    }
    expectInvalid("groupBy[0].as", "'1st' is not an identifier") {
      try self.run([n], groupBy: [GroupingKey(keyPath: "createdAt", alias: "1st")])
    }
    expectInvalid("sort[0].key", "'total' is not a group key or aggregate alias (use 'category.name', 'n')") {
      try self.run([n], groupBy: self.byCategory, sort: [AggregateSortKey(key: "total")])
    }
  }

  func testHavingErrors() throws {
    func expectHaving(_ text: String, _ fragment: String, offset: Int, line: UInt = #line) {
      let e = expectStoreError(.predicate, { try self.run(self.countAndTotal, groupBy: self.byCategory, having: text) }, line: line)
      XCTAssertEqual(e?.place, ErrorPlace(.having), line: line)
      XCTAssertEqual(e?.placeInData, true, line: line)
      XCTAssertEqual(e?.details["offset"], .int(Int64(offset)), e?.message ?? "", line: line)
      XCTAssertTrue(e?.message.hasPrefix("having: ") ?? false, e?.message ?? "", line: line)
      XCTAssertTrue(e?.message.contains(fragment) ?? false, e?.message ?? "", line: line)
    }
    expectHaving(
      "n > 1 AND count > 2", "'count' is not a group key or aggregate alias; having can use 'category.name', 'n', 'total'", offset: 10)
    expectHaving("total BEGINSWITH '1'", "BEGINSWITH is not supported in having", offset: 6)
    expectHaving("total < nil", "'total' cannot be ordered against nil", offset: 6)
    expectHaving("total > n", "having compares with a value, not with 'n'", offset: 8)
    expectHaving("n == 'two'", "'n' is compared with string, but it holds an integer", offset: 2)
    expectHaving("category.name ==[c] 'home'", "[c]/[d] options are not supported in having", offset: 14)
    expectHaving("ANY total > 1", "ANY has no meaning in having", offset: 10)
    expectHaving("total IN 3", "IN needs an array", offset: 6)
  }
}

private extension JSONValue {
  var doubleValue: Double? {
    switch self {
    case .double(let d): return d
    case .int(let i): return Double(i)
    default: return nil
    }
  }
}
