import DatabaseKit
import SchemaModel
import TimeZones
import XCTest

@testable import StoreEngine

/// Every requirement of `SQLDialect` the engine's queries, objects, migrations and history
/// use, run in each dialect's form on its engine over the same rows: SQLite's form must
/// give the rows written here, and PostgreSQL's (when `MODELSTORE_TEST_PG` is set) the
/// same rows, or the difference protocol.md's "PostgreSQL engine: what differs" states.
final class DialectRequirementTests: XCTestCase {
  static let uuids = [
    "00112233-4455-6677-8899-AABBCCDDEEFF", "FFFFFFFF-0000-0000-0000-000000000001", "123E4567-E89B-12D3-A456-426614174000",
    "00000000-0000-0000-0000-000000000000",
  ].map { SQLValue.blob(UUIDText.bytes($0)!) }

  /// `v`: one column of each content, and rows with the values the cases read.
  static let columns: [(String, ColumnContent)] = [
    ("i", .integer), ("i2", .integer), ("b", .boolean), ("r", .real), ("dt", .date), ("m", .decimal), ("s", .text), ("s2", .text),
    ("u", .uuid), ("y", .bytes), ("j", .json),
  ]
  static let rows: [[SQLValue]] = [
    [1, 1, 0, 1, .real(1.5), .real(0), "1.5", "Straße", "STRASSE", uuids[0], .blob([1, 2, 3]), "{}"],
    [2, -7, 2, 0, .real(-0.25), .real(-86400.5), "-12.25", "Élan vital", "elan", uuids[1], .blob([]), "[1]"],
    [3, .null, .null, .null, .null, .null, .null, .null, .null, .null, .null, .null],
    [
      4, 9_007_199_254_740_993, 3, 1, .real(1e20), .real(1e12), "100", "a*b?c[d]%e_f\\g", "a*b?c[d]%e_f\\g", uuids[2], .blob([255]),
      "null",
    ],
    [5, 0, 0, 0, .real(0), .real(1_711_846_800), "0", "", "x", .null, .null, .null],
    [6, 42, -5, .null, .real(2.5), .real(1_711_846_799.999), "99.99", "ΣΑΣ", "σας", uuids[3], .null, .null],
    [7, .null, .null, .null, .real(0.1 + 0.2), .null, .null, .null, .null, .null, .null, .null],
    [8, .null, .null, .null, .null, .null, .null, "line1\nline2", .null, .null, .null, .null],
  ]

  private var bench: DialectBench!

  override func setUpWithError() throws {
    bench = try DialectBench()
    try bench.setUp { d in
      let defs = Self.columns.map { "\(Identifier.quote($0.0)) \(d.columnDefinition($0.1))" }.joined(separator: ", ")
      let insert = "INSERT INTO \"v\" VALUES (\(Array(repeating: "?", count: Self.columns.count + 1).joined(separator: ", ")))"
      return [.init("CREATE TABLE \"v\" (\"id\" \(d.columnType(.integer)) PRIMARY KEY, \(defs))")] + Self.rows.map { .init(insert, $0) }
    }
  }

  /// `SELECT "id" FROM "v" WHERE condition ORDER BY "id"`.
  private func ids(_ condition: String) -> String { "SELECT \"id\" FROM \"v\" WHERE \(condition) ORDER BY \"id\"" }

  private func column(_ ids: [Int64]) -> [[SQLValue]] { ids.map { [.integer($0)] } }

