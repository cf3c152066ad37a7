import DatabaseKit
import JSONCore
import PostgresCore
import SchemaModel
import TestSupport
import XCTest

@testable import StoreEngine

/// The engine's own SQL on PostgreSQL: the differential test's store (DiffModel) copied
/// into a PostgreSQL schema (`PostgresCopy`), then thousands of its random predicates,
/// sorts, limits and offsets, and a set of aggregates, sections and object reads, each
/// compiled by the engine in PostgreSQL's dialect and run there through psql, must give
/// what the store gives on SQLite. Runs when `MODELSTORE_TEST_PG` is set (make test sets
/// it). `MODELSTORE_DIFF_SEED` and `MODELSTORE_PG_DIFF_CASES` (default 1500) as in
/// DifferentialQueryTests.
final class PostgresDifferentialTests: XCTestCase {
  static var caseCount: Int {
    guard let cs = getenv("MODELSTORE_PG_DIFF_CASES"), let n = Int(String(cString: cs)) else { return 1500 }
    return n
  }

  private var store: Store!
  private var pg: PostgresScratch!
  private let dialect = PostgresDialect()

  override func setUpWithError() throws {
    guard let scratch = try PostgresScratch.fromEnvironment() else {
      throw XCTSkip("PostgreSQL forms not run: MODELSTORE_TEST_PG is not set (make test sets it)")
    }
    pg = scratch
    store = try Store(path: nil)
    _ = try store.define(DSchema.json)
    var rng = DiffRandom(seed: DifferentialQueryTests.seed)
    try DData.load(into: store, rng: rng.fork())
  }

  override func tearDown() {
    store?.close()
    pg?.drop()
  }

  /// A case: what SQLite gave, and the statement PostgreSQL runs; an aggregate's rows are
  /// compared as the engine reads them on each (`kinds`, by column).
  private struct Case {
    var label: String
    var sqlite: [[SQLValue]]
    var statement: PostgresScratch.Statement
    var kinds: (sqlite: [ColumnKind], postgres: [ColumnKind])?
  }

  func testPredicatesSortsAndPages() throws {
    var rng = DiffRandom(seed: DifferentialQueryTests.seed ^ 0x9)
    let world = try DWorld(store: store)
    var cases: [Case] = []
    for n in 0..<Self.caseCount {
      var crng = rng.fork()
      let entity = ["Book", "Author", "Tag"][crng.weighted([60, 28, 12])]
      var gen = DGenerator(rng: crng.fork(), world: world, features: Set(DFeature.allCases))
      let pred: DPred? = crng.chance(0.03) ? nil : gen.predicate(entity)
      let rendered = pred.map { DRenderer.render($0, rng: crng.fork()) }
      var request = FetchRequest(entity: entity)
      request.sort = gen.sort(entity)
      request.limit = crng.chance(0.5) ? nil : crng.int(in: 0...40)
      request.offset = crng.chance(0.55) ? nil : crng.int(in: 0...60)
      let label = "case \(n) on \(entity): \(rendered?.summary ?? "no predicate"), sort \(DifferentialQueryTests.describe(request.sort))"
      do {
        request.predicate = try rendered.map { try PredicateParser.parse($0.text, args: $0.args, variables: $0.variables) }
        let lite = try store.idsStatement(request, dialect: store.connection.dialect)
        let pgIDs = try store.idsStatement(request, dialect: dialect)
        cases.append(try sqliteCase(label + " (ids)", lite.sql, lite.args, pgIDs.sql, pgIDs.args))
        let liteCount = try store.countStatement(request, dialect: store.connection.dialect)
        let pgCount = try store.countStatement(request, dialect: dialect)
        cases.append(try sqliteCase(label + " (count)", liteCount.sql, liteCount.args, pgCount.sql, pgCount.args))
      } catch {
        continue  // refused alike on both engines: the SQL is not built
      }
    }
    try check(cases)
  }

