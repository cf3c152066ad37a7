import JSONCore
@_exported import TestSupport
import XCTest

@testable import SchemaModel

func json(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> JSONValue {
  do { return try JSONParser.parse(text) } catch {
    XCTFail("bad JSON in test: \(error)", file: file, line: line)
    return .null
  }
}

/// Decoder + validator issues for `schema`.
func check(_ schema: JSONValue) -> [SchemaIssue] { SchemaValidator.check(schema).1 }

/// Asserts that exactly one issue has `code` at `path` (with the given severity) and returns it.
@discardableResult
func assertIssue(
  _ issues: [SchemaIssue], _ code: String, at path: String, severity: SchemaIssue.Severity = .error,
  file: StaticString = #filePath, line: UInt = #line
) -> SchemaIssue? {
  let matches = issues.filter { $0.code == code && $0.path == path }
  guard matches.count == 1 else {
    XCTFail("expected one \(code) at \(path), got: \(issues.map(\.description))", file: file, line: line)
    return nil
  }
  XCTAssertEqual(matches[0].severity, severity, file: file, line: line)
  return matches[0]
}

func assertNoErrors(_ issues: [SchemaIssue], file: StaticString = #filePath, line: UInt = #line) {
  let errors = issues.filter { $0.severity == .error }
  XCTAssertTrue(errors.isEmpty, "unexpected errors: \(errors.map(\.description))", file: file, line: line)
}

func assertNoIssues(_ issues: [SchemaIssue], file: StaticString = #filePath, line: UInt = #line) {
  XCTAssertTrue(issues.isEmpty, "unexpected issues: \(issues.map(\.description))", file: file, line: line)
}
