import JSONCore
import XCTest

@testable import RPCCore

final class MethodRegistryTests: XCTestCase {
  func testLookupAndNamesKeepDeclarationOrder() throws {
    let registry = MethodRegistry([
      ("b.second", { _, _ in .int(2) }),
      ("a.first", { _, _ in .int(1) }),
    ])
    XCTAssertEqual(registry.names, ["b.second", "a.first"])
    XCTAssertEqual(registry.handlers.count, 2)
    XCTAssertNotNil(registry["a.first"])
    XCTAssertNil(registry["c.missing"])
    XCTAssertNil(registry["A.FIRST"], "names are case-sensitive")
  }

  func testHandlersAreCalledWithParamsAndContext() throws {
    let server = Server(input: -1, output: -1, log: Logger(level: .error))
    let registry = MethodRegistry([
      ("sum", { params, ctx in
        let a = try params.int("a") ?? 0
        let b = try params.int("b") ?? 0
        return .object(["sum": .int(a + b), "method": .string(ctx.method), "id": ctx.id ?? .null])
      })
    ])
    let ctx = RequestContext(id: .int(7), method: "sum", server: server)
    let params: JSONObject = ["a": 2, "b": 3]
    let result = try registry["sum"]?(JSONReader(params, path: "params"), ctx)
    XCTAssertEqual(result, ["sum": 5, "method": "sum", "id": 7])
    XCTAssertFalse(ctx.isCancelled)
  }

  func testEmptyRegistry() {
    let registry = MethodRegistry([])
    XCTAssertTrue(registry.names.isEmpty)
    XCTAssertNil(registry["anything"])
  }
}

final class RPCErrorTests: XCTestCase {
  func testStandardCodes() {
    XCTAssertEqual(RPCError.parseError("x").code, -32700)
    XCTAssertEqual(RPCError.parseError("x").kind, "parse")
    XCTAssertEqual(RPCError.invalidRequest("x").code, -32600)
    XCTAssertEqual(RPCError.invalidRequest("x", kind: "tooDeep").kind, "tooDeep")
    XCTAssertEqual(RPCError.methodNotFound("m").code, -32601)
    XCTAssertEqual(RPCError.methodNotFound("m").data["method"], "m")
    XCTAssertEqual(RPCError.invalidParams("x").code, -32602)
    XCTAssertEqual(RPCError.internalError("x").code, -32603)
    XCTAssertEqual(RPCError.cancelled().code, -32800)
    XCTAssertEqual(RPCError.cancelled().message, "Request cancelled")
  }

  func testKindComesFirstAndCannotBeOverridden() {
    let e = RPCError(code: -32010, message: "m", kind: "conflict", data: ["id": "Task/1", "kind": "sneaky"])
    XCTAssertEqual(e.data.keys, ["kind", "id"])
    XCTAssertEqual(e.kind, "conflict")
    XCTAssertEqual(JSONWriter.encodeString(e.json), #"{"code":-32010,"message":"m","data":{"kind":"conflict","id":"Task/1"}}"#)
    XCTAssertEqual(e.description, "-32010 conflict: m")
  }

  func testReadErrorConversion() {
    let e = JSONReadError(path: "params.values.x", expected: "integer", actual: "string").rpcError
    XCTAssertEqual(e.code, -32602)
    XCTAssertEqual(e.message, "Invalid params: params.values.x: expected integer, got string")
    XCTAssertEqual(e.data, ["kind": "invalidParams", "path": "params.values.x", "expected": "integer", "actual": "string"])
    let missing = JSONReadError(path: "params.id", expected: "string", actual: nil).rpcError
    XCTAssertEqual(missing.data, ["kind": "invalidParams", "path": "params.id", "expected": "string"])
  }
}
