import JSONCore
import XCTest

@testable import SchemaModel

// A small builder for schema JSON, so tests read like the schema they describe.

func attr(
  _ name: String, _ type: String, optional: Bool? = nil, default def: JSONValue? = nil, unique: Bool? = nil,
  indexed: Bool? = nil, transient: Bool? = nil, originalName: String? = nil
) -> JSONValue {
  var o: JSONObject = ["name": .string(name), "type": .string(type)]
  if let optional { o.append("optional", .bool(optional)) }
  if let def { o.append("default", def) }
  if let unique { o.append("unique", .bool(unique)) }
  if let indexed { o.append("indexed", .bool(indexed)) }
  if let transient { o.append("transient", .bool(transient)) }
  if let originalName { o.append("originalName", .string(originalName)) }
  return .object(o)
}

func rel(
  _ name: String, _ destination: String, inverse: String? = nil, toMany: Bool? = nil, optional: Bool? = nil,
  ordered: Bool? = nil, deleteRule: String? = nil, min: Int? = nil, max: Int? = nil
) -> JSONValue {
  var o: JSONObject = ["name": .string(name), "destination": .string(destination)]
  if let inverse { o.append("inverse", .string(inverse)) }
  if let toMany { o.append("toMany", .bool(toMany)) }
  if let optional { o.append("optional", .bool(optional)) }
  if let ordered { o.append("ordered", .bool(ordered)) }
  if let deleteRule { o.append("deleteRule", .string(deleteRule)) }
  if let min { o.append("min", .int(Int64(min))) }
  if let max { o.append("max", .int(Int64(max))) }
  return .object(o)
}

func entity(
  _ name: String, parent: String? = nil, abstract: Bool? = nil, _ attributes: [JSONValue] = [],
  relationships: [JSONValue] = [], indexes: [[String]]? = nil, uniqueness: [[String]]? = nil
) -> JSONValue {
  var o: JSONObject = ["name": .string(name)]
  if let parent { o.append("parent", .string(parent)) }
  if let abstract { o.append("abstract", .bool(abstract)) }
  o.append("attributes", .array(attributes))
  if !relationships.isEmpty { o.append("relationships", .array(relationships)) }
  if let indexes { o.append("indexes", .array(indexes.map { .array($0.map { .string($0) }) })) }
  if let uniqueness { o.append("uniqueness", .array(uniqueness.map { .array($0.map { .string($0) }) })) }
  return .object(o)
}

func schema(_ entities: JSONValue..., version: String = "1") -> JSONValue {
  .object(["version": .string(version), "entities": .array(entities)])
}

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
