import XCTest

@testable import JSONCore

/// A text read with one array streamed must give what a whole parse gives: the same value
/// (skeleton plus elements) for valid text, and for invalid text the same error (kind,
/// message, line, column, byte), the first one in the text, whatever the consumer read.
final class JSONArrayStreamTests: XCTestCase {
  static let path = ["params", "changes"]

  /// What reading `bytes` through the stream gives: the whole value, or the error.
  enum Outcome: Equatable {
    case value(JSONValue)
    case error(JSONParseError)
  }

  /// Reads every element (or only `readAtMost`, then `finish`), and rebuilds the value.
  static func streamed(_ bytes: [UInt8], path: [String] = path, maxDepth: Int = 64, readAtMost: Int = .max) -> Outcome {
    let doc: StreamedJSON
    do {
      guard let d = try JSONParser.parse(bytes, streaming: path, maxDepth: maxDepth) else { return whole(bytes, maxDepth: maxDepth) }
      doc = d
    } catch {
      return .error(error as! JSONParseError)
    }
    var items: [JSONValue] = []
    do {
      while items.count < readAtMost, let v = try doc.elements.next() { items.append(v) }
    } catch {
      if let e = doc.elements.finish() { return .error(e) }
      XCTFail("next() threw \(error) but finish() found nothing")
    }
    if let e = doc.elements.finish() { return .error(e) }
    if items.count < readAtMost {
      return .value(replacing(doc.skeleton, at: path[...], with: .array(items)))
    }
    return .value(whole(bytes, maxDepth: maxDepth).value!)  // stopped early: only errors are compared
  }

  static func whole(_ bytes: [UInt8], maxDepth: Int = 64) -> Outcome {
    do { return .value(try JSONParser.parse(bytes, maxDepth: maxDepth)) } catch { return .error(error as! JSONParseError) }
  }

  static func replacing(_ v: JSONValue, at path: ArraySlice<String>, with new: JSONValue) -> JSONValue {
    guard let key = path.first, case .object(var o) = v else { return new }
    o[key] = replacing(o[key]!, at: path.dropFirst(), with: new)
    return .object(o)
  }

  func check(_ text: String, path: [String] = path, maxDepth: Int = 64, file: StaticString = #filePath, line: UInt = #line) {
    check(Array(text.utf8), path: path, maxDepth: maxDepth, file: file, line: line)
  }

  /// Compares with the whole parse, reading on this thread and parsed ahead on another.
  func check(_ bytes: [UInt8], path: [String] = path, maxDepth: Int = 64, file: StaticString = #filePath, line: UInt = #line) {
    let expected = Self.whole(bytes, maxDepth: maxDepth)
    defer { JSONArrayStream.parseAheadMinimumBytes = 1 << 16 }
    for minimum in [Int.max, 0] {
      JSONArrayStream.parseAheadMinimumBytes = minimum
      let got = Self.streamed(bytes, path: path, maxDepth: maxDepth)
      XCTAssertEqual(got, expected, "\(minimum): " + String(decoding: bytes.prefix(300), as: UTF8.self), file: file, line: line)
      if case .error = expected {
        // A consumer that stops after the first element gets the same error from `finish`.
        XCTAssertEqual(Self.streamed(bytes, path: path, maxDepth: maxDepth, readAtMost: 1), expected, file: file, line: line)
      }
    }
  }

  static let base = """
    {"jsonrpc":"2.0","id":1,"method":"context.save","params":{"author":"me","changes":[{"op":"insert","entity":"Task",\
    "values":{"title":"a \\"quoted\\" [title] {x}","n":1.5,"tags":[1,2,{"k":null}]}},
     {"op":"delete","id":"Task/1"} ,"x\\\\",[],{},true,-0.5e3
    ,"é ü \\u00e9"],"after":[1,2]}}
    """

