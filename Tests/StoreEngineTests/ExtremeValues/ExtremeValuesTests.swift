import Foundation
import JSONCore
import SQLiteCore
import SchemaModel
import XCTest

@testable import StoreEngine

/// Every read path over columns filled, behind the engine's back, with every kind of value
/// SQLite can hold: each answer is a well-formed result or a precise error, never a trap.
final class ExtremeValuesTests: XCTestCase {
  static let types = [
    "string", "int", "int16", "int32", "int64", "double", "float", "decimal", "bool", "date", "uuid", "data", "url", "json",
  ]

  /// A ModelStore store whose `Odd` rows each hold one extreme in every attribute column.
  private func modelStoreWithExtremes() throws -> Store {
    let store = try makeStore(
      schema(
        entity(
          "Odd", Self.types.map { attr("a_\($0)", $0, optional: true) },
          relationships: [rel("peer", "Peer", inverse: "odds")]),
        entity("Peer", [attr("name", "string")], relationships: [rel("odds", "Odd", inverse: "peer", toMany: true)])))
    let peer = try store.add("Peer", ["name": "p"])
    let columns = Self.types.map { Identifier.quote("a_\($0)") }
    for expression in ExtremeValues.sql {
      let id = try store.add("Odd", ["peer": .string(peer)])
      let pk = try XCTUnwrap(ObjectID(id)).pk
      let e = expression == "?" ? "?1" : expression
      try store.connection.run(
        "UPDATE \"Odd\" SET \(columns.map { "\($0) = \(e)" }.joined(separator: ", ")) WHERE \"_pk\" = ?2",
        [ExtremeValues.nan, .integer(pk)])
    }
    // A history row of another writer, with a timestamp no calendar has.
    try store.connection.run(
      "UPDATE \(Store.historyTable) SET \"timestamp\" = 1e300 WHERE \"token\" = (SELECT min(\"token\") FROM \(Store.historyTable))")
    return store
  }

  func testARowWhoseEntityColumnNamesNoEntityIsNotFound() throws {
    let store = try modelStoreWithExtremes()
    // A table of one entity has `_ent` in the first format-2 layout (or when another
    // program added it): what is there decides.
    try store.connection.execute("ALTER TABLE \"Odd\" ADD COLUMN \"_ent\" INTEGER NOT NULL DEFAULT \(store.entityCodes.code("Odd")!)")
    try store.catalog.reload()
    for (k, ent) in ["'Bogus'", "x'00'", "9e999", "''"].enumerated() {
      try store.connection.run("UPDATE \"Odd\" SET \"_ent\" = \(ent) WHERE \"_pk\" = ?", [.integer(Int64(k + 1))])
      let e = expectStoreError(.notFound) { try store.get(id: "Odd/\(k + 1)") }
      XCTAssertEqual(e?.message, "object Odd/\(k + 1) does not exist", ent)
      expectStoreError(.notFound) { try store.update(id: "Odd/\(k + 1)", values: ["a_int": 1]) }
    }
    let sweep = ReadPathSweep(store, "Odd")
    try sweep.run()
    XCTAssertGreaterThan(sweep.results, 350, "errors: \(sweep.errors)")
  }

