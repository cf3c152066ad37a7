import Foundation
import JSONCore
import TestSupport
import XCTest

/// Message framing on the wire: LSP `Content-Length:` headers and newline-delimited lines.
final class FramingTests: XCTestCase {
  private func framed(_ body: String, extraHeaders: String = "", headerName: String = "Content-Length") -> Data {
    let bytes = Array(body.utf8)
    return Data("\(headerName): \(bytes.count)\r\n\(extraHeaders)\r\n".utf8) + Data(bytes)
  }

  func testContentLengthFraming() throws {
    let server = try ServerProcess()
    server.sendRaw(framed(requestLine(1, "initialize")))
    let first = try XCTUnwrap(try server.readFramedMessage(), "no framed reply; stderr: \(server.stderr)")
    XCTAssertEqual(first["id"], 1)
    XCTAssertEqual(first["result"]?["serverInfo"]?["name"], "modelstore")

    // Two messages in one write.
    server.sendRaw(framed(requestLine(2, "model.define", ["schema": itemSchema])) + framed(requestLine(3, "store.info")))
    XCTAssertEqual(try server.readFramedMessage()?["id"], 2)
    let info = try XCTUnwrap(try server.readFramedMessage())
    XCTAssertEqual(info["id"], 3)
    XCTAssertEqual(info["result"]?["schemaVersion"], "1.0.0")

    // One message split across writes: inside the header, between header and body, inside the body.
    let whole = framed(requestLine(4, "objects.insert", ["entity": "Item", "values": ["title": "split"]]))
    for range in [0..<7, 7..<20, 20..<(whole.count - 10), (whole.count - 10)..<whole.count] {
      if range.lowerBound > 0 { XCTAssertNil(server.readLine(timeout: 0.1), "a reply came before the message was complete") }
      server.sendRaw(whole.subdata(in: range))
    }
    let inserted = try XCTUnwrap(try server.readFramedMessage())
    XCTAssertEqual(inserted["id"], 4)
    XCTAssertEqual(inserted["result"]?["title"], "split")

    // Header names are case-insensitive; other headers are allowed; notifications get no reply.
    server.sendRaw(
      framed(notificationLine("$/setTrace", ["value": "off"]), headerName: "content-length")
        + framed(
          requestLine("five", "query.count", ["entity": "Item"]),
          extraHeaders: "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n"))
    let counted = try XCTUnwrap(try server.readFramedMessage())
    XCTAssertEqual(counted["id"], "five")
    XCTAssertEqual(counted["result"]?["count"], 1)

    // A broken header block is reported (id null) and the stream recovers.
    server.sendRaw(Data("Content-Length: twelve\r\n\r\n".utf8) + framed(requestLine(6, "store.check")))
    let bad = try XCTUnwrap(try server.readFramedMessage()?.objectValue)
    XCTAssertEqual(bad["id"], .null)
    XCTAssertEqual(bad.errorCode, -32700)
    XCTAssertEqual(bad["error"]?["data"]?["framing"], "headers")
    let check = try XCTUnwrap(try server.readFramedMessage())
    XCTAssertEqual(check["id"], 6)
    XCTAssertEqual(check["result"]?["ok"], true)

    // Invalid JSON in a well-framed body.
    server.sendRaw(framed("{\"jsonrpc\": \"2.0\", \"id\": 7,") + framed(requestLine(8, "store.info")))
    let parse = try XCTUnwrap(try server.readFramedMessage()?.objectValue)
    XCTAssertEqual(parse.errorCode, -32700)
    XCTAssertEqual(try server.readFramedMessage()?["id"], 8)

    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0)
  }

  /// The framing is decided from the first bytes even when they arrive one at a time.
  func testHeaderFramingDecidedFromAPartialFirstWrite() throws {
    let server = try ServerProcess()
    let whole = framed(requestLine(1, "store.info"))
    server.sendRaw(whole.subdata(in: 0..<4))  // "Cont"
    XCTAssertNil(server.readLine(timeout: 0.1))
    server.sendRaw(whole.subdata(in: 4..<whole.count))
    let reply = try XCTUnwrap(try server.readFramedMessage(), "no reply; stderr: \(server.stderr)")
    XCTAssertEqual(reply["id"], 1)
    XCTAssertEqual(reply["result"]?["format"], "modelstore")
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0)
  }

  /// protocol.md: blanks before the first `Content-Length:` are skipped. A space or a tab
  /// there used to make the first block "without Content-Length" and lose the message.
  func testBlanksBeforeTheFirstHeaderAreSkipped() throws {
    for prefix in [" ", "\t", "\r\n", "\n\n", " \r\n\t "] {
      let server = try ServerProcess()
      server.sendRaw(Data(prefix.utf8) + framed(requestLine(1, "store.info")) + Data("\r\n ".utf8) + framed(requestLine(2, "store.check")))
      let info = try XCTUnwrap(try server.readFramedMessage(), "no reply; stderr: \(server.stderr)")
      XCTAssertEqual(info["id"], 1, "prefix \(Array(prefix.utf8)): \(info)")
      XCTAssertEqual(info["result"]?["format"], "modelstore")
      XCTAssertEqual(try server.readFramedMessage()?["id"], 2, "blanks between messages are skipped too")
      server.closeInput()
      XCTAssertEqual(server.waitForExit(), 0)
    }
  }

  /// A malformed header block costs that message only: input is skipped up to the next
  /// `Content-Length:` (it used to read the body as headers, and so every later message,
  /// `exit` included).
  func testHeaderFramingRecoversAfterAMalformedBlock() throws {
    let server = try ServerProcess()
    server.sendRaw(framed(requestLine(1, "store.info")))
    XCTAssertEqual(try server.readFramedMessage()?["id"], 1)
    for badHeaders in ["Content-Length: 4x\r\n\r\n", "Content-Length: 52\r\nnot a header\r\n\r\n", "Content-Type: text/plain\r\n\r\n"] {
      server.sendRaw(Data(badHeaders.utf8) + Data(requestLine(2, "store.info").utf8) + framed(requestLine(3, "store.check")))
      let bad = try XCTUnwrap(try server.readFramedMessage()?.objectValue, badHeaders)
      XCTAssertEqual(bad["id"], .null)
      XCTAssertEqual(bad.errorCode, -32700)
      XCTAssertEqual(bad["error"]?["data"]?["framing"], "headers")
      let check = try XCTUnwrap(try server.readFramedMessage(), "no reply after \(badHeaders); stderr: \(server.stderr)")
      XCTAssertEqual(check["id"], 3, "the skipped body gets no reply of its own")
    }
    server.sendRaw(framed(requestLine(4, "shutdown")) + framed(notificationLine("exit")))
    XCTAssertEqual(try server.readFramedMessage()?["id"], 4)
    XCTAssertEqual(server.waitForExit(), 0, "exit after shutdown is read and obeyed")
  }

  /// A session whose first header block is malformed (or starts with a header other than
  /// `Content-Length`, as LSP allows) is still a header session. It was taken for line
  /// framing, where every later message, `exit` included, was a parse error.
  func testAMalformedFirstHeaderBlockStillMeansHeaderFraming() throws {
    for first in ["Content-Lenght: 44\r\n\r\n", "Content-Type: application/vscode-jsonrpc\r\nContent-Length: x\r\n\r\n"] {
      let server = try ServerProcess()
      server.sendRaw(Data(first.utf8) + Data(requestLine(1, "store.info").utf8) + framed(requestLine(2, "store.check")))
      let bad = try XCTUnwrap(try server.readFramedMessage()?.objectValue, "no framed reply; stderr: \(server.stderr)")
      XCTAssertEqual(bad["id"], .null, first)
      XCTAssertEqual(bad["error"]?["data"]?["framing"], "headers", first)
      XCTAssertEqual(try server.readFramedMessage()?["result"]?["ok"], true, first)
      server.sendRaw(
        framed(requestLine(3, "shutdown"), extraHeaders: "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n")
          + framed(notificationLine("exit")))
      XCTAssertEqual(try server.readFramedMessage()?["id"], 3, first)
      XCTAssertEqual(server.waitForExit(), 0, "exit after shutdown is read and obeyed")
    }
  }

  /// The body skipped after a bad block holds `Content-Length:` in a string: skipping
  /// goes on past it, so the next message is answered (it was taken into a second bad
  /// block and lost).
  func testContentLengthInsideASkippedBodyDoesNotCostTheNextMessage() throws {
    let server = try ServerProcess()
    server.sendRaw(framed(requestLine(1, "store.info")))
    XCTAssertEqual(try server.readFramedMessage()?["id"], 1)
    let body = requestLine(2, "objects.insert", ["entity": "Item", "values": ["title": "Content-Length: 12"]])
    server.sendRaw(Data("Content-Length: 1 2\r\n\r\n".utf8) + Data(body.utf8) + framed(requestLine(3, "store.check")))
    XCTAssertEqual(try server.readFramedMessage()?["error"]?["code"], -32700)
    let check = try XCTUnwrap(try server.readFramedMessage(), "no reply; stderr: \(server.stderr)")
    XCTAssertEqual(check["id"], 3)
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0)
  }

  func testHeaderFramingTooLargeBodyIsSkipped() throws {
    let server = try ServerProcess(arguments: ["serve", "--memory", "--max-message-bytes", "1000"])
    let big = requestLine(1, "store.info", ["padding": .string(String(repeating: "p", count: 5000))])
    server.sendRaw(framed(big) + framed(requestLine(2, "store.info")))
    let tooLarge = try XCTUnwrap(try server.readFramedMessage()?.objectValue)
    XCTAssertEqual(tooLarge.errorCode, -32600)
    XCTAssertEqual(tooLarge.errorKind, "messageTooLarge")
    let next = try XCTUnwrap(try server.readFramedMessage())
    XCTAssertEqual(next["id"], 2)
    XCTAssertNotNil(next["result"])
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0)
  }

  func testLineFramingWithCRLFAndBlankLines() throws {
    let server = try ServerProcess()
    // Blank and whitespace-only lines, before the first message too, are skipped.
    let text =
      "\r\n\n  \t \r\n" + requestLine(1, "initialize") + "\r\n" + "\r\n" + requestLine(2, "store.info") + "\r\n   \n\t\n"
      + requestLine(3, "store.check") + "\n" + requestLine(4, "store.info") + "\r\n"
    server.sendRaw(Data(text.utf8))
    for id in 1...4 {
      let reply = try XCTUnwrap(try server.readReply(), "no reply \(id); stderr: \(server.stderr)")
      XCTAssertEqual(reply["id"], .int(Int64(id)))
      XCTAssertNotNil(reply["result"], "\(reply)")
    }
    // Nothing else was answered: the next reply is for the next request.
    XCTAssertEqual(try server.request("store.info")["result"]?["format"], "modelstore")

    // A line split across writes (mid-token and right before the newline).
    let line = Data((requestLine(10, "store.info") + "\r\n").utf8)
    server.sendRaw(line.subdata(in: 0..<9))
    XCTAssertNil(server.readLine(timeout: 0.1))
    server.sendRaw(line.subdata(in: 9..<(line.count - 2)))
    XCTAssertNil(server.readLine(timeout: 0.1))
    server.sendRaw(line.subdata(in: (line.count - 2)..<line.count))
    XCTAssertEqual(try server.readReply()?["id"], 10)

    // Replies in line mode are single lines of JSON.
    server.sendRaw(Data((requestLine(11, "model.validate", ["schema": itemSchema]) + "\n").utf8))
    let raw = try XCTUnwrap(server.readLine())
    XCTAssertFalse(raw.contains("\r"))
    XCTAssertEqual(try JSONParser.parse(raw)["id"], 11)

    // The last line may lack its newline: end of input completes it.
    server.sendRaw(Data(requestLine(12, "store.info").utf8))
    server.closeInput()
    XCTAssertEqual(try server.readReply()?["id"], 12)
    XCTAssertEqual(server.waitForExit(), 0)
  }
}
