import HTTPServer
import JSONCore

#if canImport(Glibc)
  import Glibc
#endif

/// A session's Server-Sent Events stream (`GET /events`): first `event: session` naming
/// the session, then each notification of the session's server as one `data:` line (the
/// JSON-RPC notification exactly as `modelstore serve` writes it: no raw newline), a
/// comment every 15 s while nothing happens, and `event: end` when the session is over.
/// While it waits for events it watches the client's socket too: when the page goes away
/// the stream ends at once, and with it the session (its client transaction is rolled
/// back, its write lock released).
///
/// `@unchecked Sendable`: libmicrohttpd calls `read` and `close` on the connection's one
/// thread; `pending` is touched nowhere else.
final class EventStream: HTTPBodyStream, @unchecked Sendable {
  private let session: StudioSession
  private let client: Int32
  private var pending: [UInt8]
  private var offset = 0
  private var endSent = false
  static let keepAliveMilliseconds: Int32 = 15_000
  /// POLLRDHUP (Linux), which Glibc's module leaves out: the peer closed its side.
  static let readHangUp: Int16 = 0x2000

  init(session: StudioSession, client: Int32, readOnly: Bool) {
    self.session = session
    self.client = client
    let hello = JSONWriter.encodeString(.object(["session": .string(session.id), "readOnly": .bool(readOnly)]))
    pending = Array("retry: 1000\nevent: session\ndata: \(hello)\n\n".utf8)
  }

  func read(into buffer: UnsafeMutableRawBufferPointer) -> Int? {
    while offset == pending.count {
      pending = []
      offset = 0
      if endSent { return nil }
      let (events, ended) = session.takeEvents()
      for event in events {
        pending += Array("data: ".utf8)
        pending += event
        pending += [0x0A, 0x0A]
      }
      if ended {
        pending += Array("event: end\ndata: {\"session\":\"\(session.id)\"}\n\n".utf8)
        endSent = true
      } else if events.isEmpty {
        switch waitForEvents() {
        case .events: continue
        case .quiet: pending = Array(": keep-alive\n\n".utf8)
        case .clientLeft: return nil
        }
      }
    }
    let n = min(buffer.count, pending.count - offset)
    pending.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + offset, byteCount: n) }
    offset += n
    return n
  }

  private enum Wait { case events, quiet, clientLeft }

  /// Waits for the session's next events, the client's hang-up or the keep-alive's time.
  private func waitForEvents() -> Wait {
    var fds = (
      pollfd(fd: session.eventsWaiting, events: Int16(POLLIN), revents: 0),
      pollfd(fd: client, events: Self.readHangUp, revents: 0)
    )
    while true {
      let ready = withUnsafeMutablePointer(to: &fds) {
        $0.withMemoryRebound(to: pollfd.self, capacity: 2) { poll($0, 2, Self.keepAliveMilliseconds) }
      }
      if ready < 0 && errno == EINTR { continue }
      if ready <= 0 { return .quiet }
      if fds.1.revents != 0 { return .clientLeft }
      return .events
    }
  }

  func close() { session.close() }
}