  func testEveryReadPathOfAModelStoreStoreAnswersOverExtremeValues() throws {
    let store = try modelStoreWithExtremes()
    let sweep = ReadPathSweep(store, "Odd")
    try sweep.run()
    XCTAssertGreaterThan(sweep.results, 350, "errors: \(sweep.errors)")

    let byDate = try rows(store, "a_date")
    XCTAssertEqual(byDate["1e300"], .double(1e300), "a date without a calendar date reads as the stored number")
    XCTAssertEqual(byDate["9e999"], .null, "an infinite date reads as null, the only JSON for it")
    XCTAssertEqual(byDate["-1e19"], .double(-1e19))
    XCTAssertEqual(byDate["1e14"], .double(1e14), "the first second past the calendar range")
    XCTAssertEqual(byDate["0"], "1970-01-01T00:00:00.000Z")
    XCTAssertEqual(byDate["'abc'"], "abc", "text in a date column passes through")
    XCTAssertEqual(byDate["?"], .null, "SQLite stores a NaN as NULL")
    let byDouble = try rows(store, "a_double")
    XCTAssertEqual(JSONWriter.encodeString(byDouble["-9e999"] ?? 0), "null", "a non-finite number is written null")
    XCTAssertEqual(byDouble["1e300"], .double(1e300))
    XCTAssertEqual(byDouble["9223372036854775807"], .double(9.223372036854775807e18))
    XCTAssertEqual(try rows(store, "a_int")["-9223372036854775808"], .int(.min))
    XCTAssertEqual(
      try rows(store, "a_string")["CAST(x'fffe00c3' AS TEXT)"], .string("\u{FFFD}\u{FFFD}\u{0}\u{FFFD}"), "invalid UTF-8 is repaired")

    // Every date without a calendar date falls in the nil section, in every zone and bucket.
    for zone in ExtremeValues.zones {
      for bucket in DateBucket.allCases {
        var r = FetchRequest(entity: "Odd")
        r.sectionBy = GroupingKey(keyPath: "a_date", bucket: bucket, timeZone: zone)
        r.select = ["a_date"]
        let result = try store.fetchWithSections(r)
        let sections = try XCTUnwrap(result.sections)
        for s in sections {
          for o in result.objects[s.start..<s.end] {
            let date = o["a_date"] ?? .null
            if date.stringValue?.hasPrefix("19") == true {
              XCTAssertNotEqual(s.key, .null, "\(bucket) \(zone) \(date)")
            } else {
              XCTAssertEqual(s.key, .null, "\(bucket) \(zone) \(date)")
            }
          }
        }
      }
    }

    var sums = AggregateRequest(entity: "Odd")
    sums.aggregates = [Aggregate(.sum, "a_double", as: "total"), Aggregate(.sum, "a_int", as: "whole")]
    XCTAssertEqual(
      try store.aggregate(sums).first?.values, ["total": .null, "whole": .null],
      "inf + -inf is not a number: null (an INTEGER column keeps a real that is not whole as a real)")
  }

  func testAnIntegerSumBeyond64BitsIsAPreciseRefusal() throws {
    let store = try makeStore(schema(entity("N", [attr("i", "int64"), attr("d", "double")])))
    for _ in 0..<2 { try store.add("N", ["i": .int(.max), "d": 1]) }
    var sum = AggregateRequest(entity: "N")
    sum.aggregates = [Aggregate(.sum, "d", as: "real"), Aggregate(.sum, "i", as: "total")]
    let e = expectStoreError(.invalidArgument) { try store.aggregate(sum) }
    XCTAssertEqual(e?.place?.description, "aggregates[1]")
    XCTAssertEqual(e?.details["reason"], "integerOverflow")
    XCTAssertEqual(e?.message.hasPrefix("aggregates[1]: sum(i) is beyond 64 bits"), true, e?.message ?? "")
    var avg = AggregateRequest(entity: "N")
    avg.aggregates = [Aggregate(.avg, "i", as: "mean")]
    XCTAssertEqual(try store.aggregate(avg).first?.values["mean"], .double(9.223372036854775807e18), "avg sums as doubles")
  }

  /// The wire value of `column` in each row, keyed by the SQL expression written there.
  private func rows(_ store: Store, _ column: String) throws -> [String: JSONValue] {
    let objects = try store.fetch(FetchRequest(entity: "Odd"))  // by ascending key: in writing order
    XCTAssertEqual(objects.count, ExtremeValues.sql.count)
    var out: [String: JSONValue] = [:]
    for (e, o) in zip(ExtremeValues.sql, objects) { out[e] = o[column] ?? .null }
    return out
  }
}

/// The same over a Core Data store written by hand, browsed in place and imported.
extension ExtremeValuesTests {
  /// A Core Data store with entity Odd (ZODD: one column of each declared type Core Data
  /// writes, and a to-one `peer`) and Peer. `importable` keeps the values the import
  /// converts (numbers in the date column, 16 bytes or NULL in the UUID column, a real key).
  static func writeCoreDataStore(_ path: String, importable: Bool) throws {
    let c = try Connection(path: path)
    defer { c.close() }
    try c.execute(
      """
      CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
      CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB);
      CREATE TABLE ZODD ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZS VARCHAR, ZI INTEGER, ZD FLOAT,
        ZDT TIMESTAMP, ZDEC DECIMAL, ZBIN BLOB, ZUID BLOB, ZPEER INTEGER );
      CREATE INDEX ZODD_ZPEER_INDEX ON ZODD (ZPEER);
      CREATE TABLE ZPEER ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR );
      INSERT INTO ZPEER VALUES (1, 2, 1, 'p');
      """)
    try c.run("INSERT INTO Z_PRIMARYKEY VALUES (1, 'Odd', 0, ?), (2, 'Peer', 0, 1)", [.integer(Int64(ExtremeValues.sql.count))])
    let plist = PlistWriter.encode(.dict([("NSStoreType", .string("SQLite")), ("NSPersistenceFrameworkVersion", .int(1044))]))
    try c.run("INSERT INTO Z_METADATA VALUES (1, 'E0E0E0E0-0000-4000-8000-000000000001', ?)", [.blob(plist)])
    for (k, expression) in ExtremeValues.sql.enumerated() {
      let e = expression == "?" ? "?1" : expression
      let number = e.first.map { $0 == "-" || $0.isNumber } ?? false
      let date = importable && !number ? "NULL" : e
      let uuid = importable ? (expression.hasPrefix("x'0001") ? e : "NULL") : e
      let peer = importable ? "1" : e
      // The last row has the largest key SQLite allows (unless importing: kept small there).
      let pk: Int64 = k == ExtremeValues.sql.count - 1 && !importable ? .max : Int64(k + 1)
      try c.run(
        "INSERT INTO ZODD VALUES (?2, 1, 1, \(e), \(e), \(e), \(date), \(e), \(e), \(uuid), \(peer))", [ExtremeValues.nan, .integer(pk)])
    }
  }

