import XCTest

@testable import SchemaModel

final class Base64Tests: XCTestCase {
  /// RFC 4648 section 10.
  private let vectors: [(String, String)] = [
    ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="), ("foobar", "Zm9vYmFy"),
  ]

  func testRFC4648Encode() {
    for (plain, encoded) in vectors { XCTAssertEqual(Base64.encode(Array(plain.utf8)), encoded, plain) }
  }

  func testRFC4648Decode() {
    for (plain, encoded) in vectors { XCTAssertEqual(Base64.decode(encoded), Array(plain.utf8), encoded) }
  }

  func testAllByteValuesRoundTrip() {
    let bytes = (0..<256).map { UInt8($0) }
    let text = Base64.encode(bytes)
    XCTAssertTrue(text.hasPrefix("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKissLS4vMDEy"))
    XCTAssertTrue(text.hasSuffix("+/w=="))
    XCTAssertEqual(Base64.decode(text), bytes)
    for n in 0..<10 { XCTAssertEqual(Base64.decode(Base64.encode(Array(bytes.prefix(n)))), Array(bytes.prefix(n))) }
  }

  func testStandardAlphabetNotURLSafe() {
    XCTAssertEqual(Base64.encode([0xFB, 0xFF]), "+/8=")
    XCTAssertNil(Base64.decode("-_8="), "the URL-safe alphabet is not accepted")
  }

  func testInvalidInput() {
    for s in [
      "Zg", "Zg=", "Z", "Zm9vY", "Z===", "====", "Zm9v!A==", "Zm 9v", "Zm9v\n", "=Zm9", "Zg==Zg==", "Zm=v", "Zé==", "Zm9v====",
    ] {
      XCTAssertNil(Base64.decode(s), "'\(s)' must be rejected")
    }
  }
}
