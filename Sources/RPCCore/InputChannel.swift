#if canImport(Glibc)
  import Glibc
#endif

/// What the input holds for the server, in order.
enum InboundItem {
  /// A message and its position in the input stream (counting from 0).
  case message([UInt8], seq: Int)
  /// A message longer than the limit was skipped; answered with an error.
  case tooLarge(Int)
  /// A header block that could not be understood (Content-Length framing).
  case badHeader(String)
  case endOfInput
  /// Something watched changed (`wake()`): the server runs its idle hook now.
  case wake
}

/// The server's input: the bytes of its input descriptor split into messages
/// (`FrameReader`) and queued in order, plus a wake-up other threads may raise.
///
/// Only the server's thread reads the input, so a request is read, handled and answered
/// without a hand-off between threads. Idle, that thread waits here (`wait`) in `poll()` for
/// input or a wake-up. While a request runs, the request's own checks for cancellation
/// call `readAheadIfDue()`, which reads whatever has arrived without waiting (at most once
/// a millisecond), so a `$/cancelRequest` is framed, and seen, while the request
/// runs. The framer's state, the queue and every callback therefore belong to that one
/// thread; `wake()` alone is called from others (it only writes to a pipe).
///
/// The queue is bounded by bytes: reading ahead stops while it holds `maxQueuedBytes`, so
/// memory stays flat however many requests a client pipelines.
///
/// `@unchecked Sendable`: other threads call `wake()` only, which writes to a pipe.
final class InputChannel: @unchecked Sendable {
  let fd: Int32
  private let framer: FrameReader
  private let maxQueuedBytes: Int
  private var items: [InboundItem] = []
  private var head = 0
  private var queuedBytes = 0
  /// The input ended (EOF or a read error): `.endOfInput` is queued and nothing more is read.
  private(set) var ended = false
  /// A pipe, both ends non-blocking: `wake()` writes a byte to it from any thread, `wait`
  /// reads (and so resets) it.
  private let wakePipe: (read: Int32, write: Int32)
  private let buffer: UnsafeMutableRawBufferPointer
  /// When the input was last looked at (CLOCK_MONOTONIC nanoseconds), for `readAheadIfDue`.
  private var lastLook: UInt64 = 0
  /// Guards against a read from inside a read (a callback of the framer reaching a check).
  private var reading = false
  static let chunkSize = 1 << 16
  /// How often a running request looks at its input (1 ms by default): a cancel is seen
  /// within about this long, and a `clock_gettime` is all a check costs in between.
  private let readAheadNanoseconds: UInt64

  init(
    fd: Int32, maxMessageBytes: Int, maxQueuedBytes: Int = 1 << 20, readAheadNanoseconds: UInt64 = 1_000_000,
    onFraming: @escaping (Framing) -> Void, onCancelCandidate: @escaping ([UInt8], Int) -> Void
  ) {
    self.fd = fd
    self.maxQueuedBytes = maxQueuedBytes
    self.readAheadNanoseconds = readAheadNanoseconds
    framer = FrameReader(maxMessageBytes: maxMessageBytes, onFraming: onFraming, onCancelCandidate: onCancelCandidate)
    var p: [Int32] = [0, 0]
    precondition(pipe(&p) == 0, "cannot create the server's wake-up pipe")
    for end in p {
      _ = fcntl(end, F_SETFD, FD_CLOEXEC)
      _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
    }
    wakePipe = (p[0], p[1])
    buffer = .allocate(byteCount: Self.chunkSize, alignment: 1)
  }

  deinit {
    close(wakePipe.read)
    close(wakePipe.write)
    buffer.deallocate()
  }

  // MARK: - The queue

  var hasQueued: Bool { head < items.count }

  /// True while more input may be read: it has not ended and the queue has room.
  var canReadAhead: Bool { !ended && queuedBytes < maxQueuedBytes }

  /// The first `limit` queued messages (not taken), in arrival order.
  func queuedMessages(_ limit: Int) -> [(seq: Int, bytes: [UInt8])] {
    var out: [(seq: Int, bytes: [UInt8])] = []
    var i = head
    while i < items.count && out.count < limit {
      if case .message(let bytes, let seq) = items[i] { out.append((seq, bytes)) }
      i += 1
    }
    return out
  }

  /// The next queued item, nil when none is. `.endOfInput` stays queued once reached, so
  /// every later call sees it too.
  func take() -> InboundItem? {
    guard head < items.count else { return nil }
    let item = items[head]
    if case .endOfInput = item { return item }
    head += 1
    queuedBytes -= Self.size(item)
    if head == items.count {
      items.removeAll(keepingCapacity: items.count <= 4096)
      head = 0
    }
    return item
  }

