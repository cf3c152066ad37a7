import TestSupport
import XCTest

@testable import JSONCore

/// Parses `text` and fails the test (returning nil) if it does not parse.
func parseOK(_ text: String, maxDepth: Int = JSONParser.defaultMaxDepth, file: StaticString = #filePath, line: UInt = #line)
  -> JSONValue?
{
  do {
    return try JSONParser.parse(text, maxDepth: maxDepth)
  } catch {
    XCTFail("expected \(text.prefix(80)) to parse, got \(error)", file: file, line: line)
    return nil
  }
}

/// Parses raw bytes and returns the parse error, failing the test when parsing succeeds.
func parseError(_ bytes: [UInt8], maxDepth: Int = JSONParser.defaultMaxDepth, file: StaticString = #filePath, line: UInt = #line)
  -> JSONParseError?
{
  expectError(JSONParseError.self, { try JSONParser.parse(bytes, maxDepth: maxDepth) }, file: file, line: line)
}

func parseError(_ text: String, maxDepth: Int = JSONParser.defaultMaxDepth, file: StaticString = #filePath, line: UInt = #line)
  -> JSONParseError?
{
  parseError(Array(text.utf8), maxDepth: maxDepth, file: file, line: line)
}

/// Expects `body` to throw a JSONReadError and returns it.
func readError<T>(_ body: () throws -> T, file: StaticString = #filePath, line: UInt = #line) -> JSONReadError? {
  expectError(JSONReadError.self, body, file: file, line: line)
}

/// `depth` nested arrays around `1`.
func nestedArrays(_ depth: Int) -> String {
  String(repeating: "[", count: depth) + "1" + String(repeating: "]", count: depth)
}
