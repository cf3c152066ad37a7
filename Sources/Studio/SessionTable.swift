import JSONCore

/// The studio's live sessions by id, at most `limit` at once. A session leaves the table
/// when it is over (its server closed the store); `closeAll` ends them all and
/// `waitUntilEmpty` waits for that.
///
/// `@unchecked Sendable`: `sessions` and `stopping` are guarded by `lock`.
final class SessionTable: @unchecked Sendable {
  let limit: Int
  private let lock = ConditionLock()
  private var sessions: [String: StudioSession] = [:]
  /// Counted from the reservation of a place, so the limit holds while stores open.
  private var places = 0
  private var stopping = false

  init(limit: Int) { self.limit = limit }

  /// Takes a place for a new session; false when the table is full or stopping.
  func reserve() -> Bool {
    lock.lock()
    defer { lock.unlock() }
    guard !stopping && places < limit else { return false }
    places += 1
    return true
  }

  /// Gives back a place whose session did not start.
  func release() {
    lock.lock()
    places -= 1
    lock.broadcast()
    lock.unlock()
  }

  /// Ids of sessions that ended before they were added.
  private var endedEarly: Set<String> = []

  /// Lists a started session (ended at once when the table is stopping).
  func add(_ session: StudioSession) {
    lock.lock()
    if endedEarly.remove(session.id) != nil {
      places -= 1
      lock.broadcast()
      lock.unlock()
      return
    }
    sessions[session.id] = session
    let stop = stopping
    lock.unlock()
    if stop { session.close() }
  }

  /// The session's place is free again (it ended).
  func remove(_ id: String) {
    lock.lock()
    if sessions.removeValue(forKey: id) != nil { places -= 1 } else { endedEarly.insert(id) }
    lock.broadcast()
    lock.unlock()
  }

  subscript(id: String) -> StudioSession? {
    lock.lock()
    defer { lock.unlock() }
    return sessions[id]
  }

  /// Ends every session, and refuses new ones from now on.
  func closeAll() {
    lock.lock()
    stopping = true
    let all = Array(sessions.values)
    lock.unlock()
    for s in all { s.close() }
  }

  /// Waits until every session has ended (its store closed).
  func waitUntilEmpty() {
    lock.lock()
    while places > 0 { lock.wait() }
    lock.unlock()
  }
}