  func testAggregatesAndSections() throws {
    func request(
      _ entity: String, _ aggregates: [Aggregate], _ groupBy: [GroupingKey], having: String? = nil, sort: [AggregateSortKey] = [],
      limit: Int? = nil, offset: Int? = nil
    ) throws -> AggregateRequest {
      try AggregateRequest.parsed(entity, aggregates, groupBy: groupBy, having: having, sort: sort, limit: limit, offset: offset)
    }
    let requests: [AggregateRequest] = [
      try request("Book", [Aggregate(.count, as: "n")], [GroupingKey(keyPath: "author")]),
      try request(
        "Book",
        [
          Aggregate(.sum, "pages", as: "pages"), Aggregate(.sum, "price", as: "price"), Aggregate(.sum, "rating", as: "rating"),
          Aggregate(.avg, "pages", as: "avgPages"), Aggregate(.avg, "price", as: "avgPrice"), Aggregate(.min, "title", as: "first"),
          Aggregate(.max, "title", as: "last"), Aggregate(.max, "released", as: "latest"),
          Aggregate(.count, "stock", distinct: true, as: "stocks"), Aggregate(.sum, "stock", as: "stockSum"),
        ], [GroupingKey(keyPath: "published")]),
      try request(
        "Book", [Aggregate(.sum, "rating", as: "r")], [GroupingKey(keyPath: "released", bucket: .month, timeZone: "Europe/Paris")],
        having: "r >= 0", sort: [AggregateSortKey(key: "r", ascending: false)], limit: 12, offset: 1),
      try request("Book", [Aggregate(.sum, "rating", as: "r")], [GroupingKey(keyPath: "author.name")], having: "r == 0 OR r == nil"),
      try request(
        "Author", [Aggregate(.count, as: "n")],
        [GroupingKey(keyPath: "born", bucket: .week, timeZone: "+05:30"), GroupingKey(keyPath: "books.@count", alias: "c")]),
      try request(
        "Book", [Aggregate(.avg, "rating", as: "a")], [GroupingKey(keyPath: "price")], having: "price > 10 AND a != nil",
        sort: [AggregateSortKey(key: "price", ascending: false)]),
      try request("Tag", [Aggregate(.sum, "weight", as: "w"), Aggregate(.sum, "weight", distinct: true, as: "d")], [], offset: 0),
    ]
    var cases: [Case] = []
    for (i, request) in requests.enumerated() {
      let lite = try store.aggregateStatement(request, dialect: store.connection.dialect)
      let pgStatement = try store.aggregateStatement(request, dialect: dialect)
      var c = try sqliteCase("aggregate \(i)", lite.sql, lite.args, pgStatement.sql, pgStatement.args)
      c.kinds = (lite.groups.map(\.kind) + lite.kinds, pgStatement.groups.map(\.kind) + pgStatement.kinds)
      cases.append(c)
    }
    for (i, (key, sort)) in [
      (GroupingKey(keyPath: "released", bucket: .day, timeZone: "America/New_York"), [SortKey(keyPath: "title")]),
      (GroupingKey(keyPath: "author.name"), [SortKey(keyPath: "rating", ascending: false)]),
      (GroupingKey(keyPath: "price"), [SortKey(keyPath: "title", caseInsensitive: true)]),
    ].enumerated() {
      var request = FetchRequest(entity: "Book")
      request.sectionBy = key
      request.sort = sort
      let lite = try store.idsStatement(request, dialect: store.connection.dialect)
      let pgIDs = try store.idsStatement(request, dialect: dialect)
      cases.append(try sqliteCase("sections \(i)", lite.sql, lite.args, pgIDs.sql, pgIDs.args))
    }
    try check(cases)
  }