  private func coreDataPath(importable: Bool) throws -> String {
    let path = temporaryPath(self, "Odd.sqlite")
    try Self.writeCoreDataStore(path, importable: importable)
    return path
  }

  func testEveryReadPathOfACoreDataStoreInPlaceAnswersOverExtremeValues() throws {
    let store = try Store.openCoreData(path: try coreDataPath(importable: false))
    defer { store.close() }
    XCTAssertEqual(
      store.schema?.entities.first { $0.name == "Odd" }?.attributes.map { "\($0.name):\($0.type.rawValue)" },
      ["s:string", "i:int64", "d:double", "dt:date", "dec:decimal", "bin:data", "uid:uuid"])
    let sweep = ReadPathSweep(store, "Odd")
    try sweep.run()
    XCTAssertGreaterThan(sweep.results, 220, "errors: \(sweep.errors)")

    let objects = try store.fetch(FetchRequest(entity: "Odd"))
    let byExpression = Dictionary(uniqueKeysWithValues: zip(ExtremeValues.sql, objects.map { $0["dt"] ?? .null }))
    XCTAssertEqual(byExpression["'abc'"], .null, "text in a Core Data date column is no date (the import refuses it)")
    XCTAssertEqual(byExpression["1e300"], .double(1e300), "seconds since 2001 + 978307200, still no calendar date")
    XCTAssertEqual(byExpression["9e999"], .null)
    XCTAssertEqual(byExpression["-1e19"], .double(-1e19 + 978_307_200))
    XCTAssertEqual(byExpression["0"], "2001-01-01T00:00:00.000Z")
    XCTAssertEqual(objects.last?["_id"], .string("Odd/\(Int64.max)"))

    var g = AggregateRequest(entity: "Odd")
    g.groupBy = [GroupingKey(keyPath: "dt", bucket: .year, timeZone: "Europe/Paris")]
    g.aggregates = [Aggregate(.count, as: "n")]
    let groups = try store.aggregate(g)
    XCTAssertEqual(groups.first { $0.key["dt"] == "2001" }?.values["n"], 4, "0, 1, -0.0, 4.9e-324; text is no date")
    let farPast = String(ISODate.format(-1e14 + 978_307_200).dropLast(20))  // the year of -YYYYYYY-MM-DDTHH:MM:SS.sssZ
    XCTAssertEqual(groups.first { $0.key["dt"] == .string(farPast) }?.values["n"], 1, "-1e14 + 978307200 is still on the calendar")
    XCTAssertNotNil(groups.first { $0.key["dt"] == .null }, "the dates without a calendar date, with the nil ones")
  }

  func testImportingACoreDataStoreOfExtremeValuesGivesAPreciseErrorOrAStoreThatReads() throws {
    // Text and blobs in the date column, odd-sized UUIDs: refused, naming the place.
    let refused = expectStoreError(.validation) { try Store(path: nil).importCoreData(path: try coreDataPath(importable: false)) }
    XCTAssertEqual(refused?.details["entity"], "Odd")

    let store = try Store(path: nil)
    let summary = try store.importCoreData(path: try coreDataPath(importable: true))
    XCTAssertEqual(summary.counts.first { $0.entity == "Odd" }?.count, ExtremeValues.sql.count)
    let sweep = ReadPathSweep(store, "Odd")
    try sweep.run()
    XCTAssertGreaterThan(sweep.results, 220, "errors: \(sweep.errors)")
    XCTAssertEqual(try store.get(id: "Odd/3")["dt"], .double(1e300))
  }
}
