import XCTest

@testable import StoreEngine

final class TextFoldingTests: XCTestCase {
  private func fold(_ s: String, c: Bool, d: Bool) -> String { TextFolding.fold(s, caseInsensitive: c, diacriticInsensitive: d) }

  func testNoFlagsIsIdentity() {
    XCTAssertEqual(fold("Émile ß", c: false, d: false), "Émile ß")
  }

  func testCaseFolding() {
    XCTAssertEqual(fold("HeLLo", c: true, d: false), "hello")
    XCTAssertEqual(fold("straße", c: true, d: false), fold("STRASSE", c: true, d: false))
    XCTAssertEqual(fold("ÉMILE", c: true, d: false), "émile", "case only keeps the accent")
    XCTAssertEqual(fold("ΣΟΦΊΑ", c: true, d: false), fold("σοφία", c: true, d: false))
  }

  func testDiacriticFolding() {
    XCTAssertEqual(fold("Émile", c: false, d: true), "Emile", "[d] alone keeps case")
    XCTAssertEqual(fold("crème brûlée", c: false, d: true), "creme brulee")
    XCTAssertEqual(fold("e\u{301}", c: false, d: true), "e", "combining marks are dropped")
    XCTAssertEqual(fold("Ōe Kenzaburō", c: false, d: true), "Oe Kenzaburo")
    XCTAssertEqual(fold("Ελλάδα", c: false, d: true), "Ελλαδα")
    XCTAssertEqual(fold("Ёлка", c: false, d: true), "Елка")
    XCTAssertEqual(fold("ß", c: false, d: true), "ß", "ß is not a letter with a diacritic")
  }

  func testBothFlags() {
    XCTAssertEqual(fold("Émile", c: true, d: true), "emile")
    XCTAssertEqual(fold("ÅNGSTRÖM", c: true, d: true), "angstrom")
    XCTAssertEqual(fold("Straße", c: true, d: true), "strasse")
  }
}
