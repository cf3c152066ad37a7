import XCTest

@testable import SchemaModel

final class DecimalTextTests: XCTestCase {
  func testCanonicalForms() {
    let cases: [(String, String)] = [
      ("0", "0"), ("12.50", "12.5"), ("007.50", "7.5"), ("-0.0", "0"), ("-0", "0"), ("+3", "3"), ("0.000", "0"), (".5", "0.5"),
      ("5.", "5"), ("-.5", "-0.5"), ("100", "100"), ("1.10", "1.1"), ("-12.340", "-12.34"), ("000", "0"), ("0.001", "0.001"),
      ("+0.10", "0.1"),
    ]
    for (input, expected) in cases { XCTAssertEqual(DecimalText.canonical(input), expected, input) }
  }

  func testCanonicalIsIdempotent() {
    for s in ["12.5", "-0.5", "7", "123456789012345678901234567890.12345678"] {
      XCTAssertEqual(DecimalText.canonical(s), s)
    }
  }

  func testInvalid() {
    for s in ["", "-", "+", ".", "-.", "1.2.3", "1e5", "abc", " 1", "1 ", "1,5", "--1", "+-1", "0x10", "1_000", "١٢"] {
      XCTAssertNil(DecimalText.canonical(s), "'\(s)' must be rejected")
    }
  }

  func testDigitLimit() {
    let d38 = String(repeating: "9", count: 38)
    XCTAssertEqual(DecimalText.canonical(d38), d38)
    XCTAssertEqual(DecimalText.canonical("1." + String(repeating: "1", count: 37)), "1." + String(repeating: "1", count: 37))
    XCTAssertNil(DecimalText.canonical(String(repeating: "9", count: 39)))
  }
}
