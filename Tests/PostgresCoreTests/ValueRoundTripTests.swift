import TestSupport
import XCTest

@testable import PostgresCore

/// Every class of `SQLValue` bound to a column of every type the dialect (or an
/// expression) uses, and read back: what PostgreSQL keeps, or the precise refusal.
final class ValueRoundTripTests: XCTestCase {
  enum Outcome {
    case reads(SQLValue)
    case fails(String)  // SQLSTATE
  }

  static let uuid: [UInt8] = [0xA0, 0xEE, 0xBC, 0x99, 0x9C, 0x0B, 0x4E, 0xF8, 0xBB, 0x6D, 0x6B, 0xB9, 0xBD, 0x38, 0x0A, 0x11]

  static let cases: [(type: String, value: SQLValue, outcome: Outcome)] = [
    ("BIGINT", .null, .reads(.null)),
    ("BIGINT", .integer(.max), .reads(.integer(.max))),
    ("BIGINT", .integer(.min), .reads(.integer(.min))),
    ("BIGINT", .real(2.0), .reads(.integer(2))),
    ("BIGINT", .real(1.5), .fails("22023")),
    ("BIGINT", .text("12"), .reads(.integer(12))),
    ("BIGINT", .text("twelve"), .fails("22P02")),
    ("BIGINT", .blob([1]), .fails("22023")),
    ("INTEGER", .integer(-7), .reads(.integer(-7))),
    ("SMALLINT", .integer(1), .reads(.integer(1))),
    ("SMALLINT", .integer(70000), .fails("22003")),
    ("BOOLEAN", .integer(0), .reads(.integer(0))),
    ("BOOLEAN", .integer(5), .reads(.integer(1))),
    ("BOOLEAN", .real(0), .reads(.integer(0))),
    ("DOUBLE PRECISION", .real(0.1), .reads(.real(0.1))),
    ("DOUBLE PRECISION", .real(-0.0), .reads(.real(-0.0))),
    ("DOUBLE PRECISION", .real(.leastNonzeroMagnitude), .reads(.real(.leastNonzeroMagnitude))),
    ("DOUBLE PRECISION", .real(1.7976931348623157e308), .reads(.real(1.7976931348623157e308))),
    ("DOUBLE PRECISION", .real(.infinity), .reads(.real(.infinity))),
    ("DOUBLE PRECISION", .real(-.infinity), .reads(.real(-.infinity))),
    ("DOUBLE PRECISION", .integer(3), .reads(.real(3))),
    ("DOUBLE PRECISION", .text("1.25"), .reads(.real(1.25))),
    ("DOUBLE PRECISION", .blob([1]), .fails("22023")),
    ("REAL", .real(0.5), .reads(.real(0.5))),
    ("NUMERIC", .integer(5), .reads(.text("5"))),
    ("NUMERIC", .real(1.5), .reads(.text("1.5"))),
    ("NUMERIC", .text("1.50"), .reads(.text("1.50"))),
    ("TEXT", .text(""), .reads(.text(""))),
    ("TEXT", .text("héllo\u{1F600}'\"\\"), .reads(.text("héllo\u{1F600}'\"\\"))),
    ("TEXT", .text("a\u{0}b"), .fails("22021")),
    ("TEXT", .integer(42), .reads(.text("42"))),
    ("TEXT", .real(0.1), .reads(.text("0.1"))),
    ("TEXT", .blob([65]), .fails("22023")),
    ("UUID", .blob(uuid), .reads(.blob(uuid))),
    ("UUID", .text("A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11"), .reads(.blob(uuid))),
    ("UUID", .blob([1, 2, 3]), .fails("22023")),
    ("UUID", .integer(1), .fails("22023")),
    ("BYTEA", .blob([]), .reads(.blob([]))),
    ("BYTEA", .blob([0, 255, 10, 92, 39]), .reads(.blob([0, 255, 10, 92, 39]))),
    ("BYTEA", .text("hé"), .reads(.blob(Array("hé".utf8)))),
    ("BYTEA", .integer(1), .fails("22023")),
  ]

  func testEveryValueClassThroughEveryColumnType() throws {
    let schema = try PostgresTestSchema("values")
    let db = try freshConnection(schema)
    for (n, c) in Self.cases.enumerated() {
      let table = "t\(n)"
      try db.execute("CREATE TABLE \(table) (c \(c.type))")
      let label = "\(c.type) ← \(c.value)"
      switch c.outcome {
      case .reads(let expected):
        try db.run("INSERT INTO \(table) (c) VALUES (?)", [c.value])
        let read = try db.cached("SELECT c FROM \(table)").first { $0.value(0) }
        XCTAssertTrue(read?.isIdentical(to: expected) ?? false, "\(label): read \(String(describing: read))")
      case .fails(let state):
        let e = postgresError { try db.run("INSERT INTO \(table) (c) VALUES (?)", [c.value]) }
        XCTAssertEqual(e?.sqlState, state, "\(label): \(String(describing: e))")
      }
    }
  }

  func testRowsReadAsOtherClassesConvertAsSQLiteDoes() throws {
    let schema = try PostgresTestSchema("rows")
    let db = try freshConnection(schema)
    let row = try db.cached(
      "SELECT 12::bigint, 2.75::float8, '42abc'::text, true, ?::uuid, '\\x0102'::bytea, NULL::text, 9.5::numeric, 'plain'::text"
    ).first([.blob(Self.uuid)]) { r in
      (
        r.count, r.int(1), r.double(0), r.int(2), r.double(2), r.int(3), r.text(3), r.blob(4), r.blob(5), r.isNull(6),
        r.storageClass(6), r.storageClass(4), r.storageClass(7), r.value(7),
        r.withASCIIText(8) { XCTAssertEqual(Array($0), Array("plain".utf8)) },
        r.withASCIIText(4) { _ in }
      )
    }
    let r = try XCTUnwrap(row)
    XCTAssertEqual(r.0, 9)
    XCTAssertEqual(r.1, 2, "a real read as an integer goes toward zero")
    XCTAssertEqual(r.2, 12)
    XCTAssertEqual(r.3, 42, "text read as an integer: its leading digits")
    XCTAssertEqual(r.4, 42)
    XCTAssertEqual(r.5, 1)
    XCTAssertEqual(r.6, "1")
    XCTAssertEqual(r.7, Self.uuid)
    XCTAssertEqual(r.8, [1, 2])
    XCTAssertTrue(r.9)
    XCTAssertEqual(r.10, .null)
    XCTAssertEqual(r.11, .blob)
    XCTAssertEqual(r.12, .text, "numeric is text")
    XCTAssertEqual(r.13, .text("9.5"))
    XCTAssertTrue(r.14)
    XCTAssertFalse(r.15, "a uuid is not text")
  }
}
