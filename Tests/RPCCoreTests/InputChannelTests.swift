import Foundation
import XCTest

@testable import RPCCore

#if canImport(Glibc)
  import Glibc
#endif

/// The server's input over real pipes: framing, the end of input, wake-ups, reading ahead
/// without waiting, and the bound on what is read ahead.
final class InputChannelTests: XCTestCase {
  private final class Pipe: Sendable {
    let read: Int32
    let write: Int32
    init() {
      var fds: [Int32] = [0, 0]
      precondition(Glibc.pipe(&fds) == 0)
      (read, write) = (fds[0], fds[1])
    }
    func send(_ text: String) { _ = Array(text.utf8).withUnsafeBytes { Glibc.write(write, $0.baseAddress, $0.count) } }
    func closeWrite() { close(write) }
    deinit {
      close(read)
      close(write)
    }
  }

  private func channel(_ fd: Int32, max: Int = 1 << 20, queued: Int = 1 << 20, cancels: ((String) -> Void)? = nil) -> InputChannel {
    // Reading ahead is always due here (the server reads ahead at most once a millisecond).
    InputChannel(
      fd: fd, maxMessageBytes: max, maxQueuedBytes: queued, readAheadNanoseconds: 0, onFraming: { _ in },
      onCancelCandidate: { bytes, _ in cancels?(String(decoding: bytes, as: UTF8.self)) })
  }

  /// Everything up to and including `.endOfInput`.
  private func drain(_ c: InputChannel) -> [String] {
    var items: [InboundItem] = []
    while true {
      if let item = c.take() {
        items.append(item)
        if case .endOfInput = item { return describe(items) }
      } else {
        XCTAssertTrue(c.wait(timeoutMilliseconds: 10_000), "no input within 10 s")
      }
    }
  }

  private func runOverPipe(_ text: String, max: Int = 1 << 20) -> [String] {
    let p = Pipe()
    p.send(text)
    p.closeWrite()
    return drain(channel(p.read, max: max))
  }

  func testPipeLinesWithUnterminatedLastLine() {
    XCTAssertEqual(runOverPipe("{\"a\":1}\n{\"b\":2}"), ["message:{\"a\":1}", "message:{\"b\":2}", "end"])
  }

  func testPipeOversizeLastLine() {
    XCTAssertEqual(runOverPipe("[1]\n[1,2,3,4,5,6]", max: 5), ["message:[1]", "tooLarge:13", "end"])
  }

  func testPipeEmptyInput() {
    XCTAssertEqual(runOverPipe(""), ["end"])
  }

  func testPipeHeadersEndingInsideAHeaderBlock() {
    let out = runOverPipe("Content-Length: 2\r\n\r\n{}Content-Length: 5\r\n")
    XCTAssertEqual(out.count, 3)
    XCTAssertEqual(out.first, "message:{}")
    XCTAssertTrue(out[1].hasPrefix("badHeader:input ended inside a header block"), out[1])
    XCTAssertEqual(out.last, "end")
  }

  func testPipeHeadersEndingInsideABody() {
    // The body was announced as 10 bytes but only 4 arrived: that is not silently dropped.
    let out = runOverPipe("Content-Length: 10\r\n\r\n{\"a\"")
    XCTAssertEqual(out.count, 2, "\(out)")
    XCTAssertEqual(out.first, "badHeader:input ended 6 bytes short of the announced Content-Length 10")
    XCTAssertEqual(out.last, "end")
  }

  /// The end of input stays queued once reached: every later take sees it (so the main
  /// loop sees it after `callClient` did).
  func testTheEndStaysQueued() {
    let p = Pipe()
    p.send("[1]\n")
    p.closeWrite()
    let c = channel(p.read)
    XCTAssertEqual(drain(c), ["message:[1]", "end"])
    XCTAssertEqual(describe([c.take(), c.take()].compactMap { $0 }), ["end", "end"])
    XCTAssertFalse(c.canReadAhead)
  }

  func testAWakeIsCoalescedAndComesAfterMessagesReadWithIt() {
    let p = Pipe()
    let c = channel(p.read)
    p.send("{}\n")
    c.wake()
    c.wake()
    XCTAssertTrue(c.wait(timeoutMilliseconds: 10_000))
    XCTAssertEqual(describe([c.take(), c.take(), c.take()].compactMap { $0 }), ["message:{}", "wake"])
    XCTAssertFalse(c.wait(timeoutMilliseconds: 0), "two wake-ups before a wait are one")
  }

  /// Waiting without a limit is a blocking read; input someone made non-blocking (EAGAIN)
  /// is waited for in poll() instead of spinning.
  func testWaitingWithoutALimitOnNonBlockingInput() {
    let p = Pipe()
    _ = fcntl(p.read, F_SETFL, fcntl(p.read, F_GETFL) | O_NONBLOCK)
    let c = channel(p.read)
    let writer = Thread { p.send("[1]\n") }
    writer.start()
    XCTAssertTrue(c.wait(timeoutMilliseconds: -1))
    XCTAssertEqual(describe([c.take()].compactMap { $0 }), ["message:[1]"])
  }

  func testAPartialMessageIsKeptUntilItsEnd() {
    let p = Pipe()
    let c = channel(p.read)
    p.send("{\"a\":")
    XCTAssertFalse(c.wait(timeoutMilliseconds: 20), "half a line is not a message")
    p.send("1}\n")
    XCTAssertTrue(c.wait(timeoutMilliseconds: 10_000))
    XCTAssertEqual(describe([c.take()].compactMap { $0 }), ["message:{\"a\":1}"])
  }

  /// A running request reads ahead without waiting: nothing there returns at once; what
  /// has arrived is queued, and a cancellation among it is reported as it is read.
  func testReadingAheadNeverWaits() {
    let p = Pipe()
    var cancels: [String] = []
    let c = channel(p.read, cancels: { cancels.append($0) })
    c.readAheadIfDue()
    XCTAssertFalse(c.hasQueued)
    p.send(#"{"id":1}"# + "\n" + #"{"method":"$/cancelRequest","params":{"id":1}}"# + "\n")
    c.readAheadIfDue()
    XCTAssertEqual(cancels, [#"{"method":"$/cancelRequest","params":{"id":1}}"#])
    XCTAssertEqual(
      describe([c.take(), c.take()].compactMap { $0 }), [#"message:{"id":1}"#, #"message:{"method":"$/cancelRequest","params":{"id":1}}"#])
  }

  /// Reading ahead stops while the queue holds its bound, and resumes as it is taken.
  func testReadingAheadStopsAtTheBound() {
    let p = Pipe()
    let c = channel(p.read, queued: 256)
    let line = "[" + String(repeating: "1,", count: 100) + "1]\n"
    p.send(line + line)
    XCTAssertTrue(c.canReadAhead)
    XCTAssertTrue(c.wait(timeoutMilliseconds: 10_000))
    XCTAssertFalse(c.canReadAhead, "two messages of 204 bytes fill a queue of 256")
    _ = c.take()
    XCTAssertFalse(c.canReadAhead)
    _ = c.take()
    XCTAssertTrue(c.canReadAhead)
  }
}
