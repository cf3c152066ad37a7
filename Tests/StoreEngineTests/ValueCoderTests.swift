import JSONCore
import SQLiteCore
import StoreEngine
import XCTest

@testable import SchemaModel

final class ValueCoderTests: XCTestCase {
  private func encodeError(_ type: AttributeType, _ v: JSONValue, file: StaticString = #filePath, line: UInt = #line) -> ValueError? {
    expectError(ValueError.self, { try type.encode(v) }, file: file, line: line)
  }

  /// encode then decode gives `wire` back (defaults to the input).
  private func assertRoundTrip(
    _ type: AttributeType, _ v: JSONValue, stored: SQLValue, wire: JSONValue? = nil, file: StaticString = #filePath, line: UInt = #line
  ) {
    do {
      let s = try type.encode(v)
      XCTAssertEqual(s, stored, "stored form", file: file, line: line)
      XCTAssertEqual(type.decode(s), wire ?? v, "wire form", file: file, line: line)
    } catch {
      XCTFail("\(type) refused \(v): \(error)", file: file, line: line)
    }
  }

  func testNullIsNullForEveryType() {
    for t in AttributeType.allCases {
      XCTAssertEqual(try t.encode(.null), .null)
      XCTAssertEqual(t.decode(.null), .null)
    }
  }

  func testString() {
    assertRoundTrip(.string, "hello", stored: .text("hello"))
    assertRoundTrip(.string, "", stored: .text(""))
    assertRoundTrip(.string, "a\u{0}b é", stored: .text("a\u{0}b é"))
    XCTAssertEqual(encodeError(.string, 5)?.message, "expected a string for type string, got integer 5")
  }

  func testIntegers() {
    assertRoundTrip(.int, .int(Int64.max), stored: .integer(Int64.max))
    assertRoundTrip(.int64, .int(Int64.min), stored: .integer(Int64.min))
    assertRoundTrip(.int16, -32768, stored: .integer(-32768))
    assertRoundTrip(.int16, 32767, stored: .integer(32767))
    assertRoundTrip(.int32, 2_147_483_647, stored: .integer(2_147_483_647))
    XCTAssertEqual(encodeError(.int16, 32768)?.message, "expected an integer in -32768...32767 for type int16, got integer 32768")
    XCTAssertEqual(encodeError(.int32, -2_147_483_649)?.expected, "an integer in -2147483648...2147483647")
    XCTAssertEqual(encodeError(.int, 1.5)?.message, "expected an integer for type int, got number 1.5")
    XCTAssertEqual(encodeError(.int64, "7")?.message, "expected an integer for type int64, got string \"7\"")
    XCTAssertEqual(encodeError(.int16, true)?.message, "expected an integer in -32768...32767 for type int16, got boolean")
  }

  func testDoubleAndFloat() {
    assertRoundTrip(.double, 1.5, stored: .real(1.5))
    assertRoundTrip(.double, 2, stored: .real(2), wire: .double(2))
    assertRoundTrip(.float, 0.5, stored: .real(0.5))
    XCTAssertEqual(try AttributeType.float.encode(0.1), .real(Double(Float(0.1))), "stored with Float precision")
    XCTAssertEqual(try AttributeType.float.encode(3), .real(3))
    XCTAssertEqual(encodeError(.float, 1e39)?.message, "expected a number within Float's range for type float, got number 1e+39")
    XCTAssertEqual(encodeError(.double, "1.5")?.message, "expected a number for type double, got string \"1.5\"")
    XCTAssertEqual(AttributeType.double.decode(.integer(4)), .double(4), "an integer stored by someone else reads as a number")
  }

  func testDecimal() {
    assertRoundTrip(.decimal, "012.50", stored: .text("12.5"), wire: "12.5")
    assertRoundTrip(.decimal, 42, stored: .text("42"), wire: "42")
    assertRoundTrip(.decimal, "-0.000", stored: .text("0"), wire: "0")
    XCTAssertEqual(
      encodeError(.decimal, "1,5")?.message, "expected a decimal string such as \"12.50\" for type decimal, got string \"1,5\"")
    XCTAssertEqual(encodeError(.decimal, 1.5)?.expected, "a decimal string", "binary doubles would lose digits")
  }

  func testBool() {
    assertRoundTrip(.bool, true, stored: .integer(1))
    assertRoundTrip(.bool, false, stored: .integer(0))
    XCTAssertEqual(AttributeType.bool.decode(.integer(7)), .bool(true))
    XCTAssertEqual(encodeError(.bool, 1)?.message, "expected a boolean for type bool, got integer 1")
    XCTAssertEqual(encodeError(.bool, "true")?.message, "expected a boolean for type bool, got string \"true\"")
  }

  func testDate() {
    assertRoundTrip(.date, "2024-02-29T12:00:00.000Z", stored: .real(1_709_208_000))
    assertRoundTrip(.date, "2024-02-29T14:00:00+02:00", stored: .real(1_709_208_000), wire: "2024-02-29T12:00:00.000Z")
    assertRoundTrip(.date, "1969-12-31T23:59:59.5Z", stored: .real(-0.5), wire: "1969-12-31T23:59:59.500Z")
    XCTAssertEqual(AttributeType.date.decode(.integer(0)), "1970-01-01T00:00:00.000Z")
    XCTAssertEqual(
      encodeError(.date, "2023-02-29")?.message,
      "expected an ISO 8601 date such as \"2026-01-31T12:00:00.000Z\" for type date, got string \"2023-02-29\"")
    XCTAssertEqual(encodeError(.date, 0)?.message, "expected an ISO 8601 date string for type date, got integer 0")
  }

