import Foundation
import JSONCore
import TestSupport
import XCTest

/// Messages queued behind the one being handled are parsed on a second thread
/// (RPCCore/ParseAhead.swift). What the server answers must not depend on it: the same
/// messages written all at once (so most are parsed ahead) and written one at a time, each
/// followed by a marker whose reply is awaited (so almost none is), give the same replies
/// in the same order.
final class ParseAheadTests: XCTestCase {
  static let model: JSONValue = schema(
    entity("Task", [attr("title", "string"), attr("rank", "int", default: 0), attr("code", "string", optional: true, unique: true)]))

  /// Every way a parse can end: requests of several methods (with errors of their own),
  /// notifications, batches, a streamed context.save, text that is not JSON, invalid UTF-8,
  /// nesting past the limit, a NUL in a key, a duplicate key, an empty batch.
  private func messages() -> [String] {
    var out = [requestLine(1, "initialize"), requestLine(2, "model.define", ["schema": Self.model])]
    for i in 0..<300 {
      let id = JSONValue.int(Int64(100 + i))
      switch i % 15 {
      case 0:
        out.append(requestLine(id, "objects.insert", ["entity": "Task", "values": ["title": .string("t\(i)"), "rank": .int(Int64(i))]]))
      case 1: out.append(requestLine(id, "objects.insert", ["entity": "Task", "values": ["title": 5]]))
      case 2: out.append(requestLine(id, "query.fetch", ["entity": "Task", "where": "rank > 3", "sort": ["rank"], "limit": 3]))
      case 3: out.append(#"{"jsonrpc":"2.0","id":\#(100 + i),"method":"query.count","params":{"entity":"Task"}"#)  // cut short
      case 4: out.append(#"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":999999}}"#)
      case 5:
        out.append(
          "[" + requestLine(id, "query.count", ["entity": "Task"]) + "," + #"{"jsonrpc":"2.0","method":"$/progress","params":{}}"# + ",7]")
      case 6:
        let changes: [JSONValue] = (0..<40).map {
          .object(["op": "insert", "entity": "Task", "values": ["title": .string("s\(i)-\($0)")]])
        }
        out.append(requestLine(id, "context.save", ["changes": .array(changes)]))
      case 7: out.append(String(repeating: "[", count: 80) + String(repeating: "]", count: 80))
      case 8: out.append(#"{"jsonrpc":"2.0","id":\#(100 + i),"method":"query.count","params":{"entity":"Task","k\u0000":1}}"#)
      case 9: out.append("[]")
      case 10: out.append(#"{"jsonrpc":"2.0","id":\#(100 + i),"method":"nope"}"#)
      case 11: out.append(requestLine(id, "objects.insert", ["entity": "Task", "values": ["title": "dup", "code": "same"]]))
      case 12: out.append(#"{"jsonrpc":"2.0","id":\#(100 + i),"method":"query.count","params":{"entity":"Task","entity":"Task"}}"#)
      case 13: out.append("\u{FF}not utf-8")
      default: out.append(requestLine(id, "objects.get", ["id": "Task/1"]))
      }
    }
    out.append(requestLine(9000, "query.fetch", ["entity": "Task", "sort": ["title"]]))
    return out
  }

  private func lines(_ bytes: [UInt8]) -> [String] {
    String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init)
  }

  func testRepliesDoNotDependOnWhetherMessagesWereParsedAhead() throws {
    let all = messages()
    // All at once: the server finds them queued and parses ahead.
    let burst = try ServerProcess(arguments: ["serve", "--memory", "--log-level", "info"])
    for m in all { burst.sendLine(m) }
    burst.closeInput()
    let pipelined = lines(burst.readToEnd(timeout: 60))
    XCTAssertEqual(burst.waitForExit(), 0)
    // How many went through the other thread depends on scheduling; the comparison below
    // holds whatever it was, and the count is printed to show that it was not nothing.
    let log = burst.stderrAtEnd()
    let used = log.split(separator: "\n").first { $0.contains("parsed ahead") }.flatMap { line in
      line.split(separator: " ").compactMap { Int($0) }.first
    }
    print("parse-ahead: \(used.map(String.init) ?? "no") messages parsed ahead of \(all.count)")

    // One at a time, each followed by a marker whose reply is read before the next.
    let steady = try ServerProcess()
    var oneByOne: [String] = []
    for (k, m) in all.enumerated() {
      steady.sendLine(m)
      steady.sendLine(requestLine(.string("marker-\(k)"), "query.count", ["entity": "Task"]))
      while let line = steady.readLine(timeout: 20) {
        if line.contains("\"marker-\(k)\"") { break }
        oneByOne.append(line)
      }
    }
    steady.closeInput()
    XCTAssertEqual(steady.waitForExit(), 0)

    XCTAssertGreaterThan(pipelined.count, 200)
    XCTAssertEqual(pipelined.count, oneByOne.count)
    for (a, b) in zip(pipelined, oneByOne) {
      XCTAssertEqual(try JSONParser.parse(a), try JSONParser.parse(b))
    }
  }
}
