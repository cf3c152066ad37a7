import Foundation
import TestSupport
import XCTest

@testable import CoreDataTooling

/// The binary plist reader bounds what a plist expands to, however its objects are shared.
final class BinaryPlistLimitTests: XCTestCase {
  private func refusal(_ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line) -> PlistError? {
    expectError(PlistError.self, { try BinaryPlist.parse(bytes) }, file: file, line: line)
  }

  func testABillionLaughsIsRefusedAfterAtMostTheValueBound() throws {
    // 14^12 (about 5.7 * 10^13) strings from a few hundred bytes.
    let bytes = HostilePlist.laughs(levels: 12, width: 14)
    XCTAssertLessThan(bytes.count, 400)
    let e = try XCTUnwrap(refusal(bytes))
    XCTAssertEqual(e.valuesRead, BinaryPlist.maxValues + 1, "the read stops at the first value past the bound")
    XCTAssertTrue(e.description.hasPrefix("binary plist: expands to more than 100000 values"), e.description)
  }

  func testValuesAtTheBoundAreReadAndOneMoreIsRefused() throws {
    // The array and its references to one string: 1 + count values.
    let atLimit = try BinaryPlist.parse(HostilePlist.fan(count: BinaryPlist.maxValues - 1))
    XCTAssertEqual(atLimit.arrayCount, BinaryPlist.maxValues - 1)
    let e = try XCTUnwrap(refusal(HostilePlist.fan(count: BinaryPlist.maxValues)))
    XCTAssertEqual(e.valuesRead, BinaryPlist.maxValues + 1)
  }

  func testContentBytesAtTheBoundAreReadAndOneUseMoreIsRefused() throws {
    let size = 1 << 20
    let uses = BinaryPlist.maxContentBytes / size
    let atLimit = try BinaryPlist.parse(HostilePlist.fan(count: uses, sharedBytes: size))
    XCTAssertEqual(atLimit.arrayCount, uses)
    let e = try XCTUnwrap(refusal(HostilePlist.fan(count: uses + 1, sharedBytes: size)))
    XCTAssertTrue(e.description.contains("more than \(BinaryPlist.maxContentBytes) bytes of strings and data"), e.description)
    XCTAssertEqual(e.valuesRead, uses + 2, "the array and the uses read until the bytes ran out")
  }

  func testBinaryPlistReaderRejectsDamagedInput() throws {
    let good = PlistWriter.encode(.dict([("a", .array([.int(1), .string("x")])), ("b", .data([1, 2]))]))
    XCTAssertEqual(try BinaryPlist.parse(good)["a"], .array([.int(1), .string("x")]))
    XCTAssertEqual(try BinaryPlist.parse(good)["b"], .data([1, 2]))
    for cut in [0, 8, 20, good.count - 1] {
      XCTAssertThrowsError(try BinaryPlist.parse(Array(good.prefix(cut))), "cut at \(cut)")
    }
    var cyclic = good
    cyclic[8 + 2] = 0  // the dictionary's first key refers to the dictionary itself
    XCTAssertThrowsError(try BinaryPlist.parse(cyclic))
  }
}

extension PlistValue {
  var arrayCount: Int? { if case .array(let items) = self { return items.count } else { return nil } }
}
