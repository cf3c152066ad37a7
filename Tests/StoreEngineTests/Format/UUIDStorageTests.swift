import JSONCore
import SQLiteCore
import SchemaModel
import XCTest

@testable import StoreEngine

/// Storage format 2: uuid attributes are 16-byte blobs; the wire keeps the canonical text,
/// and every comparison, sort and string operator answers as it did on the text.
final class UUIDStorageTests: XCTestCase {
  private let tokens = schema(
    entity(
      "Token",
      [
        attr("u", "uuid", unique: true), attr("v", "uuid", optional: true), attr("s", "string", optional: true),
        attr("n", "int", default: 0),
      ]),
    entity("Stamp", [attr("u", "uuid", default: ["generate": "uuid"]), attr("label", "string", default: ["generate": "uuid"])]))

  private let a = "0A1B2C3D-0000-4000-8000-000000000001"
  private let b = "9F000000-1111-4222-8333-444455556666"
  private let c = "F0E1D2C3-B4A5-4687-9889-AABBCCDDEEFF"

  private func store() throws -> Store {
    let s = try makeStore(tokens)
    try s.add("Token", ["u": .string(b), "v": .string(a), "s": .string(a), "n": 2])
    try s.add("Token", ["u": .string(a.lowercased()), "v": .string(a), "s": .string(c), "n": 1])
    try s.add("Token", ["u": .string(c), "n": 3])
    return s
  }

  func testStoredAsSixteenBytesAndReadAsCanonicalText() throws {
    let s = try store()
    var stored: [[SQLValue]] = []
    try s.connection.prepare("SELECT typeof(\"u\"), length(\"u\"), hex(\"u\") FROM \"Token\" ORDER BY \"_pk\"").forEachRow {
      stored.append([$0.value(0), $0.value(1), $0.value(2)])
    }
    XCTAssertEqual(stored[0], [.text("blob"), .integer(16), .text("9F000000111142228333444455556666")])
    XCTAssertEqual(stored[1][0], .text("blob"))
    XCTAssertEqual(try s.value("Token/2", "u"), .string(a), "lowercase input is stored as the same bytes and read back canonical")
    let column = try XCTUnwrap(try s.connection.scalar("SELECT type FROM pragma_table_info('Token') WHERE name = 'u'"))
    XCTAssertEqual(column, .text("BLOB"))
    expectStoreError(.validation) { try s.add("Token", ["u": "not-a-uuid"]) }
    let e = expectStoreError(.constraint) { try s.add("Token", ["u": .string(b.lowercased())]) }
    XCTAssertEqual(e?.details["existing"], "Token/1", "uniqueness holds on the bytes, whatever the case of the text")
  }

  func testGeneratedDefaultsAreBytesForUUIDsAndTextForStrings() throws {
    let s = try store()
    let stamp = try s.insert(entity: "Stamp", values: [:])
    let u = try XCTUnwrap(stamp["u"]?.stringValue)
    XCTAssertEqual(UUIDText.canonical(u), u)
    XCTAssertEqual(try s.value("Stamp/1", "u"), .string(u))
    let classes = try s.connection.prepare("SELECT typeof(\"u\") || ',' || typeof(\"label\") FROM \"Stamp\"").first([], { $0.text(0) })
    XCTAssertEqual(classes, "blob,text")
  }

  func testComparisonsBindTheBytes() throws {
    let s = try store()
    XCTAssertEqual(try s.idsWhere("Token", "u == %@", [.string(a)]), ["Token/2"])
    XCTAssertEqual(try s.idsWhere("Token", "u == %@", [.string(a.lowercased())]), ["Token/2"])
    XCTAssertEqual(try s.idsWhere("Token", "u != %@", [.string(a)]), ["Token/1", "Token/3"])
    XCTAssertEqual(try s.idsWhere("Token", "u < %@", [.string(b)]), ["Token/2"])
    XCTAssertEqual(try s.idsWhere("Token", "u >= %@", [.string(b)]), ["Token/1", "Token/3"])
    XCTAssertEqual(try s.idsWhere("Token", "u BETWEEN {%@, %@}", [.string(a), .string(b)]), ["Token/1", "Token/2"])
    XCTAssertEqual(try s.idsWhere("Token", "u IN %@", [[.string(c), .string(a)]]), ["Token/2", "Token/3"])
    XCTAssertEqual(try s.idsWhere("Token", "v == nil"), ["Token/3"])
    XCTAssertEqual(try s.idsWhere("Token", "v IN {%@, nil}", [.string(a)]), ["Token/1", "Token/2", "Token/3"])
    // Key paths: uuid with uuid compares bytes, uuid with a string compares the text.
    XCTAssertEqual(try s.idsWhere("Token", "u > v"), ["Token/1"])
    XCTAssertEqual(try s.idsWhere("Token", "u == v"), ["Token/2"])
    XCTAssertEqual(try s.idsWhere("Token", "v == s"), ["Token/1", "Token/3"], "Token/3: both nil, equal as in NSPredicate")
    XCTAssertEqual(try s.idsWhere("Token", "u < s"), ["Token/2"])
    XCTAssertThrowsError(try s.idsWhere("Token", "u ==[c] %@", [.string(a)]), "[c] is for the string operators")
  }

  func testSortOrderIsTheTextOrder() throws {
    let s = try makeStore(tokens)
    var texts: [String] = []
    for k in 0..<40 {
      let u = UUIDText.random()
      texts.append(u)
      try s.add("Token", ["u": .string(k % 2 == 0 ? u : u.lowercased())])
    }
    func fetched(ascending: Bool) throws -> [String] {
      var r = FetchRequest(entity: "Token")
      r.sort = [SortKey(keyPath: "u", ascending: ascending)]
      return try s.fetch(r).compactMap { $0["u"]?.stringValue }
    }
    XCTAssertEqual(try fetched(ascending: true), texts.sorted())
    XCTAssertEqual(try fetched(ascending: false), texts.sorted().reversed())
  }

