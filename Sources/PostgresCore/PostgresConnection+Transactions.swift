import CLibPQ
import DatabaseKit

/// Transactions, savepoints and read snapshots. Every level is a savepoint: the outermost
/// level opens the transaction, takes the store's write lock (a transaction-level advisory
/// lock on `writeLockKey`, which serializes the writers of one store as SQLite's file
/// lock does) and sets savepoint `ms_sp0`; level `d` inside it is savepoint `ms_sp(d-1)`.
/// Inner levels are opened and released without waiting (`sendLater`): the commands go
/// with the next statement.
extension PostgresConnection {
  /// True when no transaction is open (also when the connection is lost: the server
  /// has rolled back whatever was open).
  public var isAutocommit: Bool {
    let status = PQtransactionStatus(handle)
    return status == PQTRANS_IDLE || status == PQTRANS_UNKNOWN
  }

  /// Opens a level: at the outermost, the transaction and the store's write lock (waiting
  /// up to `lock_timeout`, then failing as busy; a read-only connection takes no lock).
  /// Inside a transaction the server has ended (the connection was lost), it fails and
  /// forgets every level (`transactionWasLost`): no statement may run outside it.
  public func begin() throws {
    let depth = transactionDepth
    guard depth == 0 else {
      do {
        if isAutocommit { throw transactionEnded() }
        try beforeStatement()
        sendLater("SAVEPOINT ms_sp\(depth)")
      } catch {
        if isAutocommit { forgetLostTransaction() }
        throw error
      }
      transactionDepth += 1
      return
    }
    try beforeStatement()
    let lock = isReadOnly ? "" : "; SELECT pg_advisory_xact_lock(\(writeLockKey))"
    do {
      // Waiting for the lock only reads: a cancel may stop it.
      try simple("BEGIN\(lock); SAVEPOINT ms_sp0", interruptible: true)
    } catch {
      dropDeferred()
      if !isAutocommit { _ = try? simple("ROLLBACK") }
      transactionFailed = false
      throw error
    }
    transactionDepth = 1
  }

  /// The server ended the open transaction: every level is gone.
  private func forgetLostTransaction() {
    dropDeferred()
    epoch &+= 1
    transactionDepth = 0
    undoneLevels = []
    transactionFailed = false
    transactionWasLost = true
    didEndTransaction?()
  }

  /// Closes the innermost level, keeping its changes; the outermost runs `willCommit`
  /// first. Refused (the level stays open, for the caller to roll back) when a failed
  /// statement undid part of the level's work.
  public func commit() throws {
    precondition(transactionDepth > 0, "commit without begin")
    let depth = transactionDepth
    if isAutocommit { throw transactionEnded() }
    if transactionFailed || undoneLevels.contains(depth) {
      throw PostgresError(
        sqlState: "25P02",
        message: "a statement of this transaction failed, and PostgreSQL undid the work of the level it ran in: it cannot be committed")
    }
    if depth == 1 {
      try willCommit?()
      try beforeStatement()
      let status = try simple(commitPrelude.map { $0 + "; COMMIT" } ?? "COMMIT")
      // COMMIT of a transaction PostgreSQL had aborted answers ROLLBACK.
      guard status == "COMMIT" else {
        throw PostgresError(sqlState: "40000", message: "the transaction was rolled back by PostgreSQL instead of committed")
      }
    } else if !dropUnsentSavepoint("ms_sp\(depth - 1)") {
      sendLater("RELEASE SAVEPOINT ms_sp\(depth - 1)")
    }
    transactionDepth -= 1
    undoneLevels.remove(depth)
    if transactionDepth == 0 {
      epoch &+= 1
      didEndTransaction?()
    }
  }

  /// Closes the innermost level, undoing its changes.
  public func rollback() {
    precondition(transactionDepth > 0, "rollback without begin")
    epoch &+= 1
    undoneLevels.remove(transactionDepth)
    transactionDepth -= 1
    if isAutocommit {
      // PostgreSQL ended the whole transaction itself (a failed COMMIT, a lost connection).
      dropDeferred()
      if transactionDepth > 0 { transactionWasLost = true }
      transactionDepth = 0
      undoneLevels = []
      transactionFailed = false
      didEndTransaction?()
    } else if transactionDepth == 0 {
      dropDeferred()
      _ = try? simple("ROLLBACK")
      undoneLevels = []
      transactionFailed = false
      didEndTransaction?()
    } else if transactionFailed || !dropUnsentSavepoint("ms_sp\(transactionDepth)") {
      // Rolling back to a savepoint also ends the aborted state a failed statement left.
      _ = try? simple("ROLLBACK TO SAVEPOINT ms_sp\(transactionDepth); RELEASE SAVEPOINT ms_sp\(transactionDepth)")
      transactionFailed = false
    }
  }

  /// Makes the transaction usable again after a failed statement: rolls back to the
  /// innermost level's savepoint, whose work is then undone (`undoneLevels`).
  func recoverFromFailedStatement() throws {
    defer { transactionFailed = false }
    guard !isAutocommit else { return }
    if transactionDepth > 0 {
      undoneLevels.insert(transactionDepth)
      try simple("ROLLBACK TO SAVEPOINT ms_sp\(transactionDepth - 1)")
    } else if snapshotOpen {
      try simple("ROLLBACK TO SAVEPOINT ms_sp0")
    }
  }

  // MARK: - Read snapshots

  /// Runs `body`, which only reads, in a `REPEATABLE READ` transaction: every statement
  /// sees the commits made before its first one, whatever commits meanwhile, and no lock
  /// is taken. Not `READ ONLY`, which refuses every CREATE and DROP, temporary tables too:
  /// reads make temporary tables (an export's closure), as on SQLite. Inside an open
  /// transaction (or snapshot) `body` just runs.
  public func readingOneSnapshot<T>(_ body: () throws -> T) throws -> T {
    guard isAutocommit, !snapshotOpen else { return try body() }
    try beforeStatement()
    try simple("BEGIN ISOLATION LEVEL REPEATABLE READ; SAVEPOINT ms_sp0")
    snapshotOpen = true
    let result: T
    do {
      result = try body()
      try simple("COMMIT")
    } catch {
      dropDeferred()
      if !isAutocommit { _ = try? simple("ROLLBACK") }
      transactionFailed = false
      snapshotOpen = false
      throw error
    }
    snapshotOpen = false
    return result
  }

  /// Forgets the rows of statements stepped part way (their results are held whole, so
  /// nothing on the server waits for them).
  public func resetAllStatements() {
    for s in cache.values { s.reset() }
  }
}
