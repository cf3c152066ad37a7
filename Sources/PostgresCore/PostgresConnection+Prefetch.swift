import CLibPQ
import DatabaseKit

/// Reads a write transaction needs answered before it can write, asked in the round trip
/// that opens it, after the store's write lock (`prefetchInWriteTransactions`): the first
/// key of a table (`KeyAllocator`) is then no round trip of its own. An answer serves the
/// transaction's own run of the same statement with the same values, as long as the
/// connection wrote nothing since it was read: with the lock held, no other writer of
/// the store commits meanwhile, so it is the answer that run would get. Any write (held
/// back or sent), a rollback and the transaction's end drop the answers.
extension PostgresConnection {
  /// A read to ask at every write transaction's opening.
  struct Prefetch {
    let sql: String
    let values: [SQLValue]
  }

  /// The answer to a prefetch in the open transaction (its values padded as bound).
  struct Prefetched {
    let sql: String
    let values: [SQLValue]
    let result: OpaquePointer
  }

  /// At most this many reads are asked at each opening (the newest registered).
  static let prefetchLimit = 8

  public func prefetchInWriteTransactions(_ sql: String, _ values: [SQLValue]) {
    guard !isReadOnly, !prefetches.contains(where: { $0.sql == sql && $0.values == values }) else { return }
    if prefetches.count >= Self.prefetchLimit { prefetches.removeFirst() }
    prefetches.append(Prefetch(sql: sql, values: values))
  }

  /// The prefetches as commands of a write transaction's opening: those whose statement
  /// is prepared on the server now (preparing one would cost round trips of its own).
  func prefetchCommands() -> [PendingControl] {
    guard !isReadOnly else { return [] }
    return prefetches.compactMap { p in
      guard let statement = cache[p.sql], statement.isReadOnly, let send = try? statement.sender(p.values) else { return nil }
      let values = statement.padded(p.values)
      return PendingControl(
        kind: .prefetch, statements: [], command: (p.sql, send),
        receive: { [unowned self] result in
          prefetched.append(Prefetched(sql: p.sql, values: values, result: result))
        })
    }
  }

  /// The answer read for `sql` with `bindings` in this transaction's opening, when it is
  /// still valid; the caller owns it.
  func takePrefetched(_ sql: String, _ bindings: [SQLValue]) -> OpaquePointer? {
    guard let i = prefetched.firstIndex(where: { $0.sql == sql && $0.values == bindings }) else { return nil }
    return prefetched.remove(at: i).result
  }

  /// Forgets the answers read (the connection wrote, or the transaction ended).
  func dropPrefetched() {
    guard !prefetched.isEmpty else { return }
    for p in prefetched { PQclear(p.result) }
    prefetched = []
  }
}
