import Foundation
import JSONCore
import TestSupport
import XCTest

/// A large `context.save` through the process: its changes are read from the message text
/// one at a time (and parsed ahead on another thread), in either framing.
final class LargeSaveProcessTests: XCTestCase {
  static let count = 20_000

  static func changes(_ n: Int) -> JSONValue {
    .array(
      (0..<n).map { i in
        .object([
          "op": "insert", "entity": "Item", "ref": .string("$i\(i)"), "values": ["title": .string("item \(i)"), "n": .int(Int64(i))],
        ])
      })
  }

  func testALargeSaveWithARefOnEveryInsert() throws {
    let server = try ServerProcess()
    _ = try server.call("model.define", ["schema": itemSchema])
    let reply = try server.call("context.save", ["changes": Self.changes(Self.count)], timeout: 120)
    let ids = try XCTUnwrap(reply["ids"]?.objectValue)
    XCTAssertEqual(ids.count, Self.count)
    XCTAssertEqual(ids.members.first?.key, "$i0")
    XCTAssertEqual(ids["$i19999"], "Item/20000")
    XCTAssertEqual(reply["inserted"]?.arrayValue?.count, Self.count)
    XCTAssertEqual(reply["inserted"]?.arrayValue?.last, "Item/20000")
    XCTAssertEqual(try server.call("query.count", ["entity": "Item"])["count"], .int(Int64(Self.count)))
    XCTAssertEqual(try server.call("objects.get", ["id": "Item/12345"])["n"], 12344)
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0)
  }

  /// A message cut short, or broken near its end, is a parse error at the place a whole
  /// parse names, and keeps nothing; so is one whose last change breaks a constraint.
  func testABrokenLargeSaveKeepsNothing() throws {
    let server = try ServerProcess()
    _ = try server.call("model.define", ["schema": itemSchema])
    let text = Array(requestLine(1, "context.save", ["changes": Self.changes(Self.count)]).utf8)
    // The last change's `{` doubled: `{{"op":...`.
    let lastChange = try XCTUnwrap(
      text.indices.last { text[$0] == UInt8(ascii: "{") && text[$0 + 1] == UInt8(ascii: "\"") && text[$0 + 2] == UInt8(ascii: "o") })
    let broken = Array(text[..<lastChange]) + [UInt8(ascii: "{")] + Array(text[lastChange...])
    for bytes in [Array(text[..<(text.count - 1000)]), broken] {
      server.sendRaw(Data(bytes + [0x0A]))
      let reply = try XCTUnwrap(try server.readReply(timeout: 120), server.stderr)
      let expected = try XCTUnwrap(wholeParseError(bytes))
      XCTAssertEqual(reply["id"], .null)
      XCTAssertEqual(reply.errorCode, -32700)
      XCTAssertEqual(reply["error"]?["data"]?["position"], .int(Int64(expected.position)))
      XCTAssertEqual(reply["error"]?["data"]?["column"], .int(Int64(expected.column)))
      XCTAssertEqual(reply["error"]?["message"], .string("Parse error: \(expected.message)"))
    }
    var values = Self.changes(Self.count).arrayValue!
    values[Self.count - 1] = ["op": "insert", "entity": "Item", "ref": "$i0", "values": ["title": "again"]]
    let refused = try server.callFailing("context.save", ["changes": .array(values)], timeout: 120)
    XCTAssertEqual(refused["data"]?["index"], .int(Int64(Self.count - 1)), "\(refused)")
    XCTAssertEqual(try server.call("query.count", ["entity": "Item"])["count"], 0)
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0)
  }

  /// Header framing: the message may span lines; errors name them as a whole parse does.
  func testHeaderFramingWithLinesInTheMessage() throws {
    let server = try ServerProcess()
    func send(_ text: String) {
      server.sendRaw(Data("Content-Length: \(text.utf8.count)\r\n\r\n\(text)".utf8))
    }
    send(requestLine(1, "model.define", ["schema": itemSchema]))
    XCTAssertNotNil(try server.readFramedMessage()?["result"])
    let items = (0..<3000).map { #"  {"op": "insert", "entity": "Item",\#n   "values": {"title": "é \#($0)"}}"# }
    let good =
      "{\"jsonrpc\": \"2.0\", \"id\": 2, \"method\": \"context.save\",\n \"params\": {\"changes\": [\n"
      + items.joined(separator: ",\n") + "\n]}}"
    send(good)
    XCTAssertEqual(try server.readFramedMessage(timeout: 60)?["result"]?["inserted"]?.arrayValue?.count, 3000)
    var bad = items
    bad[2500] = #"  {"op": "insert", "entity": "Item",\#n   "values": {"title": "é" "x"}}"#
    let badText =
      "{\"jsonrpc\": \"2.0\", \"id\": 3, \"method\": \"context.save\",\n \"params\": {\"changes\": [\n"
      + bad.joined(separator: ",\n") + "\n]}}"
    send(badText)
    let reply = try XCTUnwrap(try server.readFramedMessage(timeout: 60))
    let expected = try XCTUnwrap(wholeParseError(Array(badText.utf8)))
    XCTAssertEqual(reply["error"]?["data"]?["line"], .int(Int64(expected.line)))
    XCTAssertEqual(reply["error"]?["data"]?["column"], .int(Int64(expected.column)))
    XCTAssertEqual(reply["error"]?["data"]?["position"], .int(Int64(expected.position)))
    send(requestLine(4, "query.count", ["entity": "Item"]))
    XCTAssertEqual(try server.readFramedMessage()?["result"]?["count"], 3000)
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0)
  }

  private func wholeParseError(_ bytes: [UInt8]) -> JSONParseError? {
    do {
      _ = try JSONParser.parse(bytes)
      return nil
    } catch {
      return error as? JSONParseError
    }
  }
}
