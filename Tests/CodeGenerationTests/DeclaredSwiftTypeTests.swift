import XCTest

@testable import CodeGeneration

/// A model file's `customClassName` read as a Swift type (or refused): what the SwiftData
/// generator declares a transformable with.
final class DeclaredSwiftTypeTests: XCTestCase {
  func testTypesAreReadWithTheNamesTheyUse() throws {
    let cases: [(String, String, [String])] = [
      ("UIColor", "UIColor", ["UIColor"]),
      ("MyApp.Tag", "Tag", ["Tag"]),
      ("[String]", "[String]", ["String"]),
      ("[String : Any]", "[String: Any]", ["String", "Any"]),
      ("Dictionary<String,[Int]>", "Dictionary<String, [Int]>", ["String", "Int", "Dictionary"]),
      ("NSArray?", "NSArray?", ["NSArray"]),
    ]
    for (source, text, names) in cases {
      let t = try XCTUnwrap(DeclaredSwiftType(source), source)
      XCTAssertEqual(t.text, text, source)
      XCTAssertEqual(t.names, names, source)
    }
  }

  func testWhatIsNoSwiftTypeIsRefused() {
    for source in ["", ".", "UnCloudNotes.", "[String", "Array<Int", "1Thing", "a b", "[String: ]"] {
      XCTAssertNil(DeclaredSwiftType(source), source)
    }
    XCTAssertNotNil(DeclaredSwiftType(String(repeating: "[", count: 15) + "Int" + String(repeating: "]", count: 15)))
    XCTAssertNil(
      DeclaredSwiftType(String(repeating: "[", count: 100_000) + "Int" + String(repeating: "]", count: 100_000)),
      "nesting is bounded: a hostile model file cannot exhaust the stack")
  }
}
