import JSONCore
import XCTest

@testable import RPCCore

final class BatchTests: XCTestCase {
  func testEmptyBatchIsInvalid() {
    let (server, _) = makeServer()
    XCTAssertEqual(
      server.reply("[]"), #"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: empty batch","data":{"kind":"invalidRequest"}}}"#)
  }

  func testBatchOfRequestsAnswersInOrder() {
    let (server, calls) = makeServer()
    let reply = server.reply(
      #"[{"jsonrpc":"2.0","id":1,"method":"echo","params":{"n":1}},{"jsonrpc":"2.0","id":"two","method":"echo","params":{"n":2}}]"#)
    XCTAssertEqual(reply, #"[{"jsonrpc":"2.0","id":1,"result":{"n":1}},{"jsonrpc":"2.0","id":"two","result":{"n":2}}]"#)
    XCTAssertEqual(calls.names, ["echo", "echo"])
  }

  func testAllNotificationBatchGetsNoReply() {
    let (server, calls) = makeServer()
    XCTAssertNil(server.reply(#"[{"jsonrpc":"2.0","method":"note","params":{"n":1}},{"jsonrpc":"2.0","method":"note","params":{"n":2}}]"#))
    XCTAssertEqual(calls.names, ["note:1", "note:2"], "handled in order")
  }

  func testMixedBatchAnswersOnlyRequests() {
    let (server, calls) = makeServer()
    let reply = server.replyValue(
      #"[{"jsonrpc":"2.0","method":"note","params":{"n":1}},{"jsonrpc":"2.0","id":1,"method":"echo"},{"jsonrpc":"2.0","method":"note","params":{"n":2}},{"jsonrpc":"2.0","id":2,"method":"nope"}]"#
    )
    let items = reply?.arrayValue ?? []
    XCTAssertEqual(items.count, 2)
    XCTAssertEqual(items.first?["id"], 1)
    XCTAssertEqual(items.first?["result"], .object([:]))
    XCTAssertEqual(items.last?["id"], 2)
    XCTAssertEqual(items.last?["error"]?["code"], -32601)
    XCTAssertEqual(calls.names, ["note:1", "echo", "note:2"])
  }

  func testInvalidElementsEachGetAnError() {
    let (server, calls) = makeServer()
    let reply = server.replyValue(#"[1, "x", {"jsonrpc":"2.0","id":5,"method":"echo"}, [], {"jsonrpc":"1.0","id":6,"method":"echo"}]"#)
    let items = reply?.arrayValue ?? []
    XCTAssertEqual(items.count, 5)
    XCTAssertEqual(items[0]["error"]?["message"], "Invalid Request: a batch element must be an object, got integer")
    XCTAssertEqual(items[0]["id"], .null)
    XCTAssertEqual(items[1]["error"]?["code"], -32600)
    XCTAssertEqual(items[2]["result"], .object([:]))
    XCTAssertEqual(items[3]["error"]?["message"], "Invalid Request: a batch element must be an object, got array")
    XCTAssertEqual(items[4]["id"], 6)
    XCTAssertEqual(items[4]["error"]?["code"], -32600)
    XCTAssertEqual(calls.names, ["echo"])
  }

  func testBatchOfOnlyInvalidElements() {
    let (server, _) = makeServer()
    XCTAssertEqual(
      server.reply("[1]"),
      #"[{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: a batch element must be an object, got integer","data":{"kind":"invalidRequest"}}}]"#
    )
  }

  func testErrorsInsideABatchDoNotStopIt() {
    let (server, calls) = makeServer()
    let reply = server.replyValue(
      #"[{"jsonrpc":"2.0","id":1,"method":"crash"},{"jsonrpc":"2.0","id":2,"method":"needsName","params":{}},{"jsonrpc":"2.0","id":3,"method":"echo"}]"#)
    let items = reply?.arrayValue ?? []
    XCTAssertEqual(items.map { $0["error"]?["code"] }, [-32603, -32602, nil])
    XCTAssertEqual(calls.names, ["echo"])
  }

  func testResponsesInsideABatchAreIgnored() {
    let (server, _) = makeServer()
    XCTAssertNil(server.reply(#"[{"jsonrpc":"2.0","id":1,"result":1}]"#))
  }
}
