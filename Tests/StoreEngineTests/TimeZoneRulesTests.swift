import SchemaModel
import XCTest

@testable import StoreEngine

/// The TZif reader, the POSIX TZ footer rules and fixed offsets, against known switches.
final class TimeZoneRulesTests: XCTestCase {
  private func utc(_ iso: String) -> Int64 { Int64(ISODate.parse(iso)!) }

  private func zone(_ id: String) throws -> TimeZoneRules { try TimeZoneRules.load(id) }

  func testParisSwitchesAtOneUTCInMarchAndOctober() throws {
    let paris = try zone("Europe/Paris")
    XCTAssertEqual(paris.offset(at: utc("2026-03-29T00:59:59Z")), 3600)
    XCTAssertEqual(paris.offset(at: utc("2026-03-29T01:00:00Z")), 7200)
    XCTAssertEqual(paris.offset(at: utc("2026-10-25T00:59:59Z")), 7200)
    XCTAssertEqual(paris.offset(at: utc("2026-10-25T01:00:00Z")), 3600)
    // Before any transition: local mean time (+0:09:21).
    XCTAssertEqual(paris.offset(at: utc("1850-01-01T00:00:00Z")), 561)
  }

  func testNewYorkSwitchesAtTwoLocalTime() throws {
    let ny = try zone("America/New_York")
    XCTAssertEqual(ny.offset(at: utc("2026-03-08T06:59:59Z")), -18000)
    XCTAssertEqual(ny.offset(at: utc("2026-03-08T07:00:00Z")), -14400)
    XCTAssertEqual(ny.offset(at: utc("2026-11-01T05:59:59Z")), -14400)
    XCTAssertEqual(ny.offset(at: utc("2026-11-01T06:00:00Z")), -18000)
  }

  /// Past the file's last transition the footer rule keeps switching.
  func testFooterRuleAppliesAfterTheLastTransition() throws {
    let paris = try zone("Europe/Paris")
    XCTAssertEqual(paris.offset(at: utc("2100-03-28T00:59:59Z")), 3600)
    XCTAssertEqual(paris.offset(at: utc("2100-03-28T01:00:00Z")), 7200)
    XCTAssertEqual(paris.offset(at: utc("2100-10-31T00:59:59Z")), 7200)
    XCTAssertEqual(paris.offset(at: utc("2100-10-31T01:00:00Z")), 3600)
    let ny = try zone("America/New_York")
    XCTAssertEqual(ny.offset(at: utc("2099-07-01T00:00:00Z")), -14400)
    XCTAssertEqual(ny.offset(at: utc("2099-12-01T00:00:00Z")), -18000)
  }

  func testPosixRules() throws {
    let cet = try XCTUnwrap(PosixTimeZone("CET-1CEST,M3.5.0,M10.5.0/3"))
    XCTAssertEqual(cet.standardOffset, 3600)
    XCTAssertEqual(cet.offset(at: utc("2026-03-29T00:59:59Z")), 3600)
    XCTAssertEqual(cet.offset(at: utc("2026-03-29T01:00:00Z")), 7200)
    // Southern hemisphere: summer time spans the new year.
    let sydney = try XCTUnwrap(PosixTimeZone("AEST-10AEDT,M10.1.0,M4.1.0/3"))
    XCTAssertEqual(sydney.offset(at: utc("2026-01-15T00:00:00Z")), 39600)
    XCTAssertEqual(sydney.offset(at: utc("2026-07-15T00:00:00Z")), 36000)
    XCTAssertEqual(sydney.offset(at: utc("2026-04-04T15:59:59Z")), 39600)
    XCTAssertEqual(sydney.offset(at: utc("2026-04-04T16:00:00Z")), 36000)
    // Quoted names, no summer time.
    XCTAssertEqual(PosixTimeZone("<+0530>-5:30")?.offset(at: 0), 19800)
    XCTAssertEqual(PosixTimeZone("<-03>3")?.offset(at: 0), -10800)
    // Julian days: J60 is March 1 in every year; 59 (zero-based) is March 1 only in leap years.
    let julian = try XCTUnwrap(PosixTimeZone("XST0XDT,J60/0,J300/0"))
    XCTAssertEqual(julian.offset(at: utc("2024-02-29T23:59:59Z")), 0)
    XCTAssertEqual(julian.offset(at: utc("2024-03-01T00:00:00Z")), 3600)
    let zeroBased = try XCTUnwrap(PosixTimeZone("XST0XDT,59/0,300/0"))
    XCTAssertEqual(zeroBased.offset(at: utc("2024-02-29T00:00:00Z")), 3600)
    // Summer time without a rule, and garbage, are refused.
    XCTAssertNil(PosixTimeZone("CET-1CEST"))
    XCTAssertNil(PosixTimeZone("nonsense"))
    XCTAssertNil(PosixTimeZone("CET-1CEST,M13.5.0,M10.5.0"))
  }

  func testFixedOffsetsAndUTC() throws {
    XCTAssertEqual(try zone("UTC").offset(at: 0), 0)
    XCTAssertEqual(try zone("+02:00").offset(at: 0), 7200)
    XCTAssertEqual(try zone("-05:30").offset(at: 0), -19800)
    XCTAssertEqual(try zone("+0545").offset(at: 0), 20700)
    XCTAssertEqual(try zone("-03").offset(at: 0), -10800)
    for bad in ["+25:00", "+02:60", "+2:00", "+02-00", "+", "+02:0"] {
      XCTAssertThrowsError(try zone(bad), bad)
    }
  }

  func testUnknownAndUnsafeNamesAreRefused() {
    for bad in ["Mars/Base", "../../etc/passwd", "/etc/localtime", "Europe//Paris", "Europe/Par is", ""] {
      XCTAssertThrowsError(try zone(bad), bad)
    }
    // A file that exists but is not TZif.
    XCTAssertThrowsError(try zone("zone.tab"))
  }

  /// A hand-made version 1 file (32-bit times only, no footer).
  func testVersionOneFile() throws {
    var b: [UInt8] = Array("TZif".utf8) + [0] + Array(repeating: 0, count: 15)
    func be32(_ v: Int32) -> [UInt8] { withUnsafeBytes(of: UInt32(bitPattern: v).bigEndian) { Array($0) } }
    // isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt
    for c: Int32 in [0, 0, 0, 1, 2, 8] { b += be32(c) }
    b += be32(1_000_000)  // one transition
    b += [1]  // to type 1
    b += be32(3600) + [0, 0]  // type 0: +1h
    b += be32(7200) + [1, 4]  // type 1: +2h
    b += Array("ONE\0TWO\0".utf8)
    let z = try XCTUnwrap(TimeZoneRules.parseTZif(b, identifier: "Test/One"))
    XCTAssertEqual(z.offset(at: 999_999), 3600)
    XCTAssertEqual(z.offset(at: 1_000_000), 7200)
    XCTAssertEqual(z.offset(at: 5_000_000_000), 7200)
    XCTAssertNil(TimeZoneRules.parseTZif(Array(b.prefix(50)), identifier: "Test/Cut"))
  }

  func testCacheLoadsEachZoneOnce() throws {
    let cache = TimeZoneCache()
    let a = try cache.rules("Europe/Paris")
    _ = try cache.rules("UTC")
    XCTAssertTrue(try cache.rules("Europe/Paris") === a)
    XCTAssertThrowsError(try cache.rules("Nowhere/Land"))
  }
}

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
