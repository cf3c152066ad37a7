import XCTest

@testable import SchemaModel

final class UUIDTextTests: XCTestCase {
  func testCanonicalIsUppercase() {
    XCTAssertEqual(UUIDText.canonical("e621e1f8-c36c-495a-93fc-0c247a3e6e5f"), "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
    XCTAssertEqual(UUIDText.canonical("E621E1F8-C36C-495A-93FC-0C247A3E6E5F"), "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
    XCTAssertEqual(UUIDText.canonical("00000000-0000-0000-0000-000000000000"), "00000000-0000-0000-0000-000000000000")
    XCTAssertEqual(UUIDText.canonical("aBcDeF01-2345-6789-abcd-EF0123456789"), "ABCDEF01-2345-6789-ABCD-EF0123456789")
  }

  func testInvalidUUIDs() {
    for s in [
      "", "e621e1f8c36c495a93fc0c247a3e6e5f", "{e621e1f8-c36c-495a-93fc-0c247a3e6e5f}", "e621e1f8-c36c-495a-93fc-0c247a3e6e5",
      "e621e1f8-c36c-495a-93fc-0c247a3e6e5ff", "g621e1f8-c36c-495a-93fc-0c247a3e6e5f", "e621e1f8_c36c-495a-93fc-0c247a3e6e5f",
      "e621e1f-8c36c-495a-93fc-0c247a3e6e5f", "e621e1f8-c36c-495a-93fc-0c247a3e6é5",
    ] {
      XCTAssertNil(UUIDText.canonical(s), "'\(s)' must be rejected")
    }
  }

  func testRandomIsCanonicalVersion4() {
    var seen: Set<String> = []
    for _ in 0..<2000 {
      let u = UUIDText.random()
      let b = Array(u.utf8)
      XCTAssertEqual(b.count, 36)
      XCTAssertEqual(UUIDText.canonical(u), u, "already canonical")
      for i in [8, 13, 18, 23] { XCTAssertEqual(b[i], UInt8(ascii: "-")) }
      XCTAssertEqual(b[14], UInt8(ascii: "4"), "version nibble")
      XCTAssertTrue([UInt8(ascii: "8"), UInt8(ascii: "9"), UInt8(ascii: "A"), UInt8(ascii: "B")].contains(b[19]), "RFC 4122 variant in \(u)")
      seen.insert(u)
    }
    XCTAssertEqual(seen.count, 2000, "no repeats")
  }

  func testCurrentTimeIsMilliseconds() {
    let t = currentTimeSeconds()
    XCTAssertGreaterThan(t, 1_700_000_000)
    XCTAssertEqual((t * 1000).rounded(), t * 1000, accuracy: 1e-3)
  }
}
