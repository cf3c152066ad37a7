import Handlers
import JSONCore
import RPCCore
import StoreEngine

#if canImport(Glibc)
  import Glibc
#endif

/// One page's JSON-RPC session: the same `Server` and `Session` as `modelstore serve`, on
/// a thread of their own over their own connection to the store, talking header-framed
/// JSON-RPC through one end of a socket pair; this class holds the other end. So
/// everything the protocol does (live queries following other processes' commits, client
/// transactions, cancellation, streamed saves, limits) works here as on stdin/stdout, and
/// a page sees only its own session's transaction.
///
/// A request (`call`) is written followed by a sentinel request (`initialized` with an id
/// of the session's own, answered `null`): messages are handled in order, so every reply
/// before the sentinel's belongs to the request, and a request that gets no reply (a
/// notification) is known to be done too. One request is in flight at a time. What the
/// server writes that is no reply (`query/changed`, `$/progress`, `window/logMessage`) is
/// queued for the page's event stream (`takeEvents`). The server's own requests (client
/// hooks of `migration.apply`, sent only to a session that announced them) are answered
/// with an error: the page has no way to answer them.
///
/// `@unchecked Sendable`: every mutable member is guarded by `lock`, except the socket,
/// written under `writing`, and read only by the reader thread.
final class StudioSession: @unchecked Sendable {
  let id: String
  private let fd: Int32
  /// Readable when events were queued or the session ended (`eventsWaiting`): the event
  /// stream polls it beside its client's socket. Both ends non-blocking.
  private let wake: (read: Int32, write: Int32)
  private let lock = ConditionLock()
  private let writing = ConditionLock()
  /// The most bytes of events kept for a page that does not read its stream; past it the
  /// session ends (the page reconnects and reads afresh).
  static let maxQueuedEventBytes = 32 << 20

  // Guarded by `lock`.
  private var inFlight = false
  private var sentinel = ""
  private var sentinelCount = 0
  private var sentinelSeen = false
  private var replies: [[UInt8]] = []
  private var events: [[UInt8]] = []
  private var eventBytes = 0
  private var ended = false
  private var closing = false

  private init(id: String, fd: Int32, wake: (Int32, Int32)) {
    self.id = id
    self.fd = fd
    self.wake = wake
  }

  deinit {
    Glibc.close(wake.read)
    Glibc.close(wake.write)
  }

