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
  do {
    let v = try JSONParser.parse(bytes, maxDepth: maxDepth)
    XCTFail("expected a parse error, got \(v)", file: file, line: line)
  } catch let e as JSONParseError {
    return e
  } catch {
    XCTFail("expected JSONParseError, got \(error)", file: file, line: line)
  }
  return nil
}

func parseError(_ text: String, maxDepth: Int = JSONParser.defaultMaxDepth, file: StaticString = #filePath, line: UInt = #line)
  -> JSONParseError?
{
  parseError(Array(text.utf8), maxDepth: maxDepth, file: file, line: line)
}

/// Expects `body` to throw a JSONReadError and returns it.
func readError<T>(_ body: () throws -> T, file: StaticString = #filePath, line: UInt = #line) -> JSONReadError? {
  do {
    let v = try body()
    XCTFail("expected a JSONReadError, got \(v)", file: file, line: line)
  } catch let e as JSONReadError {
    return e
  } catch {
    XCTFail("expected JSONReadError, got \(error)", file: file, line: line)
  }
  return nil
}

/// `depth` nested arrays around `1`.
func nestedArrays(_ depth: Int) -> String {
  String(repeating: "[", count: depth) + "1" + String(repeating: "]", count: depth)
}