  func testStringOperatorsSeeTheText() throws {
    let s = try store()
    XCTAssertEqual(try s.idsWhere("Token", "u BEGINSWITH '0A1B'"), ["Token/2"])
    XCTAssertEqual(try s.idsWhere("Token", "u BEGINSWITH '0a1b'"), [])
    XCTAssertEqual(try s.idsWhere("Token", "u BEGINSWITH[c] '0a1b'"), ["Token/2"])
    XCTAssertEqual(try s.idsWhere("Token", "u ENDSWITH 'EEFF'"), ["Token/3"])
    XCTAssertEqual(try s.idsWhere("Token", "u CONTAINS '-4222-'"), ["Token/1"])
    XCTAssertEqual(try s.idsWhere("Token", "u LIKE '9F*'"), ["Token/1"])
    XCTAssertEqual(try s.idsWhere("Token", "u MATCHES '[0-9A-F-]{8}-0000-.*'"), ["Token/2"])
    XCTAssertEqual(try s.idsWhere("Token", "u IN %@", [.string("list: \(c), \(a)")]), ["Token/2", "Token/3"])
    XCTAssertEqual(try s.idsWhere("Token", "s BEGINSWITH u"), [], "no string starts with its own object's uuid here")
    XCTAssertEqual(try s.idsWhere("Token", "s CONTAINS v"), ["Token/1"])
    XCTAssertEqual(try s.idsWhere("Token", "CAST(u, 'NSString') BEGINSWITH 'F0E1'"), ["Token/3"])
  }

  func testLongINListsOfUUIDsAreBoundAsOneValue() throws {
    let s = try makeStore(tokens)
    var members: [JSONValue] = []
    var wanted: [String] = []
    for k in 0..<700 {
      let u = UUIDText.random()
      if k % 7 == 0 {
        wanted.append(try s.add("Token", ["u": .string(u), "n": .int(Int64(k))]))
      } else {
        try s.add("Token", ["u": .string(UUIDText.random())])
      }
      members.append(.string(k % 3 == 0 ? u.lowercased() : u))
    }
    XCTAssertGreaterThan(members.count, SQLBuilder.inlineMembers)
    XCTAssertEqual(try s.idsWhere("Token", "u IN %@", [.array(members)]), wanted)
    XCTAssertEqual(try s.idsWhere("Token", "v IN %@", [.array(members + [.null])]).count, 700, "nil matches the missing values")
    XCTAssertEqual(try s.idsWhere("Token", "NOT (u IN %@)", [.array(members)]).count, 700 - wanted.count)
    let plan = try s.plan("Token")
    var builder = SQLBuilder(catalog: s.catalog, base: plan)
    let sql = try builder.compile(try PredicateParser.parse("u IN %@", args: [.array(members)]))
    XCTAssertTrue(sql.contains("ms_uuid_bytes(value)"), sql)
    XCTAssertEqual(builder.args.count, 1, "one bound value")
  }

  func testGroupsSectionsAndAggregatesDecodeToText() throws {
    let s = try store()
    var r = AggregateRequest(entity: "Token")
    r.aggregates = [Aggregate(.count, as: "n"), Aggregate(.max, "n", as: "top")]
    r.groupBy = [GroupingKey(keyPath: "v")]
    r.having = try PredicateParser.parse("v == %@", args: [.string(a)])
    let groups = try s.aggregate(r)
    XCTAssertEqual(groups.map { $0.key["v"] }, [.string(a)])
    XCTAssertEqual(groups.first?.values["n"], 2)
    XCTAssertEqual(groups.first?.values["top"], 2)
    var f = FetchRequest(entity: "Token")
    f.sort = [SortKey(keyPath: "v")]
    f.sectionBy = GroupingKey(keyPath: "v")
    let sections = try XCTUnwrap(try s.fetchWithSections(f).sections)
    XCTAssertEqual(sections.map(\.key), [.null, .string(a)])
  }

  func testExportImportAndTombstonesKeepTheText() throws {
    let s = try store()
    let sink = MemorySink(limit: 1 << 20)
    _ = try s.export(ExportOptions(entities: ["Token"], layout: .ndjson), to: sink)
    let text = String(decoding: sink.bytes, as: UTF8.self)
    XCTAssertTrue(text.contains("\"u\":\"\(b)\""), text)
    let copy = try Store(path: nil)
    _ = try copy.importObjects(.bytes(sink.bytes), mode: .replace)
    XCTAssertEqual(try copy.value("Token/2", "u"), .string(a))
    XCTAssertEqual(
      try copy.connection.scalar("SELECT count(*) FROM \"Token\" WHERE typeof(\"u\") = 'blob' AND length(\"u\") = 16"), .integer(3))
    _ = try s.delete(id: "Token/1")
    let last = try XCTUnwrap(try s.history().last)
    let tombstone = last.changes.arrayValue?.first?["tombstone"]
    XCTAssertEqual(tombstone?["u"], .string(b))
  }

  func testForeignTextValuesPassThrough() throws {
    let s = try store()
    try s.connection.execute("UPDATE \"Token\" SET \"v\" = 'written by another program' WHERE \"_pk\" = 3")
    XCTAssertEqual(try s.value("Token/3", "v"), "written by another program")
    XCTAssertEqual(try s.idsWhere("Token", "v BEGINSWITH 'written'"), ["Token/3"])
  }
}
