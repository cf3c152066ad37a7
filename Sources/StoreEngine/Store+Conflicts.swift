import DatabaseKit

#if canImport(Glibc)
  import Glibc
#endif

/// The retry rule (protocol.md, "Busy and retries"): a request outside a client
/// transaction whose transaction the database rolled back to resolve a conflict with
/// another connection (PostgreSQL's serialization failure 40001 or deadlock 40P01, which
/// keep nothing of it) is run again, up to three more times, after about 10, 40 and 160
/// ms (each wait lengthened by up to half at random, so that two servers that met do not
/// meet again in step); then it fails with `busy`, `retried: 3`. A write lock not granted
/// within the lock timeout (55P03) is not run again: the timeout was the waiting. Inside a
/// client transaction nothing is run again: the request fails with `busy` at once, its
/// savepoint rolled back, and the client transaction stays open.
extension Store {
  static let conflictRetryMilliseconds = [10, 40, 160]

  /// Runs `attempt` (one whole transaction) and, when there is a `rerun` (which makes the
  /// attempt's input ready to be read again), again after each conflict as the rule says;
  /// the last conflict fails with `busy` saying how often it was retried.
  func retryingConflicts<T>(_ rerun: (() throws -> Void)?, _ attempt: () throws -> T) throws -> T {
    guard let rerun else { return try attempt() }
    var retried = 0
    while true {
      do {
        return try attempt()
      } catch let e as any DatabaseError where e.isConflict {
        writes.requestLog.removeAll()
        guard retried < Self.conflictRetryMilliseconds.count else {
          var busy = StoreError(sqlite: e)
          busy.details["retried"] = .int(Int64(retried))
          throw busy
        }
        let wait = Self.conflictRetryMilliseconds[retried]
        usleep(UInt32(wait + Int.random(in: 0...(wait / 2))) * 1000)
        try checkCancelled()
        try rerun()
        retried += 1
      }
    }
  }
}
