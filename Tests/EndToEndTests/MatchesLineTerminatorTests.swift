import Foundation
import JSONCore
import TestSupport
import XCTest

/// *Pinned* (protocol.md, "PostgreSQL engine: what differs"): the line terminators of
/// MATCHES. ICU's `.` matches none of line feed, vertical tab, form feed, carriage
/// return, U+0085, U+2028, U+2029 without `(?s)`, and `\r\n` as one character with it;
/// PostgreSQL's matches anything but a line feed, and any one character with `(?s)`.
/// ICU's `^` and `$` under `(?m)` stand at each of them, PostgreSQL's at a line feed only.
/// A negated bracket expression matches a line feed in ICU only. A pattern PostgreSQL
/// cannot read (`^?`) fails the statement there. The differential fuzzer found the `.`
/// of `'line\u{2028}sep'` (the table said "no line break on either").
final class MatchesLineTerminatorTests: XCTestCase {
  func testLineTerminatorsInPatterns() throws {
    let s = try ServerProcess()
    defer {
      s.closeInput()
      _ = s.waitForExit()
    }
    _ = try s.call(
      "model.define", ["schema": ["entities": [["name": "A", "attributes": [["name": "t", "type": "string", "optional": true]]]]]])
    // A/1 ... A/9
    for v in ["a\nb", "a\u{0B}b", "a\u{0C}b", "a\rb", "a\u{85}b", "a\u{2028}b", "a\u{2029}b", "a\tb", "a\r\nb"] {
      _ = try s.call("objects.insert", ["entity": "A", "values": ["t": .string(v)]])
    }
    func ids(_ numbers: ClosedRange<Int>, _ more: Int...) -> JSONValue { .array((Array(numbers) + more).map { .string("A/\($0)") }) }
    let pg = TestEngine.isPostgres
    let cases: [(String, JSONValue)] = [
      ("a.b", pg ? ids(2...8) : ["A/8"]),
      ("(?s)a.b", pg ? ids(1...8) : ids(1...9)),
      ("a[^x]b", pg ? ids(2...8) : ids(1...8)),
      ("(?m)a$[\n\u{0B}\u{0C}\r\u{85}\u{2028}\u{2029}]+b", pg ? ["A/1"] : ids(1...7, 9)),
      ("(?m)a\\n^b", ["A/1"]),
    ]
    for (pattern, expected) in cases {
      let reply = try s.call("query.ids", ["entity": "A", "where": "t MATCHES %@", "args": [.string(pattern)]])
      XCTAssertEqual(reply["ids"], expected, pattern.debugDescription)
    }
    let quantifiedAnchor = try s.request("query.ids", ["entity": "A", "where": "t MATCHES %@", "args": ["(?m)a$\\s*^?b"]])
    if pg {
      XCTAssertEqual(quantifiedAnchor.errorCode, -32020, "\(quantifiedAnchor)")
      XCTAssertEqual(quantifiedAnchor["error"]?["data"]?["sqlstate"], "2201B", "\(quantifiedAnchor)")
    } else {
      XCTAssertEqual(quantifiedAnchor["result"]?["ids"], ids(1...7, 9), "\(quantifiedAnchor)")
    }
  }
}
