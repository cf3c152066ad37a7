import SchemaModel
import XCTest

@testable import TimeZones

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
