import XCTest

@testable import SchemaModel

final class ISODateTests: XCTestCase {
  func testEpochForms() {
    XCTAssertEqual(ISODate.parse("1970-01-01T00:00:00Z"), 0)
    XCTAssertEqual(ISODate.parse("1970-01-01T00:00:00.000Z"), 0)
    XCTAssertEqual(ISODate.parse("1970-01-01"), 0, "a date alone is midnight UTC")
    XCTAssertEqual(ISODate.parse("1970-01-01T00:00"), 0, "seconds are optional")
    XCTAssertEqual(ISODate.parse("1970-01-01T00:00:00"), 0, "no zone means UTC")
    XCTAssertEqual(ISODate.parse("1970-01-01t00:00:00z"), 0, "lowercase t and z")
    XCTAssertEqual(ISODate.parse("1970-01-01 00:00:00Z"), 0, "space separator")
  }

  func testKnownInstants() {
    // Reference values from `date -u -d ... +%s`.
    XCTAssertEqual(ISODate.parse("2000-02-29T00:00:00Z"), 951_782_400)
    XCTAssertEqual(ISODate.parse("2024-02-29T12:00:00.000Z"), 1_709_208_000)
    XCTAssertEqual(ISODate.parse("9999-12-31T23:59:59Z"), 253_402_300_799)
    XCTAssertEqual(ISODate.parse("0001-01-01T00:00:00Z"), -62_135_596_800)
  }

  func testOffsets() {
    let utc = 1_769_853_600.0  // 2026-01-31T10:00:00Z
    XCTAssertEqual(ISODate.parse("2026-01-31T12:00:00+02:00"), utc)
    XCTAssertEqual(ISODate.parse("2026-01-31T12:00:00+0200"), utc)
    XCTAssertEqual(ISODate.parse("2026-01-31T05:00:00-05:00"), utc)
    XCTAssertEqual(ISODate.parse("2026-01-31T15:30:00+05:30"), utc)
    XCTAssertEqual(ISODate.parse("2026-01-31T10:00:00+00:00"), utc)
    XCTAssertEqual(ISODate.parse("2026-01-31T10:00:00-00:00"), utc)
    XCTAssertEqual(ISODate.parse("2026-01-01T01:00:00+02:00"), ISODate.parse("2025-12-31T23:00:00Z"), "offset crosses a year")
  }

  func testFractions() {
    XCTAssertEqual(ISODate.parse("1970-01-01T00:00:00.5Z"), 0.5)
    XCTAssertEqual(ISODate.parse("1970-01-01T00:00:00.25Z"), 0.25)
    XCTAssertEqual(ISODate.parse("1970-01-01T00:00:01.123Z"), 1.123)
    XCTAssertEqual(ISODate.parse("1970-01-01T00:00:01.123456Z"), 1.123, "rounded to the millisecond")
    XCTAssertEqual(ISODate.parse("1970-01-01T00:00:01.1239Z"), 1.124)
    XCTAssertEqual(ISODate.parse("1970-01-01T00:00:01,5Z"), 1.5, "comma as decimal mark")
    XCTAssertEqual(ISODate.parse("2024-06-01T12:00:00.750+02:00"), ISODate.parse("2024-06-01T10:00:00.750Z"))
  }

  func testLeapYears() {
    XCTAssertNotNil(ISODate.parse("2024-02-29"))
    XCTAssertNotNil(ISODate.parse("2000-02-29"), "divisible by 400")
    XCTAssertNil(ISODate.parse("1900-02-29"), "divisible by 100, not 400")
    XCTAssertNil(ISODate.parse("2023-02-29"))
    XCTAssertNil(ISODate.parse("2100-02-29"))
    XCTAssertNil(ISODate.parse("2024-02-30"))
    XCTAssertEqual(
      ISODate.parse("2024-03-01T00:00:00Z")! - ISODate.parse("2024-02-28T00:00:00Z")!, 2 * 86400, "29 February exists in 2024")
    XCTAssertEqual(ISODate.parse("2023-03-01T00:00:00Z")! - ISODate.parse("2023-02-28T00:00:00Z")!, 86400)
  }