  func testUUID() {
    let bytes: [UInt8] = [0xE6, 0x21, 0xE1, 0xF8, 0xC3, 0x6C, 0x49, 0x5A, 0x93, 0xFC, 0x0C, 0x24, 0x7A, 0x3E, 0x6E, 0x5F]
    assertRoundTrip(.uuid, "e621e1f8-c36c-495a-93fc-0c247a3e6e5f", stored: .blob(bytes), wire: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
    assertRoundTrip(.uuid, "E621E1F8-C36C-495A-93FC-0C247A3E6E5F", stored: .blob(bytes), wire: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
    XCTAssertEqual(encodeError(.uuid, "nope")?.message, "expected a UUID string for type uuid, got string \"nope\"")
    XCTAssertEqual(encodeError(.uuid, "E621E1F8-C36C-495A-93FC-0C247A3E6E5G")?.message.hasPrefix("expected a UUID string"), true)
    XCTAssertEqual(encodeError(.uuid, "E621E1F8+C36C-495A-93FC-0C247A3E6E5F")?.message.hasPrefix("expected a UUID string"), true)
    // Values of another class (written by another program) pass through.
    XCTAssertEqual(AttributeType.uuid.decode(.text("E621E1F8-C36C-495A-93FC-0C247A3E6E5F")), "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
    XCTAssertEqual(AttributeType.uuid.decode(.blob([1, 2, 3])), "AQID")
    // Byte order is text order.
    var texts = (0..<200).map { _ in UUIDText.random() }
    texts.append(contentsOf: ["00000000-0000-4000-8000-000000000000", "FFFFFFFF-FFFF-4FFF-BFFF-FFFFFFFFFFFF"])
    let byBytes = texts.sorted { UUIDText.bytes($0)!.lexicographicallyPrecedes(UUIDText.bytes($1)!) }
    XCTAssertEqual(byBytes, texts.sorted())
    for t in texts { XCTAssertEqual(UUIDText.text(UUIDText.bytes(t)!), t) }
  }

  func testData() {
    assertRoundTrip(.data, "Zm9vYmFy", stored: .blob(Array("foobar".utf8)))
    assertRoundTrip(.data, "", stored: .blob([]))
    XCTAssertEqual(encodeError(.data, "Zm9")?.message, "expected base64 text for type data, got string \"Zm9\"")
    XCTAssertEqual(encodeError(.data, .array([]))?.message, "expected base64 text for type data, got array")
  }

  func testURL() {
    assertRoundTrip(.url, "https://example.com/a?b=c#d", stored: .text("https://example.com/a?b=c#d"))
    assertRoundTrip(.url, "file:///tmp/x", stored: .text("file:///tmp/x"))
    XCTAssertEqual(encodeError(.url, "")?.expected, "a URL without spaces or control characters")
    XCTAssertNotNil(encodeError(.url, "https://a b"))
    XCTAssertNotNil(encodeError(.url, "https://a\u{7f}b"))
    XCTAssertNotNil(encodeError(.url, "https://a\nb"))
  }

  func testJSON() {
    let doc: JSONValue = ["b": [1, 2.5, "x", .null], "a": true]
    assertRoundTrip(.json, doc, stored: .text(#"{"b":[1,2.5,"x",null],"a":true}"#))
    assertRoundTrip(.json, "plain", stored: .text(#""plain""#))
    assertRoundTrip(.json, 3, stored: .text("3"))
    XCTAssertEqual(AttributeType.json.decode(.text("not json {")), .string("not json {"), "foreign text passes through")
  }

  func testLongStringsAreNotEchoedInMessages() {
    let long = String(repeating: "x", count: 41)
    XCTAssertEqual(encodeError(.int, .string(long))?.got, "string")
    XCTAssertEqual(encodeError(.int, .string(String(repeating: "x", count: 40)))?.got, "string \"\(String(repeating: "x", count: 40))\"")
  }

  func testDecodeOfUnexpectedStorageClasses() {
    XCTAssertEqual(AttributeType.string.decode(.integer(5)), .int(5))
    XCTAssertEqual(AttributeType.string.decode(.real(1.5)), .double(1.5))
    XCTAssertEqual(AttributeType.string.decode(.blob([0x66])), .string("Zg=="))
    XCTAssertEqual(AttributeType.int.decode(.text("12")), .string("12"))
    XCTAssertEqual(AttributeType.data.decode(.text("raw")), .string("raw"))
  }

  func testWireDescriptions() {
    XCTAssertEqual(AttributeType.string.wireDescription, "a string")
    XCTAssertEqual(AttributeType.int16.wireDescription, "an integer in -32768...32767")
    XCTAssertEqual(AttributeType.json.wireDescription, "any JSON value")
  }

  func testColumnAffinities() {
    // The column's declared type: the engine's content for the type, SQLite's answer for it.
    func affinity(_ t: AttributeType) -> String { SQLiteDialect().columnType(t.columnContent) }
    XCTAssertEqual(affinity(.int), "INTEGER")
    XCTAssertEqual(affinity(.bool), "INTEGER")
    XCTAssertEqual(affinity(.date), "REAL")
    XCTAssertEqual(affinity(.float), "REAL")
    XCTAssertEqual(affinity(.data), "BLOB")
    XCTAssertEqual(affinity(.decimal), "TEXT")
    XCTAssertEqual(affinity(.uuid), "BLOB")
    for t in AttributeType.allCases { XCTAssertEqual(affinity(t), t.columnFamily, "\(t): the column family the schema validator checks") }
    XCTAssertTrue(AttributeType.int32.isInteger)
    XCTAssertFalse(AttributeType.bool.isInteger)
    XCTAssertTrue(AttributeType.decimal.isNumeric)
    XCTAssertNil(AttributeType.string.integerRange)
  }
}
