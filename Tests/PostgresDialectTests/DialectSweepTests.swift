import DatabaseKit
import PostgresCore
import SchemaModel
import TestSupport
import TimeZones
import XCTest

@testable import StoreEngine

/// The store's own functions over many inputs: `ms_fold` over every code point of the
/// scripts that have case, `ms_bucket` over instants across the calendar's range in zones
/// with odd offsets and daylight rules. SQLite (the Swift functions) and PostgreSQL (the
/// SQL functions of `storeSetupStatements`) must give the Swift answers, except where
/// protocol.md's "PostgreSQL engine: what differs" says, which is pinned here.
final class DialectSweepTests: XCTestCase {
  /// Scalars with case or diacritics (and their neighbours): Latin, Greek, Cyrillic,
  /// Armenian, Georgian, Cherokee, Latin Extended Additional, Greek Extended, letterlike
  /// symbols, Glagolitic, Coptic, Latin Extended-C/D, ligatures, fullwidth forms, Deseret,
  /// Osage, Old Hungarian, Warang Citi, Medefaidrin, Adlam.
  static let ranges: [ClosedRange<UInt32>] = [
    0x20...0x7E, 0xA0...0x24F, 0x250...0x58F, 0x10A0...0x10FF, 0x13A0...0x13FF, 0x1C80...0x1CBF, 0x1D00...0x1FFF, 0x2100...0x218F,
    0x2C00...0x2D2F, 0xA640...0xA69F, 0xA720...0xA7FF, 0xAB30...0xABBF, 0xFB00...0xFB17, 0xFF00...0xFF5F, 0x10400...0x104FF,
    0x10C80...0x10CFF, 0x118A0...0x118FF, 0x16E40...0x16E9F, 0x1E900...0x1E95F,
  ]

  /// Texts whose folding depends on their context or expands.
  static let words = [
    "ΣΑΣ ΣΑΣ", "ΟΔΥΣΣΕΥΣ", "İstanbul", "ǅemal", "ﬀ ﬁ ﬂ ﬃ", "STRAẞE", "ŉ", "ΐ", "Ǆ ǅ ǆ", "Ⅻ", "ẞ", "ß", "ᾳ ᾼ", "i̇", "Å", "K",
    "e\u{301}", "A\u{30A}\u{327}",
  ]

  /// How many scalars may fold differently: the letters whose case pair Unicode added after
  /// the version of the server's ICU (with Swift 6.3's Unicode 16 beside Debian 12's ICU
  /// 72, Unicode 15: U+1C89, U+A7CB, U+A7CC, U+A7CE, U+A7D2, U+A7D4, U+A7DA, U+A7DC).
  static let newerLetters = 40

  func testFolding() throws {
    var texts: [String] = []
    for r in Self.ranges {
      for v in r { if let u = Unicode.Scalar(v), !(0xD800...0xDFFF).contains(v) { texts.append(String(Character(u))) } }
    }
    texts += Self.words
    let store = try Store(path: nil)
    defer { store.close() }
    let swift = texts.map { t in (1...3).map { f in TextFolding.fold(t, caseInsensitive: f & 1 != 0, diacriticInsensitive: f & 2 != 0) } }
    for (i, t) in texts.enumerated() {
      for f in 1...3 {
        let got = try store.connection.scalar("SELECT ms_fold(?, \(f))", [.text(t)])
        XCTAssertEqual(got, .text(swift[i][f - 1]), "SQLite ms_fold(\(t), \(f))")
      }
    }
    let literals = texts.map { PostgresDialect().literal(.text($0))! }
    let queries = ["SELECT \"id\", ms_fold(\"v\", 1), ms_fold(\"v\", 2), ms_fold(\"v\", 3) FROM \"w\" ORDER BY \"id\""]
    guard let rows = try Self.onPostgres(.text, literals, queries)?[0] else { return }
    XCTAssertEqual(rows.count, texts.count)
    // Where PostgreSQL differs, its ICU does not know the letter: it leaves it as it is
    // (under [c]; [d] alone never differs, it is the engine's own table).
    var differing: Set<String> = []
    for row in rows {
      let i = Int(row[0]!)!
      for f in 1...3 where row[f] != swift[i][f - 1] {
        differing.insert(texts[i])
        let unchanged = f == 1 ? texts[i] : swift[i][1]
        let code = texts[i].unicodeScalars.map { String($0.value, radix: 16, uppercase: true) }.joined(separator: " ")
        XCTAssertEqual(
          row[f], f == 2 ? swift[i][1] : unchanged,
          "ms_fold(U+\(code), \(f)): Swift \(swift[i][f - 1].debugDescription), PostgreSQL \((row[f] ?? "NULL").debugDescription)")
      }
    }
    XCTAssertLessThanOrEqual(differing.count, Self.newerLetters, "\(differing.sorted())")
    XCTAssertTrue(differing.allSatisfy { $0.unicodeScalars.count == 1 }, "words fold alike: \(differing.sorted())")
  }

  static let zones = [
    "UTC", "+05:45", "-09:30", "+14:00", "-12", "Europe/Paris", "America/New_York", "Australia/Lord_Howe", "Asia/Kathmandu",
    "Pacific/Apia", "Africa/Casablanca", "America/Sao_Paulo", "Europe/London", "Asia/Tokyo",
  ]

