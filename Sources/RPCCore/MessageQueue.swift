#if canImport(Glibc)
  import Glibc
#endif

/// What the reader thread hands to the dispatcher.
enum InboundItem {
  /// A message and its position in the input stream (counting from 0).
  case message([UInt8], seq: Int)
  /// A message longer than the limit was skipped; answered with an error.
  case tooLarge(Int)
  /// A header block that could not be understood (Content-Length framing).
  case badHeader(String)
  case endOfInput
  /// Something watched changed (`wake()`): the dispatcher runs its idle hook now.
  case wake
}

/// A blocking queue between the reader thread and the dispatcher. The reader pushes a
/// whole chunk's worth of messages under one lock; the dispatcher takes everything
/// available at once, so pipelined requests cost one lock round trip per chunk.
///
/// The queue is bounded by bytes: when the client writes faster than requests are
/// handled (a script piping a big file), the reader waits instead of buffering the
/// whole input, so memory stays flat however many requests are pipelined.
final class MessageQueue: @unchecked Sendable {
  private var items: [InboundItem] = []
  private var queuedBytes = 0
  private let maxQueuedBytes: Int
  private var mutex = pthread_mutex_t()
  private var nonEmpty = pthread_cond_t()
  private var hasRoom = pthread_cond_t()
  /// A wake-up is pending (coalesced: many `wake()` calls before a take give one item).
  private var woken = false

  init(maxQueuedBytes: Int = 1 << 20) {
    self.maxQueuedBytes = maxQueuedBytes
    pthread_mutex_init(&mutex, nil)
    pthread_cond_init(&nonEmpty, nil)
    pthread_cond_init(&hasRoom, nil)
  }

  private static func size(_ item: InboundItem) -> Int {
    if case .message(let bytes, _) = item { return bytes.count + 64 }
    return 64
  }

  /// Appends a batch, first waiting while the queue holds more than its bound (a batch
  /// always fits into an empty queue, so one huge message still gets through).
  func push(_ batch: [InboundItem]) {
    guard !batch.isEmpty else { return }
    let bytes = batch.reduce(0) { $0 + Self.size($1) }
    pthread_mutex_lock(&mutex)
    while queuedBytes > 0 && queuedBytes + bytes > maxQueuedBytes { pthread_cond_wait(&hasRoom, &mutex) }
    items.append(contentsOf: batch)
    queuedBytes += bytes
    pthread_cond_signal(&nonEmpty)
    pthread_mutex_unlock(&mutex)
  }

  /// Everything queued, waiting until there is something.
  func takeAll() -> [InboundItem] {
    pthread_mutex_lock(&mutex)
    while items.isEmpty && !woken { pthread_cond_wait(&nonEmpty, &mutex) }
    return drainLocked()
  }

  /// Wakes the dispatcher with a `.wake` item; never waits (callable from any thread).
  func wake() {
    pthread_mutex_lock(&mutex)
    woken = true
    pthread_cond_signal(&nonEmpty)
    pthread_mutex_unlock(&mutex)
  }

  /// Everything queued, waiting at most `milliseconds`; empty when nothing came.
  func takeAll(waitingAtMost milliseconds: Int) -> [InboundItem] {
    pthread_mutex_lock(&mutex)
    if items.isEmpty && !woken {
      var now = timespec()
      clock_gettime(CLOCK_REALTIME, &now)
      var deadline = now
      deadline.tv_sec += milliseconds / 1000
      deadline.tv_nsec += (milliseconds % 1000) * 1_000_000
      if deadline.tv_nsec >= 1_000_000_000 {
        deadline.tv_sec += 1
        deadline.tv_nsec -= 1_000_000_000
      }
      while items.isEmpty && !woken {
        if pthread_cond_timedwait(&nonEmpty, &mutex, &deadline) == ETIMEDOUT { break }
      }
    }
    return drainLocked()
  }

  /// Everything queued right now, without waiting.
  func takeAvailable() -> [InboundItem] {
    pthread_mutex_lock(&mutex)
    return drainLocked()
  }

  /// Takes every item and makes room for the reader; called with the mutex held, releases it.
  private func drainLocked() -> [InboundItem] {
    var out = items
    if woken { out.append(.wake) }
    woken = false
    items = []
    items.reserveCapacity(out.count)
    queuedBytes = 0
    pthread_cond_signal(&hasRoom)
    pthread_mutex_unlock(&mutex)
    return out
  }

  var isEmpty: Bool {
    pthread_mutex_lock(&mutex)
    defer { pthread_mutex_unlock(&mutex) }
    return items.isEmpty
  }
}