  /// Opens the store (on the session's thread, with `open`) and starts serving it; throws
  /// what opening threw. `onEnd` runs once, on the reader thread, when the session is
  /// over: its server has closed the store and ended.
  static func start(
    id: String, open: @escaping @Sendable () throws -> Store, policy: MethodPolicy, options: Server.Options, logLevel: Logger.Level,
    onEnd: @escaping @Sendable () -> Void
  ) throws -> StudioSession {
    var pair: [Int32] = [0, 0]
    guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
      throw StoreError(.storage, "cannot create the session's socket pair (errno \(errno))")
    }
    var wake: [Int32] = [0, 0]
    guard pipe(&wake) == 0 else {
      Glibc.close(pair[0])
      Glibc.close(pair[1])
      throw StoreError(.storage, "cannot create the session's wake-up pipe (errno \(errno))")
    }
    for end in wake {
      _ = fcntl(end, F_SETFD, FD_CLOEXEC)
      _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
    }
    let session = StudioSession(id: id, fd: pair[0], wake: (wake[0], wake[1]))
    let serverFD = pair[1]
    let opened = OpenOutcome()
    let started = startDetachedThread {
      let server = Server(input: serverFD, output: serverFD, options: options, log: Logger(level: logLevel))
      let store: Store
      do {
        store = try open()
      } catch {
        opened.report(.failure(error))
        Glibc.close(serverFD)
        return
      }
      opened.report(.success(()))
      let rpc = Session(server: server, store: store)
      server.onFinish = { rpc.closeStore() }
      server.register(rpc.methods(policy: policy))
      _ = server.run()
      // The reader sees the end of output once the store is closed.
      Glibc.close(serverFD)
    }
    guard started else {
      Glibc.close(pair[0])
      Glibc.close(serverFD)
      throw StoreError(.storage, "cannot start the session's thread")
    }
    if case .failure(let error) = opened.wait() {
      Glibc.close(pair[0])
      throw error
    }
    guard startDetachedThread({ session.readOutput(onEnd: onEnd) }) else {
      session.close()
      throw StoreError(.storage, "cannot start the session's reader thread")
    }
    return session
  }

  // MARK: - Requests

  enum Outcome {
    /// The reply to the message (an object, or a batch's array).
    case reply([UInt8])
    /// The message was handled and gets no reply (notifications only).
    case noReply
    /// The session ended before it answered.
    case ended
  }

  /// Hands one JSON-RPC message (a request, a notification or a batch) to the session and
  /// waits until it is handled.
  func call(_ message: [UInt8]) -> Outcome {
    lock.lock()
    while inFlight && !ended { lock.wait() }
    if ended {
      lock.unlock()
      return .ended
    }
    inFlight = true
    sentinelCount += 1
    sentinel = "studio-\(id)-\(sentinelCount)"
    sentinelSeen = false
    replies = []
    let marker = Array(#"{"jsonrpc":"2.0","id":"\#(sentinel)","method":"initialized"}"#.utf8)
    lock.unlock()
    defer {
      lock.lock()
      inFlight = false
      replies = []
      lock.broadcast()
      lock.unlock()
    }
    guard write([message, marker]) else { return .ended }
    lock.lock()
    defer { lock.unlock() }
    while !sentinelSeen && !ended { lock.wait() }
    guard sentinelSeen else { return .ended }
    return replies.first.map { .reply($0) } ?? .noReply
  }

  /// Hands a notification to the session at once, beside a request in flight: how a
  /// `$/cancelRequest` reaches the request it cancels. False when the session ended.
  func notify(_ message: [UInt8]) -> Bool { write([message]) }

  /// Writes messages with header framing, together.
  private func write(_ messages: [[UInt8]]) -> Bool {
    var bytes: [UInt8] = []
    for m in messages {
      bytes += Array("Content-Length: \(m.count)\r\n\r\n".utf8)
      bytes += m
    }
    writing.lock()
    defer { writing.unlock() }
    guard !isClosing else { return false }
    return bytes.withUnsafeBytes { FileDescriptor.writeAll(fd, $0) }
  }

  private var isClosing: Bool {
    lock.lock()
    defer { lock.unlock() }
    return closing
  }

  /// Ends the session: its server reads the end of its input, answers what it was sent,
  /// closes the store (rolling back an open client transaction) and ends.
  func close() {
    writing.lock()
    defer { writing.unlock() }
    lock.lock()
    let first = !closing
    closing = true
    lock.unlock()
    if first { shutdown(fd, Int32(SHUT_WR)) }
  }

  // MARK: - Events

  /// The descriptor that becomes readable when events are queued or the session ends.
  var eventsWaiting: Int32 { wake.read }

  /// The events queued since the last call (each a JSON-RPC notification), without
  /// waiting; `ended` once the session is over and every event was taken.
  func takeEvents() -> (events: [[UInt8]], ended: Bool) {
    var drain = [UInt8](repeating: 0, count: 64)
    while read(wake.read, &drain, drain.count) > 0 {}
    lock.lock()
    defer { lock.unlock() }
    defer {
      events = []
      eventBytes = 0
    }
    return (events, ended && events.isEmpty)
  }

  /// Makes `eventsWaiting` readable (called with `lock` held).
  private func signalEvents() {
    var byte: UInt8 = 1
    _ = Glibc.write(wake.write, &byte, 1)
  }

  // MARK: - The server's output

  /// Reads the server's messages until it ends, sorting each (`take`); then closes the
  /// socket and reports the end.
  private func readOutput(onEnd: @Sendable () -> Void) {
    var reader = FramedReader()
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
      if n < 0 && errno == EINTR { continue }
      guard n > 0 else { break }
      reader.append(chunk[0..<n])
      while let message = reader.next() { take(message) }
    }
    writing.lock()
    Glibc.close(fd)
    lock.lock()
    closing = true
    ended = true
    lock.broadcast()
    signalEvents()
    lock.unlock()
    writing.unlock()
    onEnd()
  }

  /// Sorts one message of the server: a reply, the sentinel's reply, a notification for
  /// the event stream, or a request of the server's own.
  private func take(_ message: [UInt8]) {
    let isObject = message.first == UInt8(ascii: "{")
    let method = isObject ? JSONParser.rootString(message, "method") : nil
    let hasID = isObject && message.withUnsafeBytes { JSONParser.hasRootMember($0, "id") }
    if method != nil && hasID { return refuse(message) }
    lock.lock()
    defer { lock.unlock() }
    if method != nil {
      events.append(message)
      eventBytes += message.count
      signalEvents()
      if eventBytes > Self.maxQueuedEventBytes && !closing {
        closing = true
        shutdown(fd, Int32(SHUT_WR))
      }
    } else if isObject && inFlight && JSONParser.rootString(message, "id") == sentinel {
      sentinelSeen = true
      lock.broadcast()
    } else if inFlight {
      replies.append(message)
    }
  }

  /// Answers a request of the server (a client hook) with an error, from a thread of its
  /// own: the reader never waits on the socket's write side.
  private func refuse(_ request: [UInt8]) {
    guard let id = (try? JSONParser.parse(request))?["id"] else { return }
    let answer = JSONWriter.encodeString(
      .object([
        "jsonrpc": "2.0", "id": id,
        "error": .object([
          "code": -32601, "message": "the studio's page does not answer the server's requests",
          "data": .object(["kind": "methodNotFound"]),
        ]),
      ]))
    _ = startDetachedThread { [self] in _ = write([Array(answer.utf8)]) }
  }
}