  func testParametersAndValues() throws {
    bench.expect("an integer column against a real", column([6])) { d in .init(ids("\"i\" = \(d.parameter("?", .real(42)))"), [.real(42)]) }
    bench.expect("an integer column ordered against a real", column([1, 2, 5])) { d in
      .init(ids("\"i\" < \(d.parameter("?", .real(1.5)))"), [.real(1.5)])
    }
    bench.expect("a real column against an integer", column([5])) { d in .init(ids("\"r\" = \(d.parameter("?", 0))"), [0]) }
    bench.expect("a parameter in the select list", [[6]]) { d in .init("SELECT \(d.parameter("?1", 5)) + 1", [5]) }
    bench.expect("true and false as conditions", [[8, 0]]) { d in
      .init("SELECT (SELECT count(*) FROM \"v\" WHERE \(d.boolean(true))), (SELECT count(*) FROM \"v\" WHERE \(d.boolean(false)))")
    }
    bench.expect("unknown read as false", column([2, 3, 5, 7, 8])) { d in .init(ids("NOT \(d.falseWhenUnknown("\"i\" > 0"))")) }
    bench.expect("null-safe equality", column([3, 4, 7])) { d in .init(ids(d.isNotDistinct("\"s\"", "\"s2\""))) }
    bench.expect("null-safe inequality", column([1, 2, 5, 6, 8])) { d in .init(ids(d.isDistinct("\"s\"", "\"s2\""))) }
    bench.expect("null-safe inequality against a value", column([1, 2, 3, 4, 6, 7, 8])) { d in
      .init(ids(d.isDistinct("\"s2\"", d.parameter("?", "x"))), ["x"])
    }
    bench.expect("decimals as doubles", [[1.5], [-12.25], [.null], [100.0], [0.0], [99.99], [.null], [.null]]) { d in
      .init("SELECT \(d.castToReal("\"m\"")) FROM \"v\" ORDER BY \"id\"")
    }
    bench.expect("integers as text", [["1", "1"], ["-7", "0"], ["9007199254740993", "1"]]) { d in
      .init("SELECT \(d.castToText("\"i\"")), \(d.castToText("\"b\"")) FROM \"v\" WHERE \"id\" IN (1, 2, 4) ORDER BY \"id\"")
    }
    // SQLite writes 15 significant digits and keeps a fraction; PostgreSQL the shortest
    // text that reads back as the same double.
    bench.expect(
      "doubles as text", [["1.5"], ["-0.25"], ["1.0e+20"], ["0.0"], ["2.5"], ["0.3"]],
      postgres: [["1.5"], ["-0.25"], ["1e+20"], ["0"], ["2.5"], ["0.30000000000000004"]]
    ) { d in .init("SELECT \(d.castToText("\"r\"")) FROM \"v\" WHERE \"r\" IS NOT NULL ORDER BY \"id\"") }
    bench.expect("built text by code point", [["B"], ["Z"], ["a"], ["b"], ["é"]]) { d in
      .init("SELECT column1 FROM \(d.derivedTable("VALUES ('b'), ('B'), ('é'), ('a'), ('Z')")) ORDER BY \(d.textByCodePoint("column1"))")
    }
    bench.expect(
      "real division, NULL by zero",
      [[1, .null], [2, -3.5], [3, .null], [4, .real(Double(9_007_199_254_740_993) / 3)], [5, .null], [6, -8.4]]
    ) { d in .init("SELECT \"id\", \(d.divide("\"i\"", "\"i2\"")) FROM \"v\" WHERE \"id\" < 7 ORDER BY \"id\"") }
    // Beyond 64 bits SQLite's integer arithmetic goes on in doubles; PostgreSQL refuses it.
    bench.expect("integer overflow", [[.real(9_223_372_036_854_775_807.0 + 1)]], postgresFails: "bigint out of range") { d in
      .init("SELECT \(d.parameter("?1", 9_223_372_036_854_775_807)) + \(d.parameter("?2", 1))", [9_223_372_036_854_775_807, 1])
    }
    bench.expect("double overflow", [[.real(.infinity)]], postgresFails: "value out of range: overflow") { d in
      .init("SELECT \(d.parameter("?1", 1e308)) * \(d.parameter("?2", 10.0))", [1e308, 10.0])
    }
    bench.expect("the larger of two", [[1], [2], [9_007_199_254_740_993], [0], [42]]) { d in
      .init("SELECT \(d.greatest("\"i\"", "\"i2\"")) FROM \"v\" WHERE \"i\" IS NOT NULL ORDER BY \"id\"")
    }
    try bench.finish()
  }

  func testStrings() throws {
    for (test, part, want) in [
      (StringTest.beginsWith, "Str", [1]), (.beginsWith, "", []), (.endsWith, "ße", [1]), (.endsWith, "\\g", [4]),
      (.contains, "vit", [2]), (.contains, "[d]%", [4]), (.contains, "Σ", [6]), (.endsWith, "line2", [8]),
    ] as [(StringTest, String, [Int64])] {
      bench.expect("\(test) '\(part)'", column(want)) { d in
        .init(ids(d.stringTest(test, "\"s\"", d.parameter("?1", .text(part)))), [.text(part)])
      }
    }
    bench.expect("contains another column", column([4])) { d in .init(ids(d.stringTest(.contains, "\"s\"", "\"s2\""))) }
    for (pattern, want) in [
      ("Str*", [1]), ("*vital", [2]), ("a*b?c[d]%e_f\\g", [4]), ("*[d]%e_f*", [4]), ("*%*", [4]), ("*_*", [4]), ("*\\*", [4]),
      ("", [5]), ("?", []), ("ΣΑ?", [6]), ("*", [1, 2, 4, 5, 6, 8]), ("line1?line2", [8]), ("[d]", []),
    ] as [(String, [Int64])] {
      bench.expect("LIKE '\(pattern)'", column(want)) { d in
        let p = SQLValue.text(d.wildcardPattern(pattern))
        return .init(ids(d.wildcardMatch("\"s\"", d.parameter("?", p))), [p])
      }
    }
    bench.expect("LIKE a column's pattern", column([4])) { d in .init(ids(d.wildcardMatch("\"s\"", d.wildcardPatternSQL("\"s2\"")))) }
    bench.expect("LIKE folded", column([1])) { d in
      let p = SQLValue.text(d.wildcardPattern("strasse"))
      return .init(ids(d.wildcardMatch(d.fold("\"s\"", flags: 1), d.fold(d.parameter("?", p), flags: 1))), [p])
    }
    for flags in 1...3 {
      let want = Self.rows.map { r -> [SQLValue] in
        guard case .text(let s) = r[7] else { return [.null] }
        return [.text(TextFolding.fold(s, caseInsensitive: flags & 1 != 0, diacriticInsensitive: flags & 2 != 0))]
      }
      bench.expect("ms_fold flags \(flags)", want) { d in .init("SELECT \(d.fold("\"s\"", flags: flags)) FROM \"v\" ORDER BY \"id\"") }
    }
    try bench.finish()
  }

  func testRegularExpressions() throws {
    for (pattern, flags, want) in [
      ("Str.*", 0, [1]), ("str.*", 1, [1]), ("elan.*", 3, [2]), ("Elan.*", 2, [2]), ("", 0, [5]), ("a\\*b\\?c\\[d\\]%e_f\\\\g", 0, [4]),
      ("\\w+", 0, [1, 6]), ("σας", 1, [6]), (".*", 0, [1, 2, 4, 5, 6]), ("(?s).*", 0, [1, 2, 4, 5, 6, 8]), ("line\\d\\nline\\d", 0, [8]),
      ("(?m)line1$\\nline2", 0, [8]),
      ("(?x) S t r a ß e # the name", 0, [1]), ("a|Str", 0, []), ("(Str|Él)a.*", 0, [1, 2]),
    ] as [(String, Int, [Int64])] {
      bench.expect("MATCHES '\(pattern)' flags \(flags)", column(want)) { d in
        let args: [SQLValue] = [.text(pattern), 0, .text(ErrorPlace(.where).encoded), 0]
        let place = "\(d.parameter("?2", args[1])), \(d.parameter("?3", args[2])), \(d.parameter("?4", args[3]))"
        return .init(ids(d.regexMatch(pattern: d.parameter("?1", args[0]), text: "\"s\"", flags: flags, place: place)), args)
      }
    }
    // ICU folds case fully (`ß` matches `SS`), PostgreSQL one character at a time; a
    // bracket expression matches a line break in ICU, not in PostgreSQL's `(?p)` mode that
    // gives ICU's `.`.
    for (pattern, want, pg) in [("(?i)STRASSE|élan vital", [1, 2], [2]), ("[^x]+", [1, 2, 4, 6, 8], [1, 2, 4, 6])]
      as [(String, [Int64], [Int64])]
    {
      bench.expect("MATCHES '\(pattern)'", column(want), postgres: column(pg)) { d in
        let args: [SQLValue] = [.text(pattern), 0, .text(ErrorPlace(.where).encoded), 0]
        let place = "\(d.parameter("?2", args[1])), \(d.parameter("?3", args[2])), \(d.parameter("?4", args[3]))"
        return .init(ids(d.regexMatch(pattern: d.parameter("?1", args[0]), text: "\"s\"", flags: 0, place: place)), args)
      }
    }
    try bench.finish()
  }

  func testUUIDsAndBuckets() throws {
    bench.expect("uuid text", Self.rows.map { r in [r[9] == .null ? .null : .text(UUIDText.text(Self.bytes(r[9])))] }) { d in
      .init("SELECT \(d.uuidText("\"u\"")) FROM \"v\" ORDER BY \"id\"")
    }
    bench.expect("uuid from text", column([4])) { d in
      .init(
        ids("\"u\" = \(d.uuidFromText(d.parameter("?", "123E4567-E89B-12D3-A456-426614174000")))"), ["123E4567-E89B-12D3-A456-426614174000"]
      )
    }
    let zones = TimeZoneCache()
    for unit in DateBucket.allCases {
      for zone in ["UTC", "+05:30", "-03", "Europe/Paris", "America/New_York"] {
        let rules = try zones.rules(zone)
        let want = Self.rows.map { r -> [SQLValue] in
          guard case .real(let t) = r[5] else { return [.null] }
          return [unit.key(t, in: rules).map { .text($0) } ?? .null]
        }
        bench.expect("\(unit) in \(zone)", want) { d in
          .init(
            "SELECT \(d.dateBucket("\"dt\"", unit: d.parameter("?1", .text(unit.rawValue)), zone: d.parameter("?2", .text(zone)))) FROM \"v\" ORDER BY \"id\"",
            [.text(unit.rawValue), .text(zone)])
        }
      }
    }
    try bench.finish()
  }

  func testLists() throws {
    func list(_ element: ListElement, _ column: String, _ json: String, _ value: @escaping (any SQLDialect, String) -> String = { $1 }) -> (
      any SQLDialect
    ) -> DialectBench.Statement {
      { d in
        .init(
          "SELECT \"id\" FROM \"v\" WHERE \(value(d, column)) IN (SELECT \(value(d, d.jsonArrayValue(element))) FROM \(d.jsonArrayElements("?"))) ORDER BY \"id\"",
          [.text(json)])
      }
    }
    bench.expect("integers", column([1, 4, 6]), list(.integer, "\"i\"", "[1,42,9007199254740993]"))
    bench.expect("integers and doubles", column([1, 6]), list(.number, "\"i\"", "[1,42.0,2.5]"))
    bench.expect("doubles", column([1, 2, 4]), list(.real, "\"r\"", "[1.5,1e+20,-0.25]"))
    bench.expect("strings", column([2, 5]), list(.text, "\"s2\"", "[\"x\",\"elan\",\"nope\"]"))
    bench.expect(
      "uuids", column([4, 6]),
      list(.text, "\"u\"", "[\"123E4567-E89B-12D3-A456-426614174000\",\"00000000-0000-0000-0000-000000000000\"]") { d, v in
        v == "\"u\"" ? v : d.uuidFromText(v)
      })
    bench.expect("folded", column([1]), list(.text, "\"s\"", "[\"STRASSE\"]") { d, v in d.fold(v, flags: 3) })
    bench.expect("decimals as doubles", column([1, 4]), list(.text, "\"m\"", "[\"100.0\",\"1.5\"]") { d, v in d.castToReal(v) })
    bench.expect("an ordered list", [["4,6,1"]]) { d in
      .init("SELECT \(d.orderedList("SELECT \"id\" AS x FROM \"v\" WHERE \"i\" > 0 ORDER BY \"i\" DESC"))")
    }
    bench.expect("an ordered list, NULL first", [["3,6,7,8,2,5,1,4"]]) { d in
      .init("SELECT \(d.orderedList("SELECT \"id\" AS x FROM \"v\" ORDER BY \(d.orderTerm("\"b\"", .unstated)), \"id\""))")
    }
    bench.expect("an empty list", [[.null]]) { d in .init("SELECT \(d.orderedList("SELECT \"id\" AS x FROM \"v\" WHERE \"id\" < 0"))") }
    bench.expect("groups joined", [[-5, "6"], [2, "2"], [3, "4"]]) { d in
      .init(
        "SELECT \"i2\", \(d.groupConcat("\"id\"", separator: " ")) FROM \"v\" WHERE \"i2\" IS NOT NULL GROUP BY \"i2\" HAVING count(*) = 1 ORDER BY \"i2\""
      )
    }
    bench.expect("a group of two joined", [[3]]) { d in
      .init("SELECT length(\(d.groupConcat("\"id\"", separator: " "))) FROM \"v\" WHERE \"i2\" = 0")
    }
    try bench.finish()
  }

  func testAggregatesAndQueries() throws {
    bench.expect("an integer total", [[9_007_199_254_741_029]]) { d in .init("SELECT \(d.total("\"i\"", integers: true)) FROM \"v\"") }
    bench.expect("an integer total of nothing", [[0]]) { d in
      .init("SELECT \(d.total("\"i\"", integers: true)) FROM \"v\" WHERE \"id\" < 0")
    }
    bench.expect("a distinct total", [[1]]) { d in .init("SELECT \(d.total("DISTINCT \"b\"", integers: true)) FROM \"v\"") }
    bench.expect("a total of doubles", [[.real(1.5 - 0.25 + 1e20 + 0 + 2.5 + (0.1 + 0.2))]]) { d in
      .init("SELECT \(d.total("\"r\"", integers: false)) FROM \"v\"")
    }
    // A CASE has one type on PostgreSQL: the total of no doubles is NULL, which the engine
    // reads as 0 (`totalOfNoRealsIsNull`).
    bench.expect("a total of no doubles", [[0]], postgres: [[.null]]) { d in
      .init("SELECT \(d.total("\"r\"", integers: false)) FROM \"v\" WHERE \"id\" < 0")
    }
    bench.expect("an average", [[0.0]]) { d in .init("SELECT \(d.average("\"i2\"", integers: true)) FROM \"v\"") }
    // The sum over the count: PostgreSQL's avg(double precision) also sums the squares.
    bench.expect("an average of doubles", [[.real((1.5 - 0.25 + 1e20 + 0 + 2.5 + (0.1 + 0.2)) / 6)]]) { d in
      .init("SELECT \(d.average("\"r\"", integers: false)) FROM \"v\"")
    }
    bench.expect("an average of doubles whose squares are beyond the doubles", [[.real(5e299)]]) { d in
      .init("SELECT \(d.average("\"r\" * 1e280", integers: false)) FROM \"v\" WHERE \"r\" = 1e20 OR \"r\" = 0")
    }
    // SQLite sums the integers as doubles; PostgreSQL exactly, rounding once.
    bench.expect(
      "an average of large integers", [[.real((1.0 - 7.0 + Double(9_007_199_254_740_993) + 0 + 42.0) / 5)]],
      postgres: [[.real(1_801_439_850_948_205.75)]]
    ) { d in .init("SELECT \(d.average("\"i\"", integers: true)) FROM \"v\"") }
    bench.expect("NULL first ascending", column([3, 6, 7, 8, 2, 5, 1, 4])) { d in
      .init("SELECT \"id\" FROM \"v\" ORDER BY \(d.orderTerm("\"b\"", .ascending)), \"id\"")
    }
    bench.expect("NULL last descending", column([1, 4, 2, 5, 3, 6, 7, 8])) { d in
      .init("SELECT \"id\" FROM \"v\" ORDER BY \(d.orderTerm("\"b\"", .descending)), \"id\"")
    }
    bench.expect("text by code point", column([3, 7, 5, 1, 4, 8, 2, 6])) { d in
      .init("SELECT \"id\" FROM \"v\" ORDER BY \(d.orderTerm("\"s\"", .ascending)), \"id\"")
    }
    bench.expect("text by code point, descending", [["ΣΑΣ"], ["Élan vital"], ["line1\nline2"]]) { d in
      .init(
        "SELECT max(\"s\") FROM \"v\" UNION ALL SELECT max(\"s\") FROM \"v\" WHERE \"s\" < 'ΣΑΣ' UNION ALL SELECT max(\"s\") FROM \"v\" WHERE \"s\" < 'Élan'"
      )
    }
    for (limit, offset, want) in [(nil, 5, [6, 7, 8]), (2, 1, [2, 3]), (0, nil, []), (3, nil, [1, 2, 3])] as [(Int?, Int?, [Int64])] {
      bench.expect("LIMIT \(limit.map(String.init) ?? "-") OFFSET \(offset.map(String.init) ?? "-")", column(want)) { d in
        .init("SELECT \"id\" FROM \"v\" ORDER BY \"id\"" + d.limitClause(limit: limit, offset: offset))
      }
    }
    bench.expect("a derived table", [[3]]) { d in
      .init("SELECT count(*) FROM \(d.derivedTable("SELECT \"id\" FROM \"v\" WHERE \"i\" > 0"))")
    }
    try bench.finish()
  }

  /// Column defaults of every content, tables whose key is their content, temporary
  /// tables, the two INSERT forms, and what the engine reads of the catalog (following
  /// renames, as migrations need).
  func testTablesAndIntrospection() throws {
    let defaults: [(ColumnContent, SQLValue)] = [
      (.integer, 7), (.boolean, 1), (.real, 2.5), (.date, .real(1e9)), (.decimal, "3.25"), (.text, "it's"), (.uuid, Self.uuids[1]),
      (.bytes, .blob([0, 1])), (.json, "{\"a\":1}"),
    ]
    try bench.setUp { d in
      let integer = d.columnType(.integer)
      var out: [DialectBench.Statement] = defaults.enumerated().map { i, c in
        .init("ALTER TABLE \"v\" ADD COLUMN \"d\(i)\" \(d.columnDefinition(c.0)) DEFAULT \(d.defaultLiteral(c.1, for: c.0)!)")
      }
      out += [
        .init(
          "CREATE TABLE \"kv\" (\"k\" \(integer) NOT NULL, \"v\" \(d.columnDefinition(.text)), PRIMARY KEY (\"k\"))\(d.keyOnlyTableOptions)"
        ),
        .init(d.insertSkippingDuplicates("\"kv\" (\"k\", \"v\") VALUES (?, ?)"), [1, "a"]),
        .init(d.insertSkippingDuplicates("\"kv\" (\"k\", \"v\") VALUES (?, ?)"), [1, "b"]),
        .init(d.insertReplacing(into: "\"kv\"", columns: ["\"k\"", "\"v\""], key: ["\"k\""]), [2, "c"]),
        .init(d.insertReplacing(into: "\"kv\"", columns: ["\"k\"", "\"v\""], key: ["\"k\""]), [2, "d"]),
        .init(
          "CREATE TEMP TABLE \"_t\" (\"a\" \(integer) NOT NULL, \"b\" \(d.columnType(.text)) NOT NULL, PRIMARY KEY (\"a\", \"b\"))\(d.keyOnlyTableOptions)"
        ),
        .init("INSERT INTO \(d.temporaryTable("_t")) VALUES (1, 'x'), (1, 'y')"),
        .init(
          "CREATE TABLE \"e\" (\"_pk\" \(integer) PRIMARY KEY, \"_ent\" \(integer) NOT NULL, \"a\" \(integer), \"c\" \(d.columnDefinition(.text)))"
        ),
        .init("CREATE UNIQUE INDEX \"_ux_E_2\" ON \"e\" (\"a\", \"c\") WHERE \"_ent\" IN (2, 5)"),
        .init("CREATE INDEX \"_ix_E_1\" ON \"e\" (\"a\") WHERE \"_ent\" IN (3)"),
        .init("CREATE INDEX \"_fk_e_3\" ON \"e\" (\"c\")"),
        .init("CREATE INDEX \"other\" ON \"e\" (\"c\", \"a\")"),
        .init("ALTER TABLE \"e\" RENAME COLUMN \"c\" TO \"c2\""),
        .init("ALTER TABLE \"e\" RENAME TO \"E2\""),
      ]
      return out
    }
    bench.expect("column defaults", [defaults.map(\.1)]) { _ in
      .init("SELECT \(defaults.indices.map { "\"d\($0)\"" }.joined(separator: ", ")) FROM \"v\" WHERE \"id\" = 3")
    }
    bench.expect("inserts skipping and replacing", [[1, "a"], [2, "d"]]) { _ in .init("SELECT \"k\", \"v\" FROM \"kv\" ORDER BY \"k\"") }
    bench.expect("a temporary table", [[2]]) { d in .init("SELECT count(*) FROM \(d.temporaryTable("_t"))") }
    bench.expect("the store's tables", [["E2"], ["kv"], ["v"]]) { d in .init(d.tablesSQL) }
    let types = { (d: any SQLDialect) -> [[SQLValue]] in
      [["id", .text(d.columnType(.integer))]] + Self.columns.map { [.text($0.0), .text(d.columnType($0.1))] }
        + defaults.enumerated().map { [.text("d\($0.offset)"), .text(d.columnType($0.element.0))] }
    }
    bench.expect("a table's columns", types(bench.sqlite), postgres: types(bench.postgres)) { d in .init(d.columnsSQL, ["v"]) }
    let definitions: [[SQLValue]] = [
      ["_ux_E_2", "CREATE UNIQUE INDEX \"_ux_E_2\" ON \"E2\" (\"a\", \"c2\") WHERE \"_ent\" IN (2, 5)"],
      ["_ix_E_1", "CREATE INDEX \"_ix_E_1\" ON \"E2\" (\"a\") WHERE \"_ent\" IN (3)"],
      ["_fk_e_3", "CREATE INDEX \"_fk_e_3\" ON \"E2\" (\"c2\")"],
    ]
    bench.expect("managed indexes after renames", definitions, ordered: false) { d in .init(d.managedIndexesSQL) }
    bench.expect("an index's definition", [[definitions[2][1]]]) { d in .init(d.indexDefinitionSQL, ["_fk_e_3"]) }
    bench.expect("a table's name is taken", [[1]]) { d in .init(d.nameTakenSQL, ["E2"]) }
    bench.expect("an index's name is taken", [[1]]) { d in .init(d.nameTakenSQL, ["other"]) }
    bench.expect("a free name", []) { d in .init(d.nameTakenSQL, ["e"]) }
    bench.expect("indexes on a column", [["_ux_E_2"], ["_ix_E_1"], ["other"]], ordered: false) { d in
      .init(d.indexesOnColumnSQL, ["E2", "a"])
    }
    bench.expect("no index on the key", []) { d in .init(d.indexesOnColumnSQL, ["kv", "k"]) }
    try bench.finish()
  }

  static func bytes(_ v: SQLValue) -> [UInt8] {
    if case .blob(let b) = v { return b }
    return []
  }
}