  /// Instants across the calendar: a regular spread, the far past and future (beyond
  /// PostgreSQL's timestamps both ways), fractions of a second around midnight, values
  /// without a calendar date, and each zone's transitions from 1900 to 2040 (a second
  /// before and at each, and the local midnights around them).
  static func instants(_ zones: TimeZoneCache) throws -> [Double] {
    var out: [Double] = [
      0, -0.5, 86_399.999_999_9, -86_400.000_000_1, 951_782_400, 1e12, 3e12, 9.5e12, 2.5e13, 9.999e13, -1e11, -2e11, -2.2e11,
      -5e12, -9.999e13, 1e14, -1e14, .nan, .infinity, -.infinity, 253_402_300_799, 253_402_300_800, -62_135_596_800,
      -62_167_219_200, -62_167_219_201,
    ]
    var t = -2_208_988_800.0  // 1900
    while t < 2_208_988_800 {  // 2040
      out.append(t)
      t += 29 * 86_400 + 3 * 3_600 + 17 * 60 + 13
    }
    for id in Self.zones where id.contains("/") {
      let rules = try zones.rules(id)
      var day: Int64 = -2_208_988_800
      while day < 2_208_988_800 {
        if rules.offset(at: day) != rules.offset(at: day + 86_400) {
          var (lo, hi) = (day, day + 86_400)
          while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if rules.offset(at: mid) == rules.offset(at: lo) { lo = mid } else { hi = mid }
          }
          for edge in [hi - 1, hi] {
            let offset = Int64(rules.offset(at: edge))
            let midnight = (edge + offset).floorDiv(86_400) * 86_400 - offset
            out += [Double(edge), Double(midnight - 1), Double(midnight), Double(midnight + 86_400 - 1)]
          }
        }
        day += 86_400
      }
    }
    return out
  }

  func testDateBuckets() throws {
    let zones = TimeZoneCache()
    let instants = try Self.instants(zones)
    print("ms_bucket over \(instants.count) instants in \(Self.zones.count) zones")
    let store = try Store(path: nil)
    defer { store.close() }
    try store.connection.execute("CREATE TABLE \"d\" (\"id\" INTEGER PRIMARY KEY, \"t\" REAL)")
    let insert = try store.connection.prepare("INSERT INTO \"d\" VALUES (?, ?)")
    for (i, t) in instants.enumerated() { try insert.execute([.integer(Int64(i)), .real(t)]) }
    var expected: [[String?]] = []
    for zone in Self.zones {
      let rules = try zones.rules(zone)
      for unit in DateBucket.allCases {
        let want = instants.map { unit.key($0, in: rules) }
        expected.append(want)
        var got: [String?] = []
        try store.connection.prepare("SELECT ms_bucket(\"t\", ?, ?) FROM \"d\" ORDER BY \"id\"").forEachRow([
          .text(unit.rawValue), .text(zone),
        ]) { got.append($0.isNull(0) ? nil : $0.text(0)) }
        XCTAssertEqual(got, want, "SQLite ms_bucket \(unit) \(zone)")
      }
    }
    let queries = Self.zones.flatMap { zone in
      DateBucket.allCases.map { "SELECT ms_bucket(\"v\", '\($0.rawValue)', '\(zone)') FROM \"w\" ORDER BY \"id\"" }
    }
    guard let results = try Self.onPostgres(.date, instants.map(Self.double), queries) else { return }
    var k = 0
    for zone in Self.zones {
      for unit in DateBucket.allCases {
        let got = results[k].map { $0[0] }
        let want = expected[k]
        k += 1
        XCTAssertEqual(got.count, want.count)
        var shown = 0
        for (i, (g, w)) in zip(got, want).enumerated() where g != w {
          shown += 1
          if shown <= 5 { XCTFail("ms_bucket(\(instants[i]), \(unit), \(zone)): Swift \(w ?? "NULL"), PostgreSQL \(g ?? "NULL")") }
        }
      }
    }
  }

  /// The rows of `queries` on PostgreSQL over the table `w` ("id", "v" holding `content`)
  /// whose `v` are `literals`, after the store's set-up; nil without PostgreSQL.
  static func onPostgres(_ content: ColumnContent, _ literals: [String], _ queries: [String]) throws -> [[PostgresScratch.Row]]? {
    guard let pg = try PostgresScratch.fromEnvironment() else {
      print("PostgreSQL forms not run: MODELSTORE_TEST_PG is not set (make test sets it)")
      return nil
    }
    defer { pg.drop() }
    let dialect = PostgresDialect()
    let values = literals.enumerated().map { "(\($0.offset), \($0.element))" }.joined(separator: ", ")
    let statements =
      dialect.storeSetupStatements(folding: TextFolding.table).map { PostgresScratch.Statement($0) } + [
        .init("CREATE TABLE \"w\" (\"id\" BIGINT PRIMARY KEY, \"v\" \(dialect.columnDefinition(content)))"),
        .init("INSERT INTO \"w\" VALUES \(values)"),
      ] + queries.map { PostgresScratch.Statement($0) }
    return Array(try pg.run(statements).suffix(queries.count))
  }

  /// A double as a PostgreSQL literal, exact.
  static func double(_ d: Double) -> String {
    if d.isNaN { return "'NaN'::double precision" }
    if d.isInfinite { return d > 0 ? "'Infinity'::double precision" : "'-Infinity'::double precision" }
    return "'\(d)'::double precision"
  }
}
