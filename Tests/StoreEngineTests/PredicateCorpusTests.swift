import Foundation
import XCTest

@testable import StoreEngine

/// Real-world NSPredicate format strings (shared/corpus/predicates, see its MANIFEST.md),
/// parsed in template mode: no entity, format arguments and variables left unbound.
final class PredicateCorpusTests: XCTestCase {
  /// `shared/corpus/predicates` beside the repository (the repository is `…/main`, the
  /// corpus `…/shared/corpus`).
  static var corpusDirectory: URL {
    URL(fileURLWithPath: #filePath)
      .deletingLastPathComponent()  // Tests/StoreEngineTests
      .deletingLastPathComponent()  // Tests
      .deletingLastPathComponent()  // repository root
      .deletingLastPathComponent()
      .appendingPathComponent("shared/corpus/predicates")
  }

  /// The predicate column of each non-empty line (`predicate<TAB>source-repo`).
  private func lines(_ name: String) throws -> [(predicate: String, source: String)] {
    let url = Self.corpusDirectory.appendingPathComponent(name)
    guard FileManager.default.fileExists(atPath: url.path) else {
      throw XCTSkip("predicate corpus not found at \(url.path) (it lives beside the repository in shared/corpus)")
    }
    return try String(contentsOf: url, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: true).map {
      let fields = $0.split(separator: "\t", maxSplits: 1, omittingEmptySubsequences: false)
      return (String(fields[0]), fields.count > 1 ? String(fields[1]) : "")
    }
  }

  func testAtLeast97PercentOfRealWorldPredicatesParse() throws {
    let corpus = try lines("nspredicate-formats.txt")
    XCTAssertGreaterThan(corpus.count, 700)
    var failures: [String] = []
    for (predicate, source) in corpus {
      do {
        _ = try PredicateParser.parse(predicate, template: true)
      } catch let e as PredicateError {
        failures.append("  \(predicate)    [\(source)] → \(e)")
      }
    }
    let rate = Double(corpus.count - failures.count) / Double(corpus.count)
    print("predicate corpus: \(corpus.count - failures.count) of \(corpus.count) parse (\(String(format: "%.1f", rate * 100))%)")
    if !failures.isEmpty { print("not parsed:\n" + failures.joined(separator: "\n")) }
    XCTAssertGreaterThanOrEqual(rate, 0.97, "not parsed:\n" + failures.joined(separator: "\n"))
  }

  func testEveryInvalidPredicateIsRejected() throws {
    for (predicate, source) in try lines("nspredicate-invalid.txt") {
      XCTAssertThrowsError(try PredicateParser.parse(predicate, template: true), "\(predicate) [\(source)] should be refused")
    }
  }

  /// Whatever parses also survives the JSON form unchanged.
  func testEveryParsedCorpusPredicateRoundTripsThroughJSON() throws {
    for (predicate, _) in try lines("nspredicate-formats.txt") {
      guard let parsed = try? PredicateParser.parse(predicate, template: true) else { continue }
      let decoded = try PredicateJSONDecoder.decode(PredicateJSON.encode(parsed), path: ErrorPlace(.where), template: true).predicate
      XCTAssertEqual(stripped(decoded), stripped(parsed), predicate)
    }
  }
}
