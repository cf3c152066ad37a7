import Diagrams
import Foundation
import XCTest

/// Running Graphviz's dot: the picture, its errors, and the message when it is missing.
final class GraphvizTests: XCTestCase {
  func testMissingDotNamesThePackage() {
    XCTAssertThrowsError(try Graphviz.render("digraph { a }", as: .svg, environment: ["PATH": "/nonexistent"])) { error in
      guard let f = error as? Graphviz.Failure else { return XCTFail("\(error)") }
      XCTAssertEqual(f.reason, .notInstalled)
      XCTAssertEqual(
        f.message,
        "drawing svg needs Graphviz's 'dot', which is not on PATH; install the package 'graphviz' (apt-get install graphviz), or ask for mermaid or dot text"
      )
    }
  }

  func testPictures() throws {
    guard DiagramFixtures.dot != nil else { throw XCTSkip("Graphviz's dot is not on PATH (Debian: apt-get install graphviz)") }
    let svg = String(decoding: try Graphviz.render("digraph { a -> b }", as: .svg), as: UTF8.self)
    XCTAssertTrue(svg.contains("<svg"), svg)
    let png = try Graphviz.render("digraph { a -> b }", as: .png)
    XCTAssertEqual(Array(png.prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
  }

  /// What dot says on standard error is reported; a large input does not block on a full pipe.
  func testDotErrorsAreReported() throws {
    guard DiagramFixtures.dot != nil else { throw XCTSkip("Graphviz's dot is not on PATH (Debian: apt-get install graphviz)") }
    let bad = "digraph {\n" + String(repeating: "  a -> b\n", count: 20000) + "  a -> }\n"
    XCTAssertThrowsError(try Graphviz.render(bad, as: .svg)) { error in
      guard let f = error as? Graphviz.Failure else { return XCTFail("\(error)") }
      XCTAssertEqual(f.reason, .failed)
      XCTAssertEqual(f.status, 1)
      XCTAssertTrue(f.message.contains("exited with status 1: Error: <stdin>: syntax error in line 20002"), f.message)
    }
  }
}
