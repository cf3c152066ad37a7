import Foundation
import JSONCore
import TestSupport
import XCTest

/// Size and depth limits, malformed bytes, batches: the process answers and survives.
final class BadInputTests: XCTestCase {
  func testOneMegabyteLineIsHandled() throws {
    let server = try ServerProcess()
    _ = try server.call("model.define", ["schema": itemSchema])
    let title = String(repeating: "0123456789abcdef", count: 65_536)  // 1 MiB
    let line = requestLine(1, "objects.insert", ["entity": "Item", "values": ["title": .string(title)]])
    XCTAssertGreaterThan(line.utf8.count, 1 << 20)
    server.sendLine(line)
    let inserted = try XCTUnwrap(try server.readReply(timeout: 30), server.stderr)
    let id = try XCTUnwrap(inserted["result"]?["_id"], "\(inserted["error"] ?? .null)")
    let fetched = try server.call("objects.get", ["id": id], timeout: 30)
    XCTAssertEqual(fetched["title"]?.stringValue?.utf8.count, title.utf8.count)
    XCTAssertEqual(fetched["title"]?.stringValue, title)
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0)
  }

  func testMessageLargerThanTheLimitIsRefusedAndTheNextOneWorks() throws {
    let server = try ServerProcess(arguments: ["serve", "--memory", "--max-message-bytes", "1000"])
    server.sendLine(requestLine(1, "store.info", ["padding": .string(String(repeating: "x", count: 1500))]))
    let refused = try XCTUnwrap(try server.readReply(), server.stderr)
    XCTAssertEqual(refused["id"], .null)
    XCTAssertEqual(refused.errorCode, -32600)
    XCTAssertEqual(refused.errorKind, "messageTooLarge")
    XCTAssertEqual(refused["error"]?["data"]?["limit"], 1000)
    XCTAssertEqual(try server.request("store.info")["result"]?["format"], "modelstore")
    // Far over the limit, arriving in many writes, then a good request in the same write.
    let huge = Data(requestLine(2, "store.info", ["padding": .string(String(repeating: "y", count: 300_000))]).utf8)
    var offset = 0
    while offset < huge.count {
      let end = min(offset + 65_536, huge.count)
      server.sendRaw(huge.subdata(in: offset..<end))
      offset = end
    }
    server.sendRaw(Data(("\n" + requestLine(3, "store.check") + "\n").utf8))
    XCTAssertEqual(try server.readReply()?.errorKind, "messageTooLarge")
    XCTAssertEqual(try server.readReply()?["id"], 3)
    // Exactly at the limit is fine.
    let prefix = requestLine(4, "store.info", ["padding": ""])
    let atLimit = requestLine(4, "store.info", ["padding": .string(String(repeating: "z", count: 1000 - prefix.utf8.count))])
    XCTAssertEqual(atLimit.utf8.count, 1000)
    server.sendLine(atLimit)
    let reply = try XCTUnwrap(try server.readReply())
    XCTAssertEqual(reply["id"], 4)
    XCTAssertEqual(reply.errorKind, "invalidParams", "a 1000-byte message must reach the method (which rejects 'padding')")
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0)
  }

  func testDeepNestingIsAnErrorNotACrash() throws {
    let server = try ServerProcess()
    let cases = [
      String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000),
      String(repeating: "{\"a\":", count: 10_000) + "1" + String(repeating: "}", count: 10_000),
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"store.info\",\"params\":{\"x\":" + String(repeating: "[", count: 10_000)
        + String(repeating: "]", count: 10_000) + "}}",
      String(repeating: "[", count: 100_000),  // unterminated
    ]
    for text in cases {
      server.sendLine(text)
      let reply = try XCTUnwrap(try server.readReply(), "no reply to deep nesting; stderr: \(server.stderr)")
      XCTAssertEqual(reply["id"], .null)
      XCTAssertNil(reply["result"])
      XCTAssertTrue([-32600, -32700].contains(reply.errorCode ?? 0), "\(reply)")
    }
    // Within --max-depth (64) is fine; one level more is refused. The root object is
    // depth 0 and params depth 1, so n arrays inside params reach depth 1 + n.
    func nested(_ n: Int, id: Int) -> String {
      #"{"jsonrpc":"2.0","id":\#(id),"method":"store.info","params":{"x":"# + String(repeating: "[", count: n)
        + String(repeating: "]", count: n) + "}}"
    }
    server.sendLine(nested(62, id: 10))
    let deepest = try XCTUnwrap(try server.readReply())
    XCTAssertEqual(deepest["id"], 10)
    XCTAssertEqual(deepest.errorKind, "invalidParams", "62 levels are within the limit: \(deepest)")
    server.sendLine(nested(63, id: 11))
    let tooDeep = try XCTUnwrap(try server.readReply())
    XCTAssertEqual(tooDeep.errorCode, -32600)
    XCTAssertEqual(tooDeep.errorKind, "tooDeep")
    XCTAssertEqual(try server.call("store.check")["ok"], true)
    XCTAssertTrue(server.process.isRunning)
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0)
  }

  func testInvalidUTF8InAStringIsAParseError() throws {
    let server = try ServerProcess()
    let prefix = Data(#"{"jsonrpc":"2.0","id":1,"method":"store.info","params":{"x":""#.utf8)
    for bad: [UInt8] in [[0xFF, 0xFE], [0xC0, 0xAF], [0xE2, 0x82], [0xED, 0xA0, 0x80], [0x61, 0x80, 0x62]] {
      server.sendRaw(prefix + Data(bad) + Data("\"}}\n".utf8))
      let reply = try XCTUnwrap(try server.readReply(), "no reply for bytes \(bad)")
      XCTAssertEqual(reply["id"], .null)
      XCTAssertEqual(reply.errorCode, -32700, "bytes \(bad): \(reply)")
      XCTAssertEqual(reply["error"]?["data"]?["reason"], "invalidUTF8", "bytes \(bad): \(reply)")
    }
    // Valid multi-byte UTF-8 round-trips.
    _ = try server.call("model.define", ["schema": itemSchema])
    let text = "héllo wörld – 日本 🎉"
    let o = try server.call("objects.insert", ["entity": "Item", "values": ["title": .string(text)]])
    XCTAssertEqual(o["title"]?.stringValue, text)
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0)
  }

  func testGarbageAroundGoodRequests() throws {
    let server = try ServerProcess()
    // Trailing garbage on the same line makes the whole line unparseable.
    server.sendLine(requestLine(1, "store.info") + "garbage")
    let sameLine = try XCTUnwrap(try server.readReply())
    XCTAssertEqual(sameLine["id"], .null)
    XCTAssertEqual(sameLine.errorCode, -32700)
    // Two JSON texts on one line are also one bad message.
    server.sendLine(requestLine(2, "store.info") + requestLine(3, "store.info"))
    XCTAssertEqual(try server.readReply()?.errorCode, -32700)
    // A good request followed by garbage lines: the good one is answered, then each bad line.
    server.sendRaw(Data((requestLine(4, "store.info") + "\ngarbage\n}{\n\u{1}\u{2}\u{3}\n").utf8))
    XCTAssertEqual(try server.readReply()?["id"], 4)
    for _ in 0..<3 { XCTAssertEqual(try server.readReply()?.errorCode, -32700) }
    // Shapes that parse but are not requests.
    let invalid: [(String, Int64)] = [
      ("42", -32600), ("\"text\"", -32600), ("null", -32600), ("[]", -32600),
      (#"{"jsonrpc":"1.0","id":5,"method":"store.info"}"#, -32600), (#"{"jsonrpc":"2.0","id":6}"#, -32600),
      (#"{"jsonrpc":"2.0","id":7,"method":42}"#, -32600), (#"{"jsonrpc":"2.0","id":{"a":1},"method":"store.info"}"#, -32600),
      (#"{"jsonrpc":"2.0","id":8,"method":"no.such"}"#, -32601), (#"{"jsonrpc":"2.0","id":9,"method":"store.info","params":[1]}"#, -32602),
      (#"{"jsonrpc":"2.0","id":10,"method":"store.info","params":{"a":1,"a":2}}"#, -32700),
    ]
    for (line, code) in invalid {
      server.sendLine(line)
      let reply = try XCTUnwrap(try server.readReply(), line)
      XCTAssertEqual(reply.errorCode, code, "\(line) -> \(reply)")
    }
    XCTAssertEqual(try server.call("store.check")["ok"], true)
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0)
  }

  /// JSON-RPC 2.0: a request (it has an id) always gets a response, whatever its method,
  /// including the `$/` methods that are normally sent as notifications.
  func testEveryRequestWithAnIdIsAnswered() throws {
    let server = try ServerProcess()
    for (i, method) in ["$/cancelRequest", "$/setTrace", "$/progress", "initialize"].enumerated() {
      let id: JSONValue = .string("req-\(i)")
      server.sendLine(requestLine(id, method, method == "$/cancelRequest" ? ["id": 12345] : [:]))
      server.sendLine(requestLine(.string("sentinel-\(i)"), "store.info"))
      let first = try XCTUnwrap(try server.readReply(), "no reply at all after \(method)")
      XCTAssertEqual(first["id"], id, "the request \(method) (id \(id)) got no reply; the next reply is \(first)")
      if first["id"] == id {
        XCTAssertTrue((first["result"] != nil) != (first["error"] != nil), "\(first)")
        XCTAssertEqual(try server.readReply()?["id"], .string("sentinel-\(i)"))
      }
    }
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0)
  }

  func testBatchOfAThousandRequests() throws {
    let server = try ServerProcess()
    _ = try server.call("model.define", ["schema": itemSchema])
    var items: [JSONValue] = []
    for i in 0..<1000 {
      let params: JSONObject =
        i % 2 == 0 ? ["entity": "Item", "values": ["title": .string("batch \(i)"), "n": .int(Int64(i))]] : ["entity": "Item"]
      items.append([
        "jsonrpc": "2.0", "id": .string("b\(i)"), "method": i % 2 == 0 ? "objects.insert" : "query.count", "params": .object(params),
      ])
    }
    // Notifications inside a batch get no entry in the reply.
    items.insert(["jsonrpc": "2.0", "method": "$/setTrace", "params": ["value": "off"]], at: 500)
    server.sendLine(JSONWriter.encodeString(.array(items)))
    let reply = try XCTUnwrap(try server.readMessage(timeout: 60), server.stderr)
    let replies = try XCTUnwrap(reply.arrayValue, "a batch is answered with an array")
    XCTAssertEqual(replies.count, 1000)
    for (i, r) in replies.enumerated() {
      XCTAssertEqual(r["id"], .string("b\(i)"))
      XCTAssertNotNil(r["result"], "\(r)")
      if i % 2 == 1 { XCTAssertEqual(r["result"]?["count"]?.intValue, Int64(i / 2 + 1)) }
    }
    XCTAssertEqual(try server.call("query.count", ["entity": "Item"])["count"], 500)
    // A batch with bad members answers each member.
    server.sendLine(#"[1, {"jsonrpc":"2.0","id":"x","method":"store.info"}, {"jsonrpc":"2.0","method":"$/setTrace","params":{}}]"#)
    let mixed = try XCTUnwrap(try server.readMessage()?.arrayValue)
    XCTAssertEqual(mixed.count, 2)
    XCTAssertEqual(mixed.first?["error"]?["code"], -32600)
    XCTAssertEqual(mixed.last?["id"], "x")
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0)
  }
}
