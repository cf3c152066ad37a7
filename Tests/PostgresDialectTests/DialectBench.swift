import DatabaseKit
import PostgresCore
import SQLiteCore
import TestSupport
import XCTest

@testable import StoreEngine

/// Runs the SQL each dialect writes on its own engine and checks that both give the rows
/// expected: SQLite's form on an in-memory store's connection (which has the engine's
/// Swift functions), and, when `MODELSTORE_TEST_PG` is set, PostgreSQL's form through
/// `psql` in a scratch schema where `storeSetupStatements` ran. SQLite runs as each case
/// is added; PostgreSQL runs every case in one session at `finish()` (and each alone
/// again when that session fails, to name the cases that fail).
final class DialectBench {
  typealias Statement = PostgresScratch.Statement

  let sqlite: any SQLDialect = SQLiteDialect()
  let postgres: any SQLDialect = PostgresDialect()
  let store: Store
  private var setup: [Statement] = []
  private var cases: [Case] = []

  struct Case {
    var name: String
    var statement: Statement
    /// What PostgreSQL must answer: SQLite's answer, or its documented difference.
    var expected: [[SQLValue]]
    var ordered: Bool
    /// Set when PostgreSQL must refuse the statement instead, with this in its message.
    var fails: String?
    var file: StaticString
    var line: UInt
  }

  init() throws {
    store = try Store(path: nil)
  }

  /// Statements (tables, rows) both engines run before the cases, each in its dialect.
  func setUp(_ make: (any SQLDialect) -> [Statement]) throws {
    for s in make(sqlite) { try runOnSQLite(s) }
    setup += make(postgres)
  }

  /// A case: `make`'s statement must give `expected` on SQLite and, unless
  /// `postgres` gives PostgreSQL's own answer or `postgresFails` the part of the error
  /// PostgreSQL refuses it with (a documented difference), on PostgreSQL.
  func expect(
    _ name: String, _ expected: [[SQLValue]], ordered: Bool = true, postgres differs: [[SQLValue]]? = nil,
    postgresFails: String? = nil, file: StaticString = #filePath, line: UInt = #line, _ make: (any SQLDialect) -> Statement
  ) {
    do {
      let rows = try runOnSQLite(make(sqlite))
      XCTAssertTrue(Self.same(rows, expected, ordered: ordered), "\(name) on SQLite: \(rows), expected \(expected)", file: file, line: line)
    } catch {
      XCTFail("\(name) on SQLite: \(error)", file: file, line: line)
    }
    cases.append(
      Case(
        name: name, statement: make(postgres), expected: differs ?? expected, ordered: ordered, fails: postgresFails, file: file,
        line: line))
  }

  @discardableResult
  func runOnSQLite(_ s: Statement) throws -> [[SQLValue]] {
    var rows: [[SQLValue]] = []
    try store.connection.prepare(s.sql).forEachRow(s.args) { row in rows.append((0..<row.count).map { row.value($0) }) }
    return rows
  }

  /// Runs the cases on PostgreSQL when it is available; says so when it is not.
  func finish(file: StaticString = #filePath, line: UInt = #line) throws {
    defer { store.close() }
    guard let pg = try PostgresScratch.fromEnvironment() else {
      print("PostgreSQL forms not run: MODELSTORE_TEST_PG is not set (make test sets it)")
      return
    }
    defer { pg.drop() }
    let prelude = postgres.storeSetupStatements(folding: TextFolding.table).map { Statement($0) } + setup
    let (answering, failing) = (cases.filter { $0.fails == nil }, cases.filter { $0.fails != nil })
    for c in failing {
      try pg.reset()
      do {
        _ = try pg.run(prelude + [c.statement])
        XCTFail("\(c.name) on PostgreSQL: ran, expected a refusal (\(c.fails!))", file: c.file, line: c.line)
      } catch {
        XCTAssertTrue("\(error)".contains(c.fails!), "\(c.name) on PostgreSQL: \(error)", file: c.file, line: c.line)
      }
    }
    try pg.reset()
    do {
      let results = try pg.run(prelude + answering.map(\.statement))
      for (c, rows) in zip(answering, results.suffix(answering.count)) { check(c, rows) }
    } catch {
      // Name the failing cases: each alone, after the set-up in a fresh schema.
      for c in answering {
        do {
          try pg.reset()
          check(c, try pg.run(prelude + [c.statement])[prelude.count])
        } catch {
          XCTFail("\(c.name) on PostgreSQL: \(error)\n\(c.statement.sql)", file: c.file, line: c.line)
        }
      }
    }
  }

  private func check(_ c: Case, _ rows: [PostgresScratch.Row]) {
    func matches(_ row: PostgresScratch.Row, _ want: [SQLValue]) -> Bool {
      row.count == want.count && zip(want, row).allSatisfy { PostgresScratch.agrees($0, $1) }
    }
    var agrees = rows.count == c.expected.count
    if agrees && c.ordered {
      agrees = zip(rows, c.expected).allSatisfy(matches)
    } else if agrees {
      var remaining = rows
      for want in c.expected {
        guard let i = remaining.firstIndex(where: { matches($0, want) }) else {
          agrees = false
          break
        }
        remaining.remove(at: i)
      }
    }
    XCTAssertTrue(agrees, "\(c.name) on PostgreSQL: \(rows), expected \(c.expected)\n\(c.statement.sql)", file: c.file, line: c.line)
  }

  static func same(_ a: [[SQLValue]], _ b: [[SQLValue]], ordered: Bool) -> Bool {
    a.count == b.count
      && zip(sortedValues(a, ordered), sortedValues(b, ordered)).allSatisfy { x, y in
        x.count == y.count && zip(x, y).allSatisfy { $0.isIdentical(to: $1) }
      }
  }

  private static func sortedValues(_ rows: [[SQLValue]], _ ordered: Bool) -> [[SQLValue]] {
    ordered ? rows : rows.sorted { "\($0)" < "\($1)" }
  }

}

extension SQLValue: ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByStringLiteral {
  public init(integerLiteral value: Int64) { self = .integer(value) }
  public init(floatLiteral value: Double) { self = .real(value) }
  public init(stringLiteral value: String) { self = .text(value) }
}
