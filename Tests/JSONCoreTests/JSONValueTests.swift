import XCTest

@testable import JSONCore

final class JSONValueTests: XCTestCase {
  func testTypeNames() {
    XCTAssertEqual(JSONValue.null.typeName, "null")
    XCTAssertEqual(JSONValue.bool(true).typeName, "boolean")
    XCTAssertEqual(JSONValue.int(1).typeName, "integer")
    XCTAssertEqual(JSONValue.double(1).typeName, "number")
    XCTAssertEqual(JSONValue.string("").typeName, "string")
    XCTAssertEqual(JSONValue.array([]).typeName, "array")
    XCTAssertEqual(JSONValue.object(JSONObject()).typeName, "object")
  }

  func testLiterals() {
    let v: JSONValue = ["a": 1, "b": [true, .null, 2.5, "s"]]
    XCTAssertEqual(
      v, .object(JSONObject([.init("a", .int(1)), .init("b", .array([.bool(true), .null, .double(2.5), .string("s")]))])))
    XCTAssertEqual(v["a"], .int(1))
    XCTAssertNil(v["missing"])
    XCTAssertNil(JSONValue.array([])["a"], "member lookup on a non-object is nil")
  }

  func testAccessors() {
    XCTAssertTrue(JSONValue.null.isNull)
    XCTAssertFalse(JSONValue.int(0).isNull)
    XCTAssertEqual(JSONValue.string("x").stringValue, "x")
    XCTAssertNil(JSONValue.int(1).stringValue)
    XCTAssertEqual(JSONValue.array([.int(1)]).arrayValue, [.int(1)])
    XCTAssertNil(JSONValue.string("x").arrayValue)
    XCTAssertNil(JSONValue.string("x").objectValue)
  }

  func testObjectSubscriptSetReplacesInPlaceAppendsAndRemoves() {
    var o: JSONObject = ["a": 1, "b": 2, "c": 3]
    o["b"] = .string("two")
    XCTAssertEqual(o.keys, ["a", "b", "c"], "replacing keeps the position")
    XCTAssertEqual(o["b"], .string("two"))
    o["d"] = .bool(false)
    XCTAssertEqual(o.keys, ["a", "b", "c", "d"])
    o["a"] = nil
    XCTAssertEqual(o.keys, ["b", "c", "d"])
    o["zz"] = nil
    XCTAssertEqual(o.count, 3)
    XCTAssertTrue(o.contains("c"))
    XCTAssertFalse(o.contains("a"))
    XCTAssertFalse(o.isEmpty)
    XCTAssertTrue(JSONObject().isEmpty)
  }

  func testObjectEqualityIsOrderSensitive() {
    let a: JSONObject = ["x": 1, "y": 2]
    let b: JSONObject = ["y": 2, "x": 1]
    XCTAssertNotEqual(a, b, "objects are ordered: the wire form differs")
    XCTAssertEqual(a, ["x": 1, "y": 2])
  }

  func testNullMemberIsPresentButNull() {
    let o: JSONObject = ["n": .null]
    XCTAssertEqual(o["n"], .null)
    XCTAssertTrue(o.contains("n"))
  }
}