  func testValidTextsGiveTheWholeParse() throws {
    check(Self.base)
    check(#"{"params":{"changes":[]}}"#)
    check(#"{"params":{"changes":[ ]},"method":"x"}"#)
    check(#" {"method":"m", "params" : { "changes" : [ 1 ] } } "#)
    check("{\"params\":{\"changes\":[\n1\n,\n2\n]\n}\n}")
    check(#"{"params":{"changes":[[[[]]],{"a":{"b":[{}]}}]}}"#)
    check(#"{"a":"}]\"","params":{"b":[1,{"c":"]"}],"changes":["\\",null,false]}}"#)
    let doc = try XCTUnwrap(JSONParser.parse(Array(Self.base.utf8), streaming: Self.path))
    XCTAssertEqual(doc.elements.expectedCount, 8)
  }

  func testNoArrayAtThePathIsNotStreamed() throws {
    for text in [
      #"{"params":{"changes":{}}}"#, #"{"params":[]}"#, #"[{"params":{"changes":[]}}]"#, #"{"params":{"chang\u0065s":[1]}}"#,
      #"{"params":{}}"#, "", "   ", #"{"params":{"changes":"#,
    ] {
      XCTAssertNil(try? JSONParser.parse(Array(text.utf8), streaming: Self.path), text)
      check(text)
    }
  }

  /// Every way of breaking a text at every byte: cut short, a byte replaced, inserted or
  /// removed. Each gives the whole parse's outcome.
  func testBrokenTextsGiveTheWholeParsesError() {
    let bytes = Array(Self.base.utf8)
    let replacements: [[UInt8]] = [
      [], Array("}".utf8), Array("]".utf8), Array(",".utf8), Array("\"".utf8), Array("x".utf8), Array("\\".utf8), [0x0A],
      [0xFF], [0xC3], Array(" ".utf8), Array("[".utf8), Array("{".utf8), Array(":".utf8), Array("1".utf8), [0x00],
      Array("\"op\"".utf8),
    ]
    for i in 0..<bytes.count {
      check(Array(bytes[..<i]))
      for r in replacements {
        check(Array(bytes[..<i]) + r + Array(bytes[(i + 1)...]))
        check(Array(bytes[..<i]) + r + Array(bytes[i...]))
      }
    }
  }

  /// Random edits (a fixed seed): one to three bytes replaced, inserted or removed.
  func testRandomlyEditedTextsGiveTheWholeParsesOutcome() {
    var rng = SeededLCG(seed: 20_260_101)
    let bases = [
      Array(Self.base.utf8),
      Array(
        "{\"params\" : {\n  \"changes\" : [\n    {\"a\":\"é\\n\"},\n    [1, 2.5e-3, \"\\ud83d\\ude00\"]\n  ],\n  \"b\": null\n}}\n".utf8),
    ]
    let alphabet: [UInt8] = Array("{}[],:\" \\\n\tnulltrue0-.e5aé".utf8) + [0xFF, 0x80, 0xC3, 0xE2, 0x00]
    for _ in 0..<4000 {
      var bytes = bases[Int(rng.next() % UInt64(bases.count))]
      for _ in 0..<(1 + Int(rng.next() % 3)) {
        let i = Int(rng.next() % UInt64(bytes.count + 1))
        let c = alphabet[Int(rng.next() % UInt64(alphabet.count))]
        switch rng.next() % 3 {
        case 0 where i < bytes.count: bytes[i] = c
        case 1 where i < bytes.count: bytes.remove(at: i)
        default: bytes.insert(c, at: i)
        }
      }
      check(bytes)
    }
  }

  /// More elements than the parse-ahead queue holds, with errors at different places.
  func testLongArraysParsedAhead() {
    let items = (0..<2000).map { #"{"op":"insert","n":\#($0),"s":"\#(String(repeating: "x", count: $0 % 50))"}"# }
    let text = #"{"method":"m","params":{"changes":["# + items.joined(separator: ",") + "]}}"
    check(text)
    for broken in [1999, 1000, 300, 0] {
      var bad = items
      bad[broken] = #"{"op" "insert"}"#
      check(#"{"params":{"changes":["# + bad.joined(separator: ",") + "]}}")
      var deep = items
      deep[broken] = nestedArrays(70)
      check(#"{"params":{"changes":["# + deep.joined(separator: ",") + "]}}")
      check(#"{"params":{"changes":["# + deep.joined(separator: ",") + #",{"a" 1}]}}"#)
    }
  }

  func testDuplicateKeysAnywhere() {
    check(#"{"params":{"changes":[{"a":1,"a":2}]}}"#)
    check(#"{"params":{"changes":[1],"changes":[2]}}"#)
    check(#"{"params":{"changes":[1]},"params":{}}"#)
    check(#"{"id":1,"id":2,"params":{"changes":[{"a":1,"a":2}]}}"#)
    check(#"{"params":{"changes":[1,{"a":1,"a":2}]},"x":1,"x":2}"#)
  }

  func testNestingPastTheLimit() {
    let deep = nestedArrays(70)
    check(#"{"params":{"changes":[1,\#(deep),2]}}"#)
    check(#"{"params":{"changes":[1,\#(deep),2,{"a" 1}]}}"#, maxDepth: 64)  // the syntax error wins
    check(#"{"params":{"changes":[\#(deep)]},"x":"#)
    check(#"{"params":{"changes":[1]},"deep":\#(deep)}"#)
    check(#"{"params":{"changes":[1,{"a" 1}]},"deep":\#(deep)}"#)
    check(#"{"params":{"changes":[\#(nestedArrays(61))]}}"#)  // exactly at the limit
    check(#"{"params":{"changes":[\#(nestedArrays(62))]}}"#)
    // jansson's own limit (2048 levels) inside the whole text: a parse error where it is
    // reached, before a later syntax error.
    for n in [2043, 2044, 2045, 2046, 2047, 2048] {
      check(#"{"params":{"changes":[\#(nestedArrays(n))]}}"#, maxDepth: 64)
      check(#"{"params":{"changes":[\#(nestedArrays(n)),{"a" 1}]}}"#, maxDepth: 64)
      check(#"{"params":{"changes":[\#(nestedArrays(n)),{"a" 1}]}}"#, maxDepth: 5000)
      check(#"{"params":{"changes":[\#(nestedArrays(n))]}}"#, maxDepth: 5000)
    }
  }

  func testRawNULIsRefusedWherever() {
    check(Array(#"{"params":{"changes":[1,"#.utf8) + [0] + Array("2]}}".utf8))
    check(Array(#"{"params":{"changes":[1,2]}}"#.utf8) + [0])
  }

  func testLinesAndColumnsCountCharacters() {
    check("{\"params\":{\"changes\":[\n\"é\",\n  \"ü\" x]}}")
    check("{\"params\":{\"changes\":[\"ééé\", \"\\u12\"]}}")
    check("{\"params\":{\"changes\":[1]},\n\"é\": x}")
  }

  func testAnotherPathAtTheRoot() {
    check(#"{"format":"x","objects":[{"_id":"A/1"},{"_id":"A/2"}],"entities":["A"]}"#, path: ["objects"])
    check(#"{"format":"x","objects":[{"_id":"A/1"},{"_id":"A/2"],"entities":["A"]}"#, path: ["objects"])
  }
}

extension JSONArrayStreamTests.Outcome {
  var value: JSONValue? { if case .value(let v) = self { return v } else { return nil } }
}

/// A seedable generator (Knuth's MMIX LCG), so that a failing edit can be found again.
struct SeededLCG {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
    return state >> 17
  }
}
