import Foundation
import XCTest

@testable import RPCCore

#if canImport(Glibc)
  import Glibc
#endif

/// A client that writes a lot of input before it reads any output: the writer must read
/// the input while the output is full, on every kind of output it treats specially.
final class OutputWriterTests: XCTestCase {
  private func pipePair() -> (read: Int32, write: Int32) {
    var fds: [Int32] = [0, 0]
    precondition(pipe(&fds) == 0)
    return (fds[0], fds[1])
  }

  private func socketPair() -> (read: Int32, write: Int32) {
    var fds: [Int32] = [0, 0]
    precondition(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
    return (fds[0], fds[1])
  }

  /// The "client" writes 300 KB of input (more than the input pipe holds), and only then
  /// reads the 1 MB of output; the writer must not wait on it meanwhile.
  private func check(output: (read: Int32, write: Int32), reopeningPipes: Bool, file: StaticString = #filePath, line: UInt = #line) {
    let input = pipePair()
    defer { [input.read, input.write, output.read, output.write].forEach { close($0) } }
    let channel = InputChannel(fd: input.read, maxMessageBytes: 1 << 20, onFraming: { _ in }, onCancelCandidate: { _, _ in })
    // Used by the writing thread below only, until `written` is signalled.
    nonisolated(unsafe) let writer = OutputWriter(fd: output.write, reopeningPipes: reopeningPipes)
    let reply = [UInt8](repeating: UInt8(ascii: "x"), count: 1 << 20)
    let line100 = Array(("[" + String(repeating: "1,", count: 48) + "1]\n").utf8)
    final class Box: @unchecked Sendable { var received = 0 }
    let box = Box()
    let clientDone = DispatchSemaphore(value: 0)
    Thread {
      for _ in 0..<3000 { _ = line100.withUnsafeBytes { write(input.write, $0.baseAddress, $0.count) } }
      var buffer = [UInt8](repeating: 0, count: 1 << 16)
      while box.received < reply.count {
        let n = read(output.read, &buffer, buffer.count)
        if n <= 0 { break }
        box.received += n
      }
      clientDone.signal()
    }.start()
    let written = DispatchSemaphore(value: 0)
    final class Result: @unchecked Sendable { var ok = false }
    let result = Result()
    Thread {
      result.ok = reply.withUnsafeBytes { writer.write($0, readingMeanwhile: channel) }
      written.signal()
    }.start()
    XCTAssertEqual(written.wait(timeout: .now() + 30), .success, "the writer waited on a client that waits on it", file: file, line: line)
    XCTAssertEqual(clientDone.wait(timeout: .now() + 30), .success, file: file, line: line)
    XCTAssertTrue(result.ok, file: file, line: line)
    XCTAssertEqual(box.received, reply.count, file: file, line: line)
    var messages = 0
    while channel.take() != nil { messages += 1 }
    XCTAssertGreaterThan(messages, 0, "input was read while the output was full", file: file, line: line)
  }

  func testAPipeThroughItsOwnNonBlockingDescriptor() { check(output: pipePair(), reopeningPipes: true) }

  func testAPipePolledBeforeEachWrite() { check(output: pipePair(), reopeningPipes: false) }

  func testASocket() { check(output: socketPair(), reopeningPipes: true) }
}
