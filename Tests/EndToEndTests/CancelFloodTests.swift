import Foundation
import JSONCore
import TestSupport
import XCTest

/// A flood of `$/cancelRequest`s: the reader thread parses each one (to interrupt a running
/// request) while the dispatcher parses them too. Both once shared one JSON arena, which
/// crashed the server (SIGSEGV) or produced spurious `-32700` replies in half of the runs of
/// a million such lines; the bookkeeping of cancellations was also quadratic in the flood.
/// `make fuzz` sends the full million; this sends 200,000 with requests between them.
final class CancelFloodTests: XCTestCase {
  func testAFloodOfCancellationsGetsNoReplyAndTheRequestsBetweenThemAreAnswered() throws {
    let server = try ServerProcess()
    let cancel = Data(#"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}"#.utf8 + [0x0A])
    let chunkLines = 20_000
    let chunks = 10
    let chunk = Data(repeatElement(cancel, count: chunkLines).joined())
    let writer = Thread {
      for i in 0..<chunks {
        server.sendRaw(chunk)
        server.sendLine(requestLine(.string("r\(i)"), "store.info"))
      }
      server.closeInput()
    }
    writer.start()
    let output = server.readToEnd(timeout: 600)
    XCTAssertEqual(server.waitForExit(timeout: 30), 0, server.stderr)
    let lines = output.split(separator: 0x0A)
    XCTAssertEqual(lines.count, chunks, "exactly one reply per request, none for the notifications")
    for (i, line) in lines.enumerated() {
      let reply = try XCTUnwrap(try JSONParser.parse(Array(line)).objectValue)
      XCTAssertEqual(reply["id"], .string("r\(i)"))
      XCTAssertEqual(reply["result"]?["format"], "modelstore", "\(reply)")
    }
  }
}
