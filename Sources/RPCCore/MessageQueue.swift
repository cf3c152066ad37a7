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
}

/// A blocking queue between the reader thread and the dispatcher. The reader pushes a
/// whole chunk's worth of messages under one lock; the dispatcher takes everything
/// available at once, so pipelined requests cost one lock round trip per chunk.
final class MessageQueue: @unchecked Sendable {
  private var items: [InboundItem] = []
  private var mutex = pthread_mutex_t()
  private var cond = pthread_cond_t()

  init() {
    pthread_mutex_init(&mutex, nil)
    pthread_cond_init(&cond, nil)
  }

  func push(_ batch: [InboundItem]) {
    guard !batch.isEmpty else { return }
    pthread_mutex_lock(&mutex)
    items.append(contentsOf: batch)
    pthread_cond_signal(&cond)
    pthread_mutex_unlock(&mutex)
  }

  /// Everything queued, waiting until there is something.
  func takeAll() -> [InboundItem] {
    pthread_mutex_lock(&mutex)
    while items.isEmpty { pthread_cond_wait(&cond, &mutex) }
    let out = items
    items = []
    items.reserveCapacity(out.count)
    pthread_mutex_unlock(&mutex)
    return out
  }

  /// Everything queued right now, without waiting.
  func takeAvailable() -> [InboundItem] {
    pthread_mutex_lock(&mutex)
    let out = items
    items = []
    pthread_mutex_unlock(&mutex)
    return out
  }

  var isEmpty: Bool {
    pthread_mutex_lock(&mutex)
    defer { pthread_mutex_unlock(&mutex) }
    return items.isEmpty
  }
}
