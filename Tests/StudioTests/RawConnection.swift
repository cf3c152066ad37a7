import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A TCP connection to 127.0.0.1 that sends bytes exactly as given: the one place the
/// studio's tests write requests by hand, for what is hostile on purpose (no HTTP client
/// sends a broken request line, a header of 200 KB or an escaped NUL in a path).
final class RawConnection {
  let fd: Int32
  private(set) var received: [UInt8] = []
  /// The peer closed its side (or the connection failed).
  private(set) var ended = false

  init(port: Int) throws {
    fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw RawConnectionError.failed("socket: errno \(errno)") }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = in_addr_t(UInt32(0x7F00_0001).bigEndian)
    let rc = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard rc == 0 else {
      close(fd)
      throw RawConnectionError.failed("connect to 127.0.0.1:\(port): errno \(errno)")
    }
  }

  deinit { close(fd) }

  /// Writes every byte; false when the peer closed first (it may refuse before reading all).
  @discardableResult
  func send(_ bytes: [UInt8]) -> Bool {
    var sent = 0
    while sent < bytes.count {
      let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL)) }
      if n < 0 && errno == EINTR { continue }
      guard n > 0 else { return false }
      sent += n
    }
    return true
  }

  func send(_ text: String) { send(Array(text.utf8)) }

  /// Reads what has arrived, waiting at most `milliseconds` for the first byte; false
  /// when nothing came in that time.
  @discardableResult
  func readAvailable(waiting milliseconds: Int32) -> Bool {
    var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    guard poll(&ready, 1, milliseconds) > 0 else { return false }
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    let n = recv(fd, &chunk, chunk.count, 0)
    if n > 0 { received += chunk[0..<n] } else { ended = true }
    return true
  }

  /// Reads until the peer closes (or `until` holds of what arrived), at most `timeout`
  /// seconds: a guard against a hang, never what decides the outcome.
  func read(timeout: TimeInterval = 60, until done: ([UInt8]) -> Bool = { _ in false }) -> [UInt8] {
    let deadline = Date().addingTimeInterval(timeout)
    while !ended && !done(received) && Date() < deadline { readAvailable(waiting: 1000) }
    return received
  }

  /// The status of the response received (`HTTP/1.1 NNN ...`), nil when none arrived.
  var status: Int? { Self.status(of: received) }

  static func status(of bytes: [UInt8]) -> Int? {
    let line = String(decoding: bytes.prefix(32), as: UTF8.self)
    guard line.hasPrefix("HTTP/1."), line.count >= 12 else { return nil }
    return Int(line.dropFirst(9).prefix(3))
  }

  /// One whole exchange: connects, sends `request`, reads until the server closes.
  static func exchange(port: Int, _ request: [UInt8]) throws -> [UInt8] {
    let c = try RawConnection(port: port)
    c.send(request)
    return c.read()
  }
}

enum RawConnectionError: Error {
  case failed(String)
}