  func testPre1970AndNegativeYears() {
    XCTAssertEqual(ISODate.parse("1969-12-31T23:59:59Z"), -1)
    XCTAssertEqual(ISODate.parse("1969-12-31T23:59:59.500Z"), -0.5)
    XCTAssertEqual(ISODate.parse("1960-06-15T08:30:00Z"), -301_246_200)
    XCTAssertEqual(ISODate.parse("1900-01-01T00:00:00Z"), -2_208_988_800)
    let bc = ISODate.parse("-0001-01-01T00:00:00Z")
    XCTAssertNotNil(bc)
    XCTAssertEqual(ISODate.parse("0000-01-01T00:00:00Z")! - bc!, 365 * 86400, "year -1 is a common year")
    XCTAssertEqual(ISODate.parse("0001-01-01T00:00:00Z")! - ISODate.parse("0000-01-01T00:00:00Z")!, 366 * 86400, "year 0 is a leap year")
  }

  func testInvalidDates() {
    let bad = [
      "", "2024", "2024-01", "2024-1-01", "2024-01-1", "24-01-01", "2024/01/01", "2024-13-01", "2024-00-10", "2024-01-00",
      "2024-01-32", "2024-04-31", "2024-06-31", "2024-01-01T24:00:00Z", "2024-01-01T12:60:00Z", "2024-01-01T12:00:61Z",
      "2024-01-01T12", "2024-01-01T12:00:00.Z", "2024-01-01T12:00:00ZZ", "2024-01-01T12:00:00+2", "2024-01-01T12:00:00+24:00",
      "2024-01-01T12:00:00+02:60", "2024-01-01T12:00:00 UTC", "2024-01-01X12:00:00", "2024-01-01T", " 2024-01-01", "2024-01-01 ",
      "abcd-ef-gh", "2024-01-01T12:00.5",
    ]
    for s in bad { XCTAssertNil(ISODate.parse(s), "'\(s)' must be rejected") }
  }

  func testFormat() {
    XCTAssertEqual(ISODate.format(0), "1970-01-01T00:00:00.000Z")
    XCTAssertEqual(ISODate.format(1_709_208_000.25), "2024-02-29T12:00:00.250Z")
    XCTAssertEqual(ISODate.format(951_782_400), "2000-02-29T00:00:00.000Z")
    XCTAssertEqual(ISODate.format(-0.5), "1969-12-31T23:59:59.500Z")
    XCTAssertEqual(ISODate.format(-1), "1969-12-31T23:59:59.000Z")
    XCTAssertEqual(ISODate.format(-86400), "1969-12-31T00:00:00.000Z")
    XCTAssertEqual(ISODate.format(-2_208_988_800), "1900-01-01T00:00:00.000Z")
    XCTAssertEqual(ISODate.format(253_402_300_799.999), "9999-12-31T23:59:59.999Z")
    XCTAssertEqual(ISODate.format(1.0006), "1970-01-01T00:00:01.001Z", "rounded to the millisecond")
    XCTAssertEqual(ISODate.format(.nan), "invalid date")
    XCTAssertEqual(ISODate.format(.infinity), "invalid date")
    XCTAssertEqual(ISODate.format(1e20), "invalid date", "beyond any calendar year: refused, not a crash")
    XCTAssertEqual(ISODate.format(-1e20), "invalid date")
  }

  func testFormatNegativeYears() {
    let s = ISODate.parse("-0044-03-15T12:00:00Z")!
    XCTAssertEqual(ISODate.format(s), "-0044-03-15T12:00:00.000Z")
    XCTAssertEqual(ISODate.format(ISODate.parse("0000-02-29T00:00:00Z")!), "0000-02-29T00:00:00.000Z")
  }

  func testParseFormatRoundTrip() {
    for s in [
      "2024-02-29T23:59:59.999Z", "1999-12-31T23:59:59.001Z", "1583-10-15T00:00:00.000Z", "1969-07-20T20:17:40.000Z",
      "2038-01-19T03:14:08.000Z", "0001-01-01T00:00:00.000Z",
    ] {
      XCTAssertEqual(ISODate.parse(s).map(ISODate.format), s)
    }
  }

  func testCivilDayConversionsAgree() {
    var day = -800_000
    while day <= 800_000 {
      let (y, m, d) = ISODate.civilFromDays(day)
      XCTAssertEqual(ISODate.daysFromCivil(y, m, d), day, "\(y)-\(m)-\(d)")
      day += 997
    }
    XCTAssertEqual(ISODate.daysFromCivil(1970, 1, 1), 0)
    XCTAssertTrue(ISODate.civilFromDays(-1) == (1969, 12, 31))
  }
}
