import XCTest

@testable import JSONCore

final class JSONParserTests: XCTestCase {
  func testScalarsAtTopLevel() {
    XCTAssertEqual(parseOK("null"), .null)
    XCTAssertEqual(parseOK("true"), .bool(true))
    XCTAssertEqual(parseOK("false"), .bool(false))
    XCTAssertEqual(parseOK("42"), .int(42))
    XCTAssertEqual(parseOK("-7"), .int(-7))
    XCTAssertEqual(parseOK("1.5"), .double(1.5))
    XCTAssertEqual(parseOK("1.5e3"), .double(1500))
    XCTAssertEqual(parseOK("1E2"), .double(100))
    XCTAssertEqual(parseOK("\"hi\""), .string("hi"))
    XCTAssertEqual(parseOK("  [ ]  "), .array([]))
    XCTAssertEqual(parseOK("{}"), .object(JSONObject()))
  }

  func testIntegersAndDoublesStayDistinct() {
    XCTAssertEqual(parseOK("1"), .int(1))
    XCTAssertEqual(parseOK("1.0"), .double(1.0))
    XCTAssertEqual(parseOK("-0"), .int(0))
    XCTAssertEqual(parseOK("[1, 1.0]"), .array([.int(1), .double(1)]))
  }

  func testObjectKeepsMemberOrder() throws {
    let v = try XCTUnwrap(parseOK(#"{"zeta":1,"alpha":2,"mid":{"y":true,"x":false},"beta":3}"#))
    let o = try XCTUnwrap(v.objectValue)
    XCTAssertEqual(o.keys, ["zeta", "alpha", "mid", "beta"])
    XCTAssertEqual(o["mid"]?.objectValue?.keys, ["y", "x"])
    XCTAssertEqual(JSONWriter.encodeString(v), #"{"zeta":1,"alpha":2,"mid":{"y":true,"x":false},"beta":3}"#)
  }

  func testManyKeysKeepOrder() throws {
    let keys = (0..<200).map { "k\((($0 * 37) % 200))" }
    let text = "{" + keys.enumerated().map { "\"\($0.element)\":\($0.offset)" }.joined(separator: ",") + "}"
    let o = try XCTUnwrap(parseOK(text)?.objectValue)
    XCTAssertEqual(o.keys, keys)
    XCTAssertEqual(o["k37"], .int(1))
  }

  func testInt64Extremes() {
    XCTAssertEqual(parseOK("9223372036854775807"), .int(Int64.max))
    XCTAssertEqual(parseOK("-9223372036854775808"), .int(Int64.min))
    XCTAssertEqual(parseOK("[9007199254740993]"), .array([.int(9_007_199_254_740_993)]), "above 2^53 must not lose digits")
  }

  func testTooBigIntegerIsRejected() {
    let e = parseError("9223372036854775808")
    XCTAssertEqual(e?.kind, .numericOverflow)
    XCTAssertEqual(e?.message.contains("too big integer"), true, e?.message ?? "")
    let n = parseError("[-9223372036854775809]")
    XCTAssertEqual(n?.kind, .numericOverflow)
    XCTAssertEqual(n?.message.contains("too big negative integer"), true, n?.message ?? "")
  }

  func testRealOverflowIsRejected() {
    XCTAssertEqual(parseError("1e400")?.kind, .numericOverflow)
  }

  func testEmbeddedNulSurvivesInStrings() throws {
    let v = try XCTUnwrap(parseOK(#"{"k":"x\u0000y","list":["\u0000"]}"#))
    XCTAssertEqual(v["k"], .string("x\u{0}y"))
    XCTAssertEqual(v["k"]?.stringValue?.utf8.count, 3)
    XCTAssertEqual(v["list"], .array([.string("\u{0}")]))
  }

  func testEmbeddedNulInAKeyIsRefused() {
    // jansson's JSON_ALLOW_NUL covers string values only; a key with NUL is refused with
    // its own kind (never cut short at the NUL), wherever the object sits.
    let e = parseError(#"{"a\u0000k":1}"#)
    XCTAssertEqual(e?.kind, .nulInKey)
    XCTAssertEqual(e?.message.contains("NUL byte in object key"), true, e?.message ?? "")
    XCTAssertEqual(e?.line, 1)
    XCTAssertEqual(e?.position, 11, "just past the key")
    XCTAssertEqual(parseError(#"[1,{"ok":{"\u0000":2}}]"#)?.kind, .nulInKey)
    XCTAssertEqual(parseError(#"{"k\u0000":1,"k":2}"#)?.kind, .nulInKey, "not taken for a duplicate of 'k'")
  }

  func testEscapesAreDecoded() {
    XCTAssertEqual(parseOK(#""q\"b\\s\/n\nr\rt\tb\bf\f""#), .string("q\"b\\s/n\nr\rt\tb\u{8}f\u{c}"))
    XCTAssertEqual(parseOK(#""\u00e9\u20ac""#), .string("é€"))
    XCTAssertEqual(parseOK(#""\ud83d\ude00""#), .string("😀"), "surrogate pairs join")
  }

  func testRawUTF8IsAccepted() {
    XCTAssertEqual(parseOK("\"Émile 😀 ß\""), .string("Émile 😀 ß"))
  }

  func testInvalidUTF8IsRejectedWithKind() {
    XCTAssertEqual(parseError([0x22, 0xFF, 0x22])?.kind, .invalidUTF8)
    XCTAssertEqual(parseError([0x22, 0xC3, 0x28, 0x22])?.kind, .invalidUTF8, "truncated two-byte sequence")
    XCTAssertEqual(parseError([0x22, 0xC0, 0xAF, 0x22])?.kind, .invalidUTF8, "overlong encoding of '/'")
    XCTAssertEqual(parseError([0x22, 0xED, 0xA0, 0x80, 0x22])?.kind, .invalidUTF8, "encoded surrogate")
    let inKey: [UInt8] = Array(#"{""#.utf8) + [0xFE] + Array(#"":1}"#.utf8)
    XCTAssertEqual(parseError(inKey)?.kind, .invalidUTF8)
  }

  func testDuplicateKeysAreRejected() {
    let e = parseError(#"{"a":1,"b":2,"a":3}"#)
    XCTAssertEqual(e?.kind, .duplicateKey)
    XCTAssertEqual(parseError(#"[{"x":{"k":1,"k":1}}]"#)?.kind, .duplicateKey, "also in nested objects")
  }

  func testSyntaxErrorsCarryPosition() throws {
    let e = try XCTUnwrap(parseError("{\"a\":\n  tru}"))
    XCTAssertEqual(e.kind, .syntax)
    XCTAssertEqual(e.line, 2)
    XCTAssertGreaterThan(e.position, 0)
    XCTAssertTrue(e.description.contains("line 2"), e.description)
    XCTAssertEqual(parseError("[1,]")?.kind, .syntax)
    XCTAssertEqual(parseError("{'a':1}")?.kind, .syntax)
    XCTAssertEqual(parseError("[1] [2]")?.kind, .syntax, "one text only")
    XCTAssertEqual(parseError("NaN")?.kind, .syntax)
  }

  func testEmptyInputIsASyntaxError() {
    XCTAssertEqual(parseError([UInt8]())?.kind, .syntax)
    XCTAssertEqual(parseError("")?.kind, .syntax)
    XCTAssertEqual(parseError("   ")?.kind, .syntax)
  }

  func testDepthLimitDefault() {
    XCTAssertEqual(JSONParser.defaultMaxDepth, 64)
    XCTAssertNotNil(parseOK(nestedArrays(64)), "64 levels are allowed")
    let e = parseError(nestedArrays(65))
    XCTAssertEqual(e?.kind, .tooDeep)
    XCTAssertEqual(e?.message, "nesting deeper than 64 levels")
  }

  func testDepthLimitCustomAndObjects() {
    XCTAssertEqual(parseOK("[[1]]", maxDepth: 2), .array([.array([.int(1)])]))
    XCTAssertEqual(parseError("[[[1]]]", maxDepth: 2)?.kind, .tooDeep)
    XCTAssertEqual(parseError(#"{"a":{"b":{"c":1}}}"#, maxDepth: 2)?.kind, .tooDeep)
    XCTAssertEqual(parseOK("1", maxDepth: 0), .int(1), "scalars have no depth")
    XCTAssertEqual(parseError("[]", maxDepth: 0)?.kind, .tooDeep)
  }

  func testVeryDeepInputIsRefusedNotRecursed() {
    // Far beyond jansson's own stack limit: refused with tooDeep, no crash.
    XCTAssertEqual(parseError(nestedArrays(100_000))?.kind, .tooDeep)
  }

  func testParsesFromStringBytesAndBuffer() throws {
    let text = #"{"n":[1,2.5,"x",null]}"#
    let a = try JSONParser.parse(text)
    let b = try JSONParser.parse(Array(text.utf8))
    let c = try Array(text.utf8).withUnsafeBytes { try JSONParser.parse($0) }
    XCTAssertEqual(a, b)
    XCTAssertEqual(b, c)
  }
}