  private static func size(_ item: InboundItem) -> Int {
    if case .message(let bytes, _) = item { return bytes.count + 64 }
    return 64
  }

  private func append(_ batch: [InboundItem]) {
    guard !batch.isEmpty else { return }
    if head > 4096 && head * 2 > items.count {
      items.removeFirst(head)
      head = 0
    }
    for item in batch { queuedBytes += Self.size(item) }
    items.append(contentsOf: batch)
  }

  // MARK: - Reading

  /// Waits until an item is queued or `timeoutMilliseconds` passed (negative: no limit);
  /// true when an item is queued. Input that completes no message yet is read and kept.
  /// Without a limit the wait is a plain blocking read, and wake-ups are not waited for:
  /// they only matter to an idle hook, which always waits with a limit.
  func wait(timeoutMilliseconds: Int) -> Bool {
    if timeoutMilliseconds < 0 {
      while !hasQueued {
        // Nothing read and no end: a signal, or input someone made non-blocking.
        if readOnce() == 0 && !ended { waitUntilReadable() }
      }
      lastLook = Self.now()
      return true
    }
    let deadline = Self.now() + UInt64(timeoutMilliseconds) * 1_000_000
    while !hasQueued {
      let now = Self.now()
      if now >= deadline { return false }
      let remaining = Int32(clamping: (deadline - now + 999_999) / 1_000_000)
      // A negative descriptor is ignored by poll(): after the end only wake-ups count.
      var fds = (
        pollfd(fd: ended ? -1 : fd, events: Int16(POLLIN), revents: 0), pollfd(fd: wakePipe.read, events: Int16(POLLIN), revents: 0)
      )
      let n = withUnsafeMutablePointer(to: &fds) { $0.withMemoryRebound(to: pollfd.self, capacity: 2) { poll($0, 2, remaining) } }
      if n < 0 {
        if errno == EINTR { continue }
        // The descriptors are ours and valid, so this does not happen; do not spin on it.
        readOnce()
        continue
      }
      lastLook = Self.now()
      if fds.0.revents != 0 { readOnce() }
      if fds.1.revents != 0 {
        var bytes: (UInt64, UInt64) = (0, 0)
        while read(wakePipe.read, &bytes, 16) == 16 {}
        append([.wake])
      }
    }
    return true
  }

  /// Reads what has arrived, without waiting, if the input was last looked at more than
  /// `readAheadNanoseconds` ago; called from a running request's cancellation checks.
  func readAheadIfDue() {
    guard canReadAhead, !reading else { return }
    let now = Self.now()
    guard now &- lastLook >= readAheadNanoseconds else { return }
    lastLook = now
    while canReadAhead && readable() {
      if readOnce() < Self.chunkSize { break }
    }
  }

  private func waitUntilReadable() {
    var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    _ = poll(&p, 1, -1)
  }

  /// Whether a read would find input (or the end) right now.
  func readable() -> Bool {
    var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    while true {
      let n = poll(&p, 1, 0)
      if n >= 0 { return n > 0 }
      if errno != EINTR { return true }  // let read() report the failure
    }
  }

  /// One read of up to `chunkSize` bytes, framed into the queue; the end of the input
  /// (or a read error) queues what is left and `.endOfInput`. Returns the bytes read.
  @discardableResult
  func readOnce() -> Int {
    guard !ended, !reading else { return 0 }
    reading = true
    defer { reading = false }
    let n = read(fd, buffer.baseAddress!, buffer.count)
    var batch: [InboundItem] = []
    if n > 0 {
      framer.consume(UnsafeRawBufferPointer(rebasing: buffer[0..<n]), &batch)
    } else if n < 0 && (errno == EINTR || errno == EAGAIN) {
      return 0
    } else {
      ended = true
      framer.finish(&batch)
      batch.append(.endOfInput)
    }
    append(batch)
    return max(n, 0)
  }

  // MARK: - Wake-ups

  /// Queues one `.wake` (coalesced until `wait` sees it), from any thread; never waits (a
  /// full pipe already holds a wake-up).
  func wake() {
    var one: UInt8 = 1
    _ = write(wakePipe.write, &one, 1)
  }

  static func now() -> UInt64 {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return UInt64(t.tv_sec) &* 1_000_000_000 &+ UInt64(t.tv_nsec)
  }
}