  /// Every object as an export reads it: attributes, to-one keys, and the ordered to-many
  /// lists (`ReadPlan` built in each dialect).
  func testObjectReads() throws {
    let graph = try store.requireGraph()
    var cases: [Case] = []
    for root in graph.ordered where root.isRoot {
      let pgRead = ReadPlan(root: root, graph: graph, plans: store.catalog.plans, codes: store.entityCodes, dialect: dialect)
      for m in root.hierarchy where !m.entity.abstract {
        let keys = Set(m.attributes.map(\.name) + m.relationships.map(\.name))
        let filter = " WHERE \(store.catalog.plans[m.name]!.entityFilter(alias: "t", deep: false)) ORDER BY t.\"_pk\""
        let lite =
          store.catalog.readPlans[root.name]!.selectSQL(for: m.name, keys: keys)
          + filter.replacingOccurrences(of: " WHERE  ORDER", with: " ORDER")
        let pgSQL = pgRead.selectSQL(for: m.name, keys: keys) + filter.replacingOccurrences(of: " WHERE  ORDER", with: " ORDER")
        cases.append(try sqliteCase("objects of \(m.name)", lite, [], pgSQL, []))
      }
    }
    try check(cases)
  }

  // MARK: - Running

  private func sqliteCase(_ label: String, _ sql: String, _ args: [SQLValue], _ pgSQL: String, _ pgArgs: [SQLValue]) throws -> Case {
    var rows: [[SQLValue]] = []
    try store.connection.prepare(sql).forEachRow(args) { row in rows.append((0..<row.count).map { row.value($0) }) }
    return Case(label: label, sqlite: rows, statement: .init(pgSQL, pgArgs), kinds: nil)
  }

  /// Runs every case in one session after the copy; reports the first few disagreements.
  private func check(_ cases: [Case]) throws {
    let copy = try PostgresCopy.statements(of: store)
    let results = try pg.run(copy + cases.map(\.statement)).suffix(cases.count)
    var failures: [String] = []
    for (c, rows) in zip(cases, results) {
      var agrees = rows.count == c.sqlite.count
      for (row, want) in zip(rows, c.sqlite) where agrees {
        agrees = row.count == want.count
        for (i, (cell, value)) in zip(row, want).enumerated() where agrees {
          let read = Self.value(cell, like: value)
          if let kinds = c.kinds {
            let (a, b) = (kinds.sqlite[i].decode(value), kinds.postgres[i].decode(read))
            if case .double(let x) = a, case .double(let y) = b {
              // Sums and averages of doubles round by the order of the additions, which
              // the engines choose (protocol.md, "PostgreSQL engine: what differs").
              agrees = x == y || abs(x - y) <= 1e-12 * max(abs(x), abs(y))
            } else {
              agrees = JSONWriter.encodeString(a) == JSONWriter.encodeString(b)
            }
          } else {
            agrees = read.isIdentical(to: value)
          }
        }
      }
      if !agrees {
        failures.append("\(c.label)\n  SQLite:     \(c.sqlite.prefix(6))\n  PostgreSQL: \(rows.prefix(6))\n  \(c.statement.sql)")
      }
    }
    let compared = cases.map(\.sqlite.count).reduce(0, +)
    print("PostgresDifferentialTests: \(cases.count) statements, \(compared) rows compared, \(failures.count) disagreeing")
    XCTAssertTrue(failures.isEmpty, "\(failures.count) of \(cases.count) disagree:\n\n" + failures.prefix(8).joined(separator: "\n\n"))
  }

  /// A PostgreSQL cell as the engine's PostgreSQL connection reads it, the class taken
  /// from SQLite's value for the same cell (a column's type gives it there).
  static func value(_ cell: String?, like: SQLValue) -> SQLValue {
    guard let cell else { return .null }
    switch like {
    case .integer: return cell == "t" ? .integer(1) : cell == "f" ? .integer(0) : Int64(cell).map { .integer($0) } ?? .text(cell)
    case .real:
      let special: [String: Double] = ["Infinity": .infinity, "-Infinity": -.infinity, "NaN": .nan]
      return (special[cell] ?? Double(cell)).map { .real($0) } ?? .text(cell)
    case .blob(let b):
      if b.count == 16, let bytes = UUIDText.bytes(cell) { return .blob(bytes) }
      return .text(cell)
    case .text, .null: return .text(cell)
    }
  }
}
