import CLibPQ
import DatabaseKit

/// Commands whose results nothing waits for travel with the next statement. Opening a
/// savepoint and releasing one cannot fail while the transaction is sound, so the
/// connection does not wait for either: they are queued (`sendLater`) and sent ahead of the
/// next statement in one round trip, through libpq's pipeline mode for a prepared statement
/// or in the same simple-query message. A request inside a client transaction (its
/// savepoint, a uniqueness guard's savepoint, a lookup, an insert, the releases) then
/// costs two round trips instead of six. A level opened and closed with no statement in
/// between sends nothing at all. Should a queued command fail after all (the transaction
/// was already aborted), the failure is the next statement's, as the server reports it.
extension PostgresConnection {
  /// Queues `command`, sent ahead of the next statement.
  func sendLater(_ command: String) { deferred.append(command) }

  /// Drops a queued `SAVEPOINT name` that no statement has followed yet: the level it
  /// opened closes with nothing to keep or undo. False when it was sent already.
  func dropUnsentSavepoint(_ name: String) -> Bool {
    guard deferred.last == "SAVEPOINT \(name)" else { return false }
    deferred.removeLast()
    return true
  }

  /// Forgets the queued commands: the transaction they belong to is being rolled back or
  /// is gone.
  func dropDeferred() { deferred = [] }

  /// `exchange` with queued commands: each sent with the extended protocol (no parameters)
  /// in one pipeline with the statement `send` sends, then a sync; the statement's last
  /// result is returned, or the first failure among them all thrown.
  func exchangeInPipeline(sql: String?, interruptible: Bool, _ send: () -> Int32) throws -> OpaquePointer? {
    let commands = deferred
    deferred = []
    guard PQenterPipelineMode(handle) == 1 else { throw failure(nil, sql: sql) }
    defer { _ = PQexitPipelineMode(handle) }
    for command in commands where PQsendQueryParams(handle, command, 0, nil, nil, nil, nil, 0) != 1 {
      throw failure(nil, sql: command)
    }
    // The commands went through the server's unnamed statement.
    server.unnamedOwner = nil
    guard send() == 1, PQpipelineSync(handle) == 1 else { throw failure(nil, sql: sql) }
    if interruptible { setInterruptible(true) }
    defer { if interruptible { setInterruptible(false) } }
    var results = ExchangeResults()
    // Results come command by command, each command's ended by a null; then the sync's.
    var index = 0
    while true {
      guard let r = try nextResult(&results, sql: sql) else {
        index += 1
        continue
      }
      let synced = PQresultStatus(r) == PGRES_PIPELINE_SYNC
      results.keep(r, sql: index < commands.count ? commands[index] : sql, isStatement: index == commands.count)
      if synced { break }
    }
    return try finish(results)
  }
}
