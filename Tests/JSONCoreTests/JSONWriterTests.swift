import XCTest

@testable import JSONCore

final class JSONWriterTests: XCTestCase {
  private func enc(_ v: JSONValue) -> String { JSONWriter.encodeString(v) }

  func testScalars() {
    XCTAssertEqual(enc(.null), "null")
    XCTAssertEqual(enc(.bool(true)), "true")
    XCTAssertEqual(enc(.bool(false)), "false")
    XCTAssertEqual(enc(.int(0)), "0")
    XCTAssertEqual(enc(.int(7)), "7")
    XCTAssertEqual(enc(.int(10)), "10")
    XCTAssertEqual(enc(.int(-1)), "-1")
    XCTAssertEqual(enc(.int(1_234_567_890)), "1234567890")
  }

  func testInt64Extremes() {
    XCTAssertEqual(enc(.int(Int64.max)), "9223372036854775807")
    XCTAssertEqual(enc(.int(Int64.min)), "-9223372036854775808")
    XCTAssertEqual(enc(.array([.int(Int64.min), .int(Int64.max)])), "[-9223372036854775808,9223372036854775807]")
  }

  func testIntegralDoublesKeepFraction() {
    XCTAssertEqual(enc(.double(1)), "1.0")
    XCTAssertEqual(enc(.double(-2)), "-2.0")
    XCTAssertEqual(enc(.double(0)), "0.0")
    XCTAssertEqual(enc(.double(123_456_789_012_345)), "123456789012345.0")
    XCTAssertEqual(try JSONParser.parse(enc(.double(3))), .double(3), "reads back as a double, not an integer")
  }

  func testFractionalAndLargeDoubles() throws {
    XCTAssertEqual(enc(.double(1.5)), "1.5")
    XCTAssertEqual(enc(.double(0.1)), "0.1")
    XCTAssertEqual(enc(.double(-0.25)), "-0.25")
    for d in [1e15, 1e16, 1.7976931348623157e308, Double.leastNonzeroMagnitude, 1e-7, 123.456e20] {
      let text = enc(.double(d))
      XCTAssertEqual(try JSONParser.parse(text), .double(d), "\(d) written as \(text) must read back exactly")
    }
  }

  func testNonFiniteDoublesAreNull() {
    XCTAssertEqual(enc(.double(.infinity)), "null")
    XCTAssertEqual(enc(.double(-.infinity)), "null")
    XCTAssertEqual(enc(.double(.nan)), "null")
    XCTAssertEqual(enc(.array([.double(.nan), .int(1)])), "[null,1]")
  }

  func testQuotesAndBackslashesAreEscaped() {
    XCTAssertEqual(enc(.string(#"say "hi" \ bye"#)), #""say \"hi\" \\ bye""#)
    XCTAssertEqual(enc(.string("/")), #""/""#, "solidus needs no escape")
  }

  func testControlCharactersAreEscaped() {
    XCTAssertEqual(enc(.string("a\nb")), #""a\nb""#)
    XCTAssertEqual(enc(.string("\r\t\u{8}\u{c}")), #""\r\t\b\f""#)
    XCTAssertEqual(enc(.string("\u{0}")), #""\u0000""#)
    XCTAssertEqual(enc(.string("\u{1}\u{1f}\u{1b}")), #""\u0001\u001f\u001b""#)
    XCTAssertEqual(enc(.string("\u{7f}")), "\"\u{7f}\"", "DEL is not a JSON control character")
    for c in 0..<0x20 {
      let s = String(UnicodeScalar(UInt8(c)))
      let out = enc(.string(s))
      XCTAssertFalse(out.utf8.contains { $0 < 0x20 }, "raw control byte \(c) leaked")
      XCTAssertEqual(try JSONParser.parse(out), .string(s))
    }
  }

  func testEmbeddedNulRoundTrips() throws {
    let s = "x\u{0}y\u{0}"
    let out = enc(.object(["k": .string(s)]))
    XCTAssertEqual(out, #"{"k":"x\u0000y\u0000"}"#)
    XCTAssertEqual(try JSONParser.parse(out), .object(["k": .string(s)]))
    XCTAssertEqual(enc(.object(["k\u{0}": .int(1)])), #"{"k\u0000":1}"#, "keys are escaped the same way")
  }

  func testNonASCIIWrittenRaw() {
    XCTAssertEqual(enc(.string("é😀")), "\"é😀\"")
    XCTAssertEqual(Array(JSONWriter.encode(.string("é"))), [0x22, 0xC3, 0xA9, 0x22])
  }

  /// Characters that need escaping at every offset of strings longer than a word, so
  /// that the eight-bytes-at-a-time scan meets them in each lane and in the tail.
  func testEscapesAtEveryOffsetOfLongStrings() {
    func reference(_ s: String) -> String {
      var out = "\""
      for u in s.unicodeScalars {
        switch u {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        case "\u{08}": out += "\\b"
        case "\u{0C}": out += "\\f"
        default:
          if u.value < 0x20 {
            let hex = String(u.value, radix: 16)
            out += "\\u00" + (hex.count == 1 ? "0" + hex : hex)
          } else {
            out.unicodeScalars.append(u)
          }
        }
      }
      return out + "\""
    }
    for special in ["\"", "\\", "\n", "\u{01}", "\u{1F}", "é", "😀"] {
      for length in [7, 8, 9, 15, 16, 17, 24, 31] {
        for at in 0..<length {
          var chars = Array(repeating: "a", count: length)
          chars[at] = special
          let s = chars.joined()
          XCTAssertEqual(enc(.string(s)), reference(s), "\(special.debugDescription) at \(at) of \(length)")
        }
      }
    }
  }

  func testOutputIsOneLine() {
    let v: JSONValue = .object(["text": .string("line1\nline2\r\n"), "list": .array([.string("\n")])])
    XCTAssertFalse(JSONWriter.encode(v).contains(0x0A))
    XCTAssertFalse(JSONWriter.encode(v).contains(0x0D))
  }

  func testContainersCompactAndOrdered() {
    var o = JSONObject()
    o.append("b", .int(1))
    o.append("a", .array([.null, .bool(true), .string("s"), .object(JSONObject())]))
    XCTAssertEqual(enc(.object(o)), #"{"b":1,"a":[null,true,"s",{}]}"#)
    XCTAssertEqual(enc(.array([])), "[]")
  }

  func testRoundTripOfComplexDocument() throws {
    let text = #"{"id":"Task/1","n":-12,"big":9223372036854775807,"d":2.5,"i":3.0,"t":true,"f":false,"z":null,"s":"é\"\\\n\u0000","a":[[],{},[{"deep":[1,2,{"x":"y"}]}]],"e":""}"#
    let v = try JSONParser.parse(text)
    XCTAssertEqual(JSONWriter.encodeString(v), text)
    XCTAssertEqual(try JSONParser.parse(JSONWriter.encode(v)), v)
  }

  func testWriterAppendsToExistingBuffer() {
    var w = JSONWriter(capacity: 4)
    w.write(.int(1))
    w.writeRaw(",")
    w.write(JSONObject(dictionaryLiteral: ("k", .string("v"))))
    XCTAssertEqual(String(decoding: w.bytes, as: UTF8.self), #"1,{"k":"v"}"#)
  }

  func testDescriptionIsTheJSONText() {
    XCTAssertEqual(JSONValue.array([.int(1), .string("a")]).description, #"[1,"a"]"#)
  }
}
