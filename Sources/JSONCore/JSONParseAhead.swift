#if canImport(Glibc)
  import Glibc
#endif

/// Parses the elements of a streamed array on a thread of its own, ahead of their reader:
/// jansson's parse is about half the work of a large `context.save`, so on a second core it
/// runs while the first applies the changes already parsed. At most `capacity` elements
/// wait, so memory stays small. Steps are handed over in order, errors included; after
/// the end or a syntax error the thread stops.
///
/// `@unchecked Sendable`: what both threads touch is under `lock`; `taken` is the
/// reader's own and `reader` is used by the parsing thread only.
final class JSONParseAhead: @unchecked Sendable {
  private let reader: JSONElementReader
  private let lock = ConditionLock()
  /// Steps handed over and not yet taken by the reader (under `lock`).
  private var ready: [JSONElementReader.Step] = []
  /// The reader's batch, taken from `ready` all at once (the reader's alone).
  private var taken: [JSONElementReader.Step] = []
  private var takenIndex = 0
  /// The reader went away: the thread stops.
  private var cancelled = false
  /// Only the rest's errors matter now (`finish`): elements are checked, not converted.
  private var checkingOnly = false
  private var producing = true
  /// Steps waiting at most (the thread waits above it); they are handed over in batches
  /// of `batch`, so that the two threads meet once per batch, not once per element.
  static let capacity = 2048
  static let batch = 256

  /// Nil when no thread can be started (the reader then parses on its own thread).
  init?(_ reader: JSONElementReader) {
    self.reader = reader
    guard startDetachedThread({ [self] in self.produce() }) else { return nil }
  }

  /// The next step, waiting for it; nil once everything was taken.
  func take() -> JSONElementReader.Step? {
    if takenIndex < taken.count {
      takenIndex += 1
      return taken[takenIndex - 1]
    }
    lock.lock()
    while ready.isEmpty && producing { lock.wait() }
    taken.removeAll(keepingCapacity: true)
    swap(&taken, &ready)
    takenIndex = 0
    lock.broadcast()
    lock.unlock()
    guard !taken.isEmpty else { return nil }
    takenIndex = 1
    return taken[0]
  }

  /// From now on elements are only checked (the reader wants the rest's first error).
  func checkOnly() {
    lock.lock()
    checkingOnly = true
    lock.unlock()
  }

  /// Stops the thread (the reader is gone); nothing more is taken.
  func cancel() {
    lock.lock()
    cancelled = true
    lock.broadcast()
    lock.unlock()
  }

  private func produce() {
    var convert = true
    var batch: [JSONElementReader.Step] = []
    batch.reserveCapacity(Self.batch)
    var last = false
    while !last {
      let step = reader.step(convert: convert)
      switch step {
      case .end, .syntax: last = true
      case .element, .tooDeep: break
      }
      batch.append(step)
      guard batch.count >= Self.batch || last else { continue }
      lock.lock()
      while ready.count >= Self.capacity && !cancelled { lock.wait() }
      if cancelled { last = true }
      ready.append(contentsOf: batch)
      convert = !checkingOnly
      if last { producing = false }
      lock.broadcast()
      lock.unlock()
      batch.removeAll(keepingCapacity: true)
    }
  }
}
