import Foundation
import Handlers
import RPCCore
import StoreEngine
import XCTest

/// Drift test: every method the server registers has exactly one `### <method>` section
/// in protocol.md, and protocol.md documents no method the server lacks.
final class MethodListTests: XCTestCase {
  /// protocol.md at the repository root, three levels up from this file.
  static var protocolURL: URL {
    URL(fileURLWithPath: #filePath)
      .deletingLastPathComponent()  // Tests/HandlersTests
      .deletingLastPathComponent()  // Tests
      .deletingLastPathComponent()  // repository root
      .appendingPathComponent("protocol.md")
  }

  /// The registry as `modelstore serve` builds it (Sources/modelstore/main.swift).
  func registeredMethods() throws -> [String] {
    let server = Server(log: Logger(level: .error))
    let session = Session(server: server, store: try Store(path: nil))
    return session.methods().names
  }

  /// Level-3 headings that look like method names: `^### [a-z$][A-Za-z./]*$`.
  /// Lines inside fenced code blocks are not headings.
  static func methodHeadings(in text: String) -> [String] {
    var out: [String] = []
    var inFence = false
    // `\r\n` is one Character in Swift; `isNewline` covers it, `\n` and `\r`.
    for line in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
      if line.hasPrefix("```") || line.hasPrefix("~~~") {
        inFence.toggle()
        continue
      }
      guard !inFence, line.hasPrefix("### ") else { continue }
      let name = line.dropFirst(4)
      guard let first = name.unicodeScalars.first, ("a"..."z").contains(first) || first == "$" else { continue }
      let rest = name.unicodeScalars.dropFirst()
      guard rest.allSatisfy({ ("a"..."z").contains($0) || ("A"..."Z").contains($0) || $0 == "." || $0 == "/" }) else { continue }
      out.append(String(name))
    }
    return out
  }

  func testHeadingParser() {
    let text = "# T\n### objects.insert\n### Errors\n### $/cancelRequest\r\n```\n### query.fetch\n```\n#### model.get\n### a b\n"
    XCTAssertEqual(Self.methodHeadings(in: text), ["objects.insert", "$/cancelRequest"])
  }

  func testProtocolDocumentsExactlyTheRegisteredMethods() throws {
    let registered = try registeredMethods()
    XCTAssertFalse(registered.isEmpty, "the method registry is empty")
    let text = try String(contentsOf: Self.protocolURL, encoding: .utf8)
    let headings = Self.methodHeadings(in: text)

    var seen: Set<String> = []
    let duplicates = Set(headings.filter { !seen.insert($0).inserted })
    XCTAssertTrue(
      duplicates.isEmpty,
      "protocol.md has more than one '### ' section for: \(duplicates.sorted().joined(separator: ", "))")

    let documented = Set(headings)
    let registeredSet = Set(registered)
    let undocumented = registeredSet.subtracting(documented).sorted()
    let unregistered = documented.subtracting(registeredSet).sorted()
    XCTAssertTrue(
      undocumented.isEmpty,
      "registered in Session.methods() but missing from protocol.md (add a '### <name>' section): \(undocumented.joined(separator: ", "))")
    XCTAssertTrue(
      unregistered.isEmpty,
      "documented in protocol.md with a '### ' heading but not registered by the server (remove the heading or register the method): \(unregistered.joined(separator: ", "))")
  }
}
