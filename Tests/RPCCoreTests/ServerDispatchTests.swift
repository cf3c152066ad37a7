import JSONCore
import XCTest

@testable import RPCCore

final class ServerDispatchTests: XCTestCase {
  func testRequestGetsAResult() {
    let (server, calls) = makeServer()
    XCTAssertEqual(
      server.reply(#"{"jsonrpc":"2.0","id":1,"method":"echo","params":{"b":1,"a":[true,null]}}"#),
      #"{"jsonrpc":"2.0","id":1,"result":{"b":1,"a":[true,null]}}"#)
    XCTAssertEqual(calls.names, ["echo"])
  }

  func testMissingParamsIsAnEmptyObject() {
    let (server, _) = makeServer()
    XCTAssertEqual(server.reply(#"{"jsonrpc":"2.0","id":2,"method":"echo"}"#), #"{"jsonrpc":"2.0","id":2,"result":{}}"#)
  }

  func testIDKindsAreEchoed() {
    let (server, _) = makeServer()
    XCTAssertEqual(server.reply(#"{"jsonrpc":"2.0","id":"abc","method":"echo"}"#), #"{"jsonrpc":"2.0","id":"abc","result":{}}"#)
    XCTAssertEqual(server.reply(#"{"jsonrpc":"2.0","id":-7,"method":"echo"}"#), #"{"jsonrpc":"2.0","id":-7,"result":{}}"#)
    XCTAssertEqual(server.reply(#"{"jsonrpc":"2.0","id":1.5,"method":"echo"}"#), #"{"jsonrpc":"2.0","id":1.5,"result":{}}"#)
    XCTAssertEqual(server.reply(#"{"jsonrpc":"2.0","id":null,"method":"echo"}"#), #"{"jsonrpc":"2.0","id":null,"result":{}}"#)
    XCTAssertEqual(server.reply(#"{"jsonrpc":"2.0","id":"","method":"echo"}"#), #"{"jsonrpc":"2.0","id":"","result":{}}"#)
    XCTAssertEqual(
      server.reply(#"{"jsonrpc":"2.0","id":9223372036854775807,"method":"echo"}"#),
      #"{"jsonrpc":"2.0","id":9223372036854775807,"result":{}}"#)
  }

  func testHandlerSeesIDAndMethod() {
    let (server, _) = makeServer()
    XCTAssertEqual(
      server.reply(#"{"method":"context","id":"x1","jsonrpc":"2.0"}"#), #"{"jsonrpc":"2.0","id":"x1","result":{"id":"x1","method":"context"}}"#,
      "member order of the request does not matter")
  }

  func testBadIDKinds() {
    let (server, calls) = makeServer()
    let reply = server.replyValue(#"{"jsonrpc":"2.0","id":{"a":1},"method":"echo"}"#)
    XCTAssertEqual(reply?["id"], .null)
    XCTAssertEqual(reply?["error"]?["code"], -32600)
    XCTAssertEqual(reply?["error"]?["message"], "Invalid Request: id must be a string, a number or null, got object")
    XCTAssertEqual(server.replyValue(#"{"jsonrpc":"2.0","id":[1],"method":"echo"}"#)?["error"]?["code"], -32600)
    XCTAssertEqual(server.replyValue(#"{"jsonrpc":"2.0","id":true,"method":"echo"}"#)?["error"]?["code"], -32600)
    XCTAssertEqual(calls.names, [])
  }

  func testNotificationsGetNoReply() {
    let (server, calls) = makeServer()
    XCTAssertNil(server.reply(#"{"jsonrpc":"2.0","method":"note","params":{"n":1}}"#))
    XCTAssertEqual(calls.names, ["note:1"], "the handler still runs")
    XCTAssertNil(server.reply(#"{"jsonrpc":"2.0","method":"noSuchNotification"}"#), "unknown notifications are dropped")
    XCTAssertNil(server.reply(#"{"jsonrpc":"2.0","method":"$/optional"}"#))
    XCTAssertNil(server.reply(#"{"jsonrpc":"2.0","method":"appError"}"#), "a failing notification is not answered")
    XCTAssertNil(server.reply(#"{"jsonrpc":"2.0","method":"crash"}"#))
    XCTAssertNil(server.reply(#"{"jsonrpc":"2.0","method":"note","params":[1]}"#), "bad params in a notification: no reply")
  }

  func testContextOfANotificationHasNoID() {
    let (server, calls) = makeServer()
    XCTAssertNil(server.reply(#"{"jsonrpc":"2.0","method":"context"}"#))
    XCTAssertEqual(calls.names, ["context"])
  }

  func testWrongJSONRPCVersion() {
    let (server, calls) = makeServer()
    for bad in [#""1.0""#, #"2.0"#, #""2.00""#, "null"] {
      let reply = server.replyValue(#"{"jsonrpc":"# + bad + #","id":3,"method":"echo"}"#)
      XCTAssertEqual(reply?["id"], 3, bad)
      XCTAssertEqual(reply?["error"]?["code"], -32600, bad)
      XCTAssertEqual(reply?["error"]?["message"], #"Invalid Request: "jsonrpc" must be exactly "2.0""#)
    }
    XCTAssertEqual(server.replyValue(#"{"id":3,"method":"echo"}"#)?["error"]?["code"], -32600, "missing jsonrpc")
    XCTAssertEqual(calls.names, [])
  }

  func testMethodMustBeAString() {
    let (server, _) = makeServer()
    XCTAssertEqual(
      server.reply(#"{"jsonrpc":"2.0","id":4,"method":5}"#),
      #"{"jsonrpc":"2.0","id":4,"error":{"code":-32600,"message":"Invalid Request: \"method\" must be a string, got integer","data":{"kind":"invalidRequest"}}}"#
    )
    XCTAssertEqual(server.replyValue(#"{"jsonrpc":"2.0","id":4}"#)?["error"]?["message"], #"Invalid Request: missing "method""#)
  }

  func testParamsMustBeAnObject() {
    let (server, calls) = makeServer()
    XCTAssertEqual(
      server.reply(#"{"jsonrpc":"2.0","id":5,"method":"echo","params":[1,2]}"#),
      #"{"jsonrpc":"2.0","id":5,"error":{"code":-32602,"message":"Invalid params: params must be an object (ModelStore methods take named parameters)","data":{"kind":"invalidParams","path":"params","expected":"object"}}}"#
    )
    let scalar = server.replyValue(#"{"jsonrpc":"2.0","id":6,"method":"echo","params":"x"}"#)
    XCTAssertEqual(scalar?["error"]?["code"], -32600)
    XCTAssertEqual(calls.names, [])
  }

  /// `"params": null` is absent, as JSON-RPC clients in the wild send it (pygls sends it
  /// for `shutdown` and `exit`); it was refused with -32600 "params must be an object, got null".
  func testNullParamsAreAbsent() {
    let (server, calls) = makeServer()
    XCTAssertEqual(server.reply(#"{"jsonrpc":"2.0","id":6,"method":"echo","params":null}"#), #"{"jsonrpc":"2.0","id":6,"result":{}}"#)
    XCTAssertNil(server.reply(#"{"jsonrpc":"2.0","method":"note","params":null}"#), "a notification gets no reply, not an error")
    XCTAssertEqual(
      server.replyValue(#"{"jsonrpc":"2.0","id":7,"method":"needsName","params":null}"#)?["error"]?["message"],
      "Invalid params: params.name: missing string", "a required param is still missing")
    XCTAssertEqual(calls.names, ["echo", "note:-"])
  }

  func testUnknownTopLevelMember() {
    let (server, calls) = makeServer()
    let reply = server.replyValue(#"{"jsonrpc":"2.0","id":7,"method":"echo","parms":{}}"#)
    XCTAssertEqual(reply?["id"], 7)
    XCTAssertEqual(reply?["error"]?["code"], -32600)
    XCTAssertEqual(reply?["error"]?["message"], #"Invalid Request: unknown member "parms" in a request"#)
    XCTAssertEqual(calls.names, [])
  }

  func testMethodNotFound() {
    let (server, _) = makeServer()
    XCTAssertEqual(
      server.reply(#"{"jsonrpc":"2.0","id":8,"method":"objects.nope"}"#),
      #"{"jsonrpc":"2.0","id":8,"error":{"code":-32601,"message":"Method not found: objects.nope","data":{"kind":"methodNotFound","method":"objects.nope"}}}"#
    )
  }

  func testReadErrorBecomesInvalidParamsWithPath() {
    let (server, _) = makeServer()
    XCTAssertEqual(
      server.reply(#"{"jsonrpc":"2.0","id":9,"method":"needsName","params":{"name":3}}"#),
      #"{"jsonrpc":"2.0","id":9,"error":{"code":-32602,"message":"Invalid params: params.name: expected string, got integer","data":{"kind":"invalidParams","path":"params.name","expected":"string","actual":"integer"}}}"#
    )
    let missing = server.replyValue(#"{"jsonrpc":"2.0","id":10,"method":"needsName","params":{}}"#)
    XCTAssertEqual(missing?["error"]?["code"], -32602)
    XCTAssertEqual(missing?["error"]?["data"]?["path"], "params.name")
    XCTAssertNil(missing?["error"]?["data"]?["actual"])
    let unknown = server.replyValue(#"{"jsonrpc":"2.0","id":11,"method":"needsName","params":{"name":"x","nmae":1}}"#)
    XCTAssertEqual(unknown?["error"]?["data"]?["path"], "params.nmae")
    XCTAssertEqual(unknown?["error"]?["message"], "Invalid params: params.nmae: unknown member 'nmae'")
    let range = server.replyValue(#"{"jsonrpc":"2.0","id":12,"method":"needsName","params":{"name":"x","limit":11}}"#)
    XCTAssertEqual(range?["error"]?["message"], "Invalid params: params.limit: 11 is out of range 0...10")
    XCTAssertEqual(server.reply(#"{"jsonrpc":"2.0","id":13,"method":"needsName","params":{"name":"ok"}}"#), #"{"jsonrpc":"2.0","id":13,"result":"ok"}"#)
  }

  func testApplicationErrorPassesThrough() {
    let (server, _) = makeServer()
    XCTAssertEqual(
      server.reply(#"{"jsonrpc":"2.0","id":14,"method":"appError"}"#),
      #"{"jsonrpc":"2.0","id":14,"error":{"code":-32001,"message":"not found","data":{"kind":"notFound","id":"Task/1"}}}"#)
  }

  func testUnexpectedErrorIsInternalAndHidesDetails() {
    let (server, _) = makeServer()
    XCTAssertEqual(
      server.reply(#"{"jsonrpc":"2.0","id":15,"method":"crash"}"#),
      #"{"jsonrpc":"2.0","id":15,"error":{"code":-32603,"message":"Internal error: crash failed; see the server log","data":{"kind":"internal"}}}"#
    )
  }

  func testParseErrors() {
    let (server, _) = makeServer()
    let reply = server.replyValue(#"{"jsonrpc":"2.0","id":1,"method":"echo""#)
    XCTAssertEqual(reply?["id"], .null)
    XCTAssertEqual(reply?["error"]?["code"], -32700)
    XCTAssertEqual(reply?["error"]?["data"]?["kind"], "parse")
    XCTAssertNotNil(reply?["error"]?["data"]?["line"])
    let dup = server.replyValue(#"{"jsonrpc":"2.0","id":1,"id":2,"method":"echo"}"#)
    XCTAssertEqual(dup?["error"]?["code"], -32700, "duplicate keys are a parse error")
    let utf8 = server.handle([0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D])
    XCTAssertEqual(utf8?["error"]?["code"], -32700)
    XCTAssertEqual(utf8?["error"]?["data"]?["reason"], "invalidUTF8")
    XCTAssertEqual(server.handle([])?["error"]?["code"], -32700)
  }

  /// protocol.md: strings may hold U+0000, object keys may not; such a key is a parse error
  /// with `reason: "nulInKey"`, and nothing runs (a key cut at the NUL would have).
  func testNulInAnObjectKeyIsAParseErrorWithItsReason() {
    let (server, calls) = makeServer()
    let text = #"{"jsonrpc":"2.0","id":1,"method":"echo","params":{"a\u0000b":1}}"#
    XCTAssertEqual(
      server.reply(text),
      #"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: NUL byte in object key not supported near '\"a\\u0000b\"'","data":{"kind":"parse","line":1,"column":60,"position":60,"reason":"nulInKey"}}}"#)
    XCTAssertEqual(calls.names, [])
    XCTAssertEqual(
      server.reply(#"{"jsonrpc":"2.0","id":1,"method":"echo","params":{"a":"x\u0000y"}}"#),
      #"{"jsonrpc":"2.0","id":1,"result":{"a":"x\u0000y"}}"#, "a NUL in a string value is kept and written back escaped")
  }

  func testTooDeep() {
    var options = Server.Options()
    options.maxDepth = 4
    let (server, _) = makeServer(options: options)
    XCTAssertEqual(server.reply(#"{"jsonrpc":"2.0","id":1,"method":"echo","params":{"a":{"b":1}}}"#), #"{"jsonrpc":"2.0","id":1,"result":{"a":{"b":1}}}"#)
    let reply = server.replyValue(#"{"jsonrpc":"2.0","id":1,"method":"echo","params":{"a":{"b":{"c":{"d":1}}}}}"#)
    XCTAssertEqual(reply?["error"]?["code"], -32600)
    XCTAssertEqual(reply?["error"]?["data"], ["kind": "tooDeep", "limit": 4])
  }

  func testNonObjectMessage() {
    let (server, _) = makeServer()
    for text in ["1", #""x""#, "null", "true"] {
      let reply = server.replyValue(text)
      XCTAssertEqual(reply?["error"]?["code"], -32600, text)
      XCTAssertEqual(reply?["id"], .null)
    }
  }

  func testClientResponsesAreIgnored() {
    let (server, _) = makeServer()
    XCTAssertNil(server.reply(#"{"jsonrpc":"2.0","id":1,"result":null}"#))
    XCTAssertNil(server.reply(#"{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"x"}}"#))
  }

  func testCancelRequestIsNotDispatched() {
    let (server, calls) = makeServer()
    XCTAssertNil(server.reply(#"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}"#))
    XCTAssertEqual(
      server.reply(#"{"jsonrpc":"2.0","id":5,"method":"$/cancelRequest","params":{"id":1}}"#), #"{"jsonrpc":"2.0","id":5,"result":null}"#,
      "sent as a request it is answered with null")
    XCTAssertEqual(calls.names, [])
  }

  func testShuttingDownRefusesRequests() {
    let (server, calls) = makeServer()
    server.beginShutdown()
    XCTAssertTrue(server.isShuttingDown)
    let reply = server.replyValue(#"{"jsonrpc":"2.0","id":1,"method":"echo"}"#)
    XCTAssertEqual(reply?["error"]?["code"], -32600)
    XCTAssertEqual(reply?["error"]?["data"]?["kind"], "shuttingDown")
    XCTAssertNil(server.reply(#"{"jsonrpc":"2.0","method":"note"}"#), "notifications still run")
    XCTAssertEqual(calls.names, ["note:-"])
  }
}