/// What opening the store on the session's thread gave, handed to the thread that waits.
private final class OpenOutcome: @unchecked Sendable {
  // Guarded by `lock`.
  private let lock = ConditionLock()
  private var outcome: Result<Void, Error>?

  func report(_ r: Result<Void, Error>) {
    lock.lock()
    outcome = r
    lock.broadcast()
    lock.unlock()
  }

  func wait() -> Result<Void, Error> {
    lock.lock()
    defer { lock.unlock() }
    while outcome == nil { lock.wait() }
    return outcome!
  }
}

/// Splits the server's output into messages: `Content-Length: N\r\n\r\n` then N bytes,
/// the only framing a header session writes.
struct FramedReader {
  private var buffer: [UInt8] = []
  private var start = 0

  mutating func append(_ bytes: ArraySlice<UInt8>) {
    if start > 0 && start * 2 > buffer.count {
      buffer.removeFirst(start)
      start = 0
    }
    buffer.append(contentsOf: bytes)
  }

  mutating func next() -> [UInt8]? {
    let separator = Array("\r\n\r\n".utf8)
    var i = start
    while i + 4 <= buffer.count && !buffer[i..<(i + 4)].elementsEqual(separator) { i += 1 }
    guard i + 4 <= buffer.count else { return nil }
    let header = String(decoding: buffer[start..<i], as: UTF8.self)
    let prefix = "Content-Length: "
    guard header.hasPrefix(prefix), let length = Int(header.dropFirst(prefix.count)) else {
      preconditionFailure("the session's server wrote a header block other than Content-Length: '\(header)'")
    }
    let bodyStart = i + 4
    guard bodyStart + length <= buffer.count else { return nil }
    start = bodyStart + length
    return Array(buffer[bodyStart..<start])
  }
}
