import SchemaModel
import XCTest

@testable import StoreEngine
@testable import TimeZones

/// Bucket keys from UTC seconds and a zone.
final class DateBucketTests: XCTestCase {
  private func key(_ bucket: DateBucket, _ iso: String, _ zone: String = "UTC") throws -> String? {
    bucket.key(ISODate.parse(iso)!, in: try TimeZoneRules.load(zone))
  }

  func testSecondsWithoutACalendarDateHaveNoKey() throws {
    let zones = ["UTC", "+18:00", "-18:00", "Europe/Paris", "America/New_York", "Australia/Lord_Howe"]
    let extremes: [Double] = [1e300, -1e300, 1e19, -1e19, .infinity, -.infinity, .nan, 1e14, -1e14, .greatestFiniteMagnitude]
    for zone in zones {
      guard let rules = try? TimeZoneRules.load(zone) else { continue }  // a system without that zone file
      for bucket in DateBucket.allCases {
        for s in extremes { XCTAssertNil(bucket.key(s, in: rules), "\(bucket) \(s) \(zone)") }
        // The last seconds with a calendar date still have one, on either side.
        XCTAssertNotNil(bucket.key(ISODate.maxSeconds.nextDown, in: rules), "\(bucket) \(zone)")
        XCTAssertNotNil(bucket.key(-ISODate.maxSeconds.nextDown, in: rules), "\(bucket) \(zone)")
      }
    }
    // The footer rule alone, asked about any instant a TZif transition table could hold.
    let paris = try XCTUnwrap(PosixTimeZone("CET-1CEST,M3.5.0,M10.5.0/3"))
    for t in [Int64.max, Int64.min, Int64.max - 3600, Int64.min + 3600] {
      XCTAssertTrue([3600, 7200].contains(paris.offset(at: t)), "\(t)")
    }
  }

  func testKeysOfEachBucket() throws {
    XCTAssertEqual(try key(.day, "2026-03-29T12:00:00Z"), "2026-03-29")
    XCTAssertEqual(try key(.week, "2026-03-29T12:00:00Z"), "2026-W13")
    XCTAssertEqual(try key(.month, "2026-03-29T12:00:00Z"), "2026-03")
    XCTAssertEqual(try key(.year, "2026-03-29T12:00:00Z"), "2026")
  }

  /// ISO weeks: Monday first; week 1 holds the first Thursday, so early January can be in
  /// the previous week-year and late December in the next.
  func testISOWeekYearEdges() throws {
    XCTAssertEqual(try key(.week, "2026-01-01T00:00:00Z"), "2026-W01")  // Thursday
    XCTAssertEqual(try key(.week, "2027-01-01T00:00:00Z"), "2026-W53")  // Friday
    XCTAssertEqual(try key(.week, "2024-12-30T00:00:00Z"), "2025-W01")  // Monday
    XCTAssertEqual(try key(.week, "2021-01-03T00:00:00Z"), "2020-W53")  // Sunday
    XCTAssertEqual(try key(.week, "2026-03-30T00:00:00Z"), "2026-W14")  // Monday
  }

  func testDayBoundariesFollowTheZone() throws {
    XCTAssertEqual(try key(.day, "2026-03-28T23:30:00Z", "Europe/Paris"), "2026-03-29")
    XCTAssertEqual(try key(.day, "2026-03-29T21:59:59Z", "Europe/Paris"), "2026-03-29")
    XCTAssertEqual(try key(.day, "2026-03-29T22:00:00Z", "Europe/Paris"), "2026-03-30")  // summer time: +2
    XCTAssertEqual(try key(.day, "2026-03-09T03:59:59Z", "America/New_York"), "2026-03-08")
    XCTAssertEqual(try key(.day, "2026-03-09T04:00:00Z", "America/New_York"), "2026-03-09")  // EDT: -4
    XCTAssertEqual(try key(.year, "2026-12-31T23:30:00Z", "+01:00"), "2027")
    XCTAssertEqual(try key(.month, "2026-03-01T02:00:00Z", "-05:00"), "2026-02")
  }

  func testDatesBefore1970RoundDown() throws {
    XCTAssertEqual(try key(.day, "1969-12-31T23:59:59.500Z"), "1969-12-31")
    XCTAssertEqual(try key(.day, "1815-12-23T00:00:00Z"), "1815-12-23")
  }
}
