import XCTest

@testable import JSONCore

final class JSONReaderTests: XCTestCase {
  private func reader(_ text: String, path: String = "params") throws -> JSONReader {
    try JSONReader(JSONParser.parse(text), path: path)
  }

  func testNonObjectIsRejectedWithPath() {
    let e = readError { try JSONReader(.array([]), path: "params") }
    XCTAssertEqual(e?.path, "params")
    XCTAssertEqual(e?.expected, "object")
    XCTAssertEqual(e?.actual, "array")
    XCTAssertEqual(e?.message, "params: expected object, got array")
  }

  func testStringReadsAndWrongType() throws {
    let r = try reader(#"{"name":"x","count":3,"nothing":null}"#)
    XCTAssertEqual(try r.string("name"), "x")
    XCTAssertNil(try r.string("absent"))
    XCTAssertNil(try r.string("nothing"), "null reads as absent")
    let e = readError { try r.string("count") }
    XCTAssertEqual(e?.path, "params.count")
    XCTAssertEqual(e?.expected, "string")
    XCTAssertEqual(e?.actual, "integer")
    XCTAssertEqual(e?.message, "params.count: expected string, got integer")
  }

  func testRequiredMembersReportMissing() throws {
    let r = try reader(#"{"nothing":null}"#)
    let e = readError { try r.requireString("name") }
    XCTAssertEqual(e?.path, "params.name")
    XCTAssertNil(e?.actual)
    XCTAssertEqual(e?.message, "params.name: missing string")
    XCTAssertEqual(readError { try r.requireString("nothing") }?.message, "params.nothing: missing string")
    XCTAssertEqual(readError { try r.require("v", expected: "id") }?.message, "params.v: missing id")
    XCTAssertEqual(readError { try r.requireObject("o") }?.message, "params.o: missing object")
    XCTAssertEqual(readError { try r.requireArray("a") }?.message, "params.a: missing array")
  }

  func testHasAndValueTreatNullAsAbsent() throws {
    let r = try reader(#"{"a":null,"b":0,"c":false,"d":""}"#)
    XCTAssertFalse(r.has("a"))
    XCTAssertFalse(r.has("zz"))
    XCTAssertTrue(r.has("b"))
    XCTAssertTrue(r.has("c"))
    XCTAssertTrue(r.has("d"))
    XCTAssertNil(r.value("a"))
    XCTAssertEqual(r.value("b"), .int(0))
  }

  func testBool() throws {
    let r = try reader(#"{"yes":true,"num":1}"#)
    XCTAssertEqual(try r.bool("yes"), true)
    XCTAssertNil(try r.bool("no"))
    XCTAssertEqual(readError { try r.bool("num") }?.message, "params.num: expected boolean, got integer")
  }

  func testIntRangeAndType() throws {
    let r = try reader(#"{"limit":5000,"neg":-1,"d":1.5,"s":"5"}"#)
    XCTAssertEqual(try r.int("limit"), 5000)
    XCTAssertEqual(try r.int("limit", min: 0, max: 10000), 5000)
    let e = readError { try r.int("limit", min: 0, max: 1000) }
    XCTAssertEqual(e?.path, "params.limit")
    XCTAssertEqual(e?.actual, "5000")
    XCTAssertEqual(e?.message, "params.limit: 5000 is out of range 0...1000")
    XCTAssertEqual(readError { try r.int("neg", min: 0) }?.message, "params.neg: -1 is out of range 0...9223372036854775807")
    XCTAssertEqual(readError { try r.int("d") }?.message, "params.d: expected integer, got number")
    XCTAssertEqual(readError { try r.int("s") }?.message, "params.s: expected integer, got string")
  }

  func testNestedObjectPaths() throws {
    let r = try reader(#"{"values":{"priority":"high","inner":{"x":[]}}}"#)
    let values = try XCTUnwrap(try r.object("values"))
    XCTAssertEqual(values.path, "params.values")
    XCTAssertEqual(readError { try values.int("priority") }?.message, "params.values.priority: expected integer, got string")
    let inner = try values.requireObject("inner")
    XCTAssertEqual(readError { try inner.string("x") }?.path, "params.values.inner.x")
    XCTAssertEqual(readError { try r.object("values").map { try $0.object("priority") } }?.message,
      "params.values.priority: expected object, got string")
  }

  func testArraysAndStringArrays() throws {
    let r = try reader(#"{"ids":["a","b"],"mixed":["a",2,"c"],"notArray":{}}"#)
    XCTAssertEqual(try r.stringArray("ids"), ["a", "b"])
    XCTAssertEqual(try r.array("ids")?.count, 2)
    XCTAssertNil(try r.stringArray("absent"))
    let e = readError { try r.stringArray("mixed") }
    XCTAssertEqual(e?.path, "params.mixed[1]")
    XCTAssertEqual(e?.message, "params.mixed[1]: expected string, got integer")
    XCTAssertEqual(readError { try r.array("notArray") }?.message, "params.notArray: expected array, got object")
  }

  func testRejectUnknown() throws {
    let r = try reader(#"{"entity":"Task","vaules":{},"limit":1}"#)
    XCTAssertNoThrow(try r.rejectUnknown(["entity", "vaules", "limit", "extra"]))
    let e = readError { try r.rejectUnknown(["entity", "values", "limit"]) }
    XCTAssertEqual(e?.path, "params.vaules")
    XCTAssertEqual(e?.message, "params.vaules: unknown member 'vaules'")
    XCTAssertEqual(e?.expected, "one of entity, limit, values")
  }

  func testRejectUnknownReportsFirstUnknownInOrder() throws {
    let r = try reader(#"{"b":1,"a":2,"z":3}"#)
    XCTAssertEqual(readError { try r.rejectUnknown(["z"]) }?.path, "params.b")
  }

  func testCustomRootPath() throws {
    let r = try reader(#"{"x":1}"#, path: "params.changes[2].values")
    XCTAssertEqual(readError { try r.string("x") }?.path, "params.changes[2].values.x")
    XCTAssertEqual(r.child("y"), "params.changes[2].values.y")
  }

  func testReadErrorInitDefaults() {
    XCTAssertEqual(JSONReadError(path: "p.q", expected: "string", actual: "null").message, "p.q: expected string, got null")
    XCTAssertEqual(JSONReadError(path: "p.q", expected: "string", actual: nil).message, "p.q: missing string")
    XCTAssertEqual(JSONReadError(path: "p", expected: "e", actual: nil, message: "custom").description, "custom")
  }
}
