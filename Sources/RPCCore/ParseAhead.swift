import JSONCore

#if canImport(Glibc)
  import Glibc
#endif

/// Parses the messages queued behind the one being handled, on a second thread, so that
/// while a client pipelines requests jansson's parse of the next ones (about a third of an
/// insert's instructions) runs beside the handling of this one. A message nobody queued
/// behind another (an idle server's request) never comes here: it is read, parsed and
/// handled on one thread.
///
/// Nothing changes in what is answered: parsing has no effect but its result, messages
/// are still handled one at a time in arrival order on the main thread, and a message
/// this thread did not get to (or a streamed one, `skip`) is parsed by the main thread as
/// before. The main thread takes results in order: the message it takes is either parsed,
/// being parsed (it waits for it), or first in line (it takes it back and parses it
/// itself), so it never waits behind a message it has not reached.
///
/// `@unchecked Sendable`: what both threads touch is under `lock`; the rest is the main
/// thread's own, or constant.
final class ParseAhead: @unchecked Sendable {
  enum Outcome {
    case parsed(JSONValue)
    case failed(Error)
    /// Not parsed here (a streamed method's message): the main thread's usual path.
    case skipped
  }

  /// Messages submitted and not yet taken back, at most (parsed trees wait in memory).
  static let limit = 64
  /// New messages are handed over once no more than this many are out, all at once: the
  /// thread then wakes once per batch, not once per message.
  static let refill = 16

  private let maxDepth: Int
  private let skip: ([UInt8]) -> Bool
  private let lock = ConditionLock()
  // Under `lock`:
  private var jobs: [(seq: Int, bytes: [UInt8])] = []
  private var jobHead = 0
  private var current: Int?
  private var done: [Int: Outcome] = [:]
  /// Trees the main thread has handled, released here after the next message parsed
  /// (`retire`).
  private var retired: [JSONValue] = []
  /// The main thread waits for the message being parsed (the only wait it does).
  private var waiting = false
  // The main thread's own:
  /// The tree of the message handled last, handed over with the next `take`.
  private var toRetire: JSONValue?
  private var lastSubmitted = Int.min
  private var outstanding = 0
  /// Outcomes the main thread took from here, for the log at the end.
  private(set) var used = 0

  /// True when a new batch should be handed over (few are out).
  var wantsMore: Bool { outstanding <= Self.refill }

  /// Nil when no thread can be started (everything is then parsed on the main thread).
  init?(maxDepth: Int, skip: @escaping ([UInt8]) -> Bool) {
    self.maxDepth = maxDepth
    self.skip = skip
    guard startDetachedThread({ [self] in self.work() }) else { return nil }
  }

  /// Hands over queued messages (in arrival order) that were not handed over yet, while
  /// fewer than `limit` are out.
  func submit(_ messages: [(seq: Int, bytes: [UInt8])]) {
    var fresh: [(seq: Int, bytes: [UInt8])] = []
    for m in messages where m.seq > lastSubmitted && outstanding < Self.limit {
      fresh.append(m)
      lastSubmitted = m.seq
      outstanding += 1
    }
    guard !fresh.isEmpty else { return }
    lock.lock()
    if jobHead > 0 && jobHead == jobs.count {
      jobs.removeAll(keepingCapacity: true)
      jobHead = 0
    }
    let idle = jobHead >= jobs.count && current == nil
    jobs.append(contentsOf: fresh)
    if idle { lock.broadcast() }
    lock.unlock()
  }

  /// The outcome for message `seq` when it was handed over: parsed (or failed) here,
  /// waited for while it is being parsed; nil when it was not handed over or not started
  /// (then it is taken back, and the caller parses it).
  func take(_ seq: Int) -> Outcome? {
    guard seq <= lastSubmitted else {
      toRetire = nil
      return nil
    }
    lock.lock()
    defer { lock.unlock() }
    if let value = toRetire.take(), current != nil || jobHead < jobs.count { retired.append(value) }
    while current == seq {
      waiting = true
      lock.wait()
      waiting = false
    }
    if let outcome = done.removeValue(forKey: seq) {
      outstanding -= 1
      if case .skipped = outcome {} else { used += 1 }
      return outcome
    }
    // Not started: it is first in line (earlier ones were all taken); take it back.
    if jobHead < jobs.count && jobs[jobHead].seq == seq {
      jobHead += 1
      outstanding -= 1
    }
    return nil
  }

  /// Takes a tree the main thread is done with, to be released on this thread (which
  /// allocated it): freeing a request's tree costs the main thread about as much as
  /// building its reply. It is handed over with the next `take` (which holds the lock
  /// anyway), and only while this thread has work ahead, so a tree never waits for a later
  /// burst; otherwise the main thread releases it there, as usual.
  func retire(_ value: consuming JSONValue) { toRetire = value }

  private func work() {
    var garbage: [JSONValue] = []
    while true {
      lock.lock()
      swap(&garbage, &retired)
      lock.unlock()
      garbage.removeAll(keepingCapacity: true)
      lock.lock()
      while jobHead >= jobs.count { lock.wait() }
      let job = jobs[jobHead]
      jobHead += 1
      current = job.seq
      lock.unlock()
      let outcome: Outcome
      if skip(job.bytes) {
        outcome = .skipped
      } else {
        do { outcome = .parsed(try JSONParser.parse(job.bytes, maxDepth: maxDepth)) } catch { outcome = .failed(error) }
      }
      lock.lock()
      done[job.seq] = outcome
      current = nil
      if waiting { lock.broadcast() }
      lock.unlock()
    }
  }
}
