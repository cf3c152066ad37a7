import CLibPQ
import DatabaseKit

/// Transactions, savepoints and read snapshots. Every level is a savepoint: the outermost
/// level opens the transaction, takes the store's write lock (a transaction-level advisory
/// lock on `writeLockKey`, which serializes the writers of one store as SQLite's file
/// lock does) and sets savepoint `ms_sp0`; level `d` inside it is savepoint `ms_sp(d-1)`.
///
/// None of this costs a round trip of its own: opening and closing levels is queued
/// (`pendingControl`) and goes to the server in front of the next statement. A level
/// closed before any statement ran in it is never sent at all, and a transaction in which
/// no statement ran is neither opened nor committed. Writes whose outcome nobody reads
/// (`PreparedStatement.executeLater`: the history row, the key maxima) wait in the same
/// queue, so an autocommit write's last statements, its `commitPrelude` and its COMMIT are
/// one round trip (libpq's pipeline mode, PostgresConnection+Exchange.swift).
extension PostgresConnection {
  /// Transaction control not sent yet, and writes held back.
  struct PendingControl {
    enum Kind: Equatable {
      /// Opens the transaction (and takes the lock, sets `ms_sp0`).
      case begin
      /// `SAVEPOINT ms_spN`.
      case savepoint(Int)
      /// Closes savepoint N, keeping or undoing its work.
      case release(Int), rollbackTo(Int)
      /// A write held back (`command`).
      case write
      /// A read asked in a write transaction's opening round trip (`command`; its result
      /// goes to `receive`, PostgresConnection+Prefetch.swift).
      case prefetch
      /// The check asked in an opening (PostgresConnection+Expectation.swift): its
      /// statements, or its read (`command`, `receive`).
      case expectation
    }
    var kind: Kind
    var statements: [String]
    /// A write held back or a prefetch: its statement (for its error) and what sends it
    /// (a prepared statement with its values, owned by the closure).
    var command: (sql: String, send: () -> Int32)? = nil
    /// Takes a prefetch's result (its owner then).
    var receive: ((OpaquePointer) -> Void)? = nil
  }

  /// Holds back a write (`PostgresStatement.executeLater`) until the next round trip.
  func hold(sql: String, send: @escaping () -> Int32) {
    pendingControl.append(PendingControl(kind: .write, statements: [], command: (sql, send)))
  }

  /// Writes are held back, not sent yet.
  var holdsWrites: Bool { pendingControl.contains { $0.kind == .write } }

  /// True when no transaction is open (also when the connection is lost: the server
  /// has rolled back whatever was open); a transaction whose opening is still queued is open.
  public var isAutocommit: Bool { serverIsIdle && !beginIsPending }

  /// The server has no transaction open for this connection (a read snapshot's COMMIT on
  /// its way ends the snapshot's).
  var serverIsIdle: Bool {
    if snapshotCommitSent { return true }
    let status = PQtransactionStatus(handle)
    return status == PQTRANS_IDLE || status == PQTRANS_UNKNOWN
  }

  /// The transaction's opening is queued: no statement has run in it yet.
  var beginIsPending: Bool { pendingControl.first?.kind == .begin }

  /// Opens a level: at the outermost, the transaction and the store's write lock (waiting
  /// up to `lock_timeout` when the first statement runs, then failing as busy; a read-only
  /// connection takes no lock). Inside a transaction the server has ended (the connection
  /// was lost), it fails and forgets every level (`transactionWasLost`): no statement may
  /// run outside it.
  public func begin() throws {
    let depth = transactionDepth
    guard depth == 0 else {
      if isAutocommit {
        let e = transactionEnded()
        finishTransaction(lost: true)
        throw e
      }
      pendingControl.append(PendingControl(kind: .savepoint(depth), statements: ["SAVEPOINT ms_sp\(depth)"]))
      transactionDepth += 1
      return
    }
    staleInTransaction = false
    try beforeStatement()
    let lock = isReadOnly ? [] : ["SELECT pg_advisory_xact_lock(\(writeLockKey))"]
    dropPrefetched()
    pendingControl =
      [PendingControl(kind: .begin, statements: ["BEGIN"] + lock + ["SAVEPOINT ms_sp0"])] + expectationCommands() + prefetchCommands()
    transactionDepth = 1
  }

  /// Closes the innermost level, keeping its changes; the outermost runs `willCommit`
  /// first. Refused (the level stays open, for the caller to roll back) when a failed
  /// statement undid part of the level's work, or when the server ended the transaction.
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
      pendingControl.removeAll { $0.kind == .prefetch }
      if holdsWrites && expectationIsPending {
        // Only writes held back ran: the opening's check is answered before they commit.
        try beforeStatement()
        try statements([])
      }
      if beginIsPending && !holdsWrites {
        // No statement ran: there is nothing to commit.
        pendingControl = []
      } else {
        // What is queued (the transaction's opening, held writes), the prelude and the
        // COMMIT: one round trip.
        try beforeStatement()
        let status = try statements(commitPrelude + ["COMMIT"])
        // COMMIT of a transaction PostgreSQL had aborted answers ROLLBACK.
        guard status == "COMMIT" else {
          throw PostgresError(sqlState: "40000", message: "the transaction was rolled back by PostgreSQL instead of committed")
        }
      }
    } else {
      // Held writes never outlive their level: they are sent (and their failure thrown,
      // the level staying open for the caller to roll back) before it closes.
      if holdsWrites {
        try beforeStatement()
        try statements([])
      }
      close(savepoint: depth - 1, .release(depth - 1), "RELEASE SAVEPOINT ms_sp\(depth - 1)")
    }
    transactionDepth -= 1
    undoneLevels.remove(depth)
    if transactionDepth == 0 {
      epoch &+= 1
      dropPrefetched()
      staleInTransaction = false
      didEndTransaction?()
    }
  }

  /// Queues the end of savepoint `n`; a savepoint whose opening is still queued is just
  /// forgotten (nothing ran in it), with the writes held back inside it when it is rolled
  /// back.
  private func close(savepoint n: Int, _ kind: PendingControl.Kind, _ statements: String...) {
    if pendingControl.last?.kind == .savepoint(n) {
      pendingControl.removeLast()
    } else if kind == .rollbackTo(n), let i = pendingControl.lastIndex(where: { $0.kind == .savepoint(n) }) {
      pendingControl.removeSubrange(i...)
    } else {
      pendingControl.append(PendingControl(kind: kind, statements: statements))
    }
  }

  /// Closes the innermost level, undoing its changes.
  public func rollback() {
    precondition(transactionDepth > 0, "rollback without begin")
    epoch &+= 1
    dropPrefetched()
    undoneLevels.remove(transactionDepth)
    transactionDepth -= 1
    let n = transactionDepth
    if !beginIsPending && serverIsIdle {
      // PostgreSQL ended the whole transaction itself (a failed COMMIT, a lost connection).
      finishTransaction(lost: n > 0)
    } else if n == 0 {
      // (Nothing to undo on the server when nothing of the transaction was sent.)
      if !beginIsPending {
        pendingControl = []
        _ = try? simple("ROLLBACK")
      }
      finishTransaction(lost: false)
    } else {
      // Rolling back to a savepoint also ends the aborted state a failed statement left.
      close(savepoint: n, .rollbackTo(n), "ROLLBACK TO SAVEPOINT ms_sp\(n)", "RELEASE SAVEPOINT ms_sp\(n)")
      transactionFailed = false
    }
  }

  /// The transaction is over (rolled back, or ended by the server: `lost` when levels
  /// inside it were open, `transactionWasLost`): no level, nothing queued.
  private func finishTransaction(lost: Bool) {
    epoch &+= 1
    dropPrefetched()
    if lost { transactionWasLost = true }
    transactionDepth = 0
    pendingControl = []
    undoneLevels = []
    transactionFailed = false
    staleInTransaction = false
    didEndTransaction?()
  }

  /// Makes the transaction usable again after a failed statement: rolls back to the
  /// innermost level's savepoint, whose work is then undone (`undoneLevels`).
  func recoverFromFailedStatement() throws {
    defer { transactionFailed = false }
    guard !serverIsIdle else { return }
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
  /// transaction (or snapshot) `body` just runs. The transaction opens with the first
  /// statement, in its round trip; a body that runs none costs nothing.
  public func readingOneSnapshot<T>(_ body: () throws -> T) throws -> T {
    guard isAutocommit, !snapshotOpen else { return try body() }
    staleInTransaction = false
    try beforeStatement()
    pendingControl =
      [PendingControl(kind: .begin, statements: ["BEGIN ISOLATION LEVEL REPEATABLE READ", "SAVEPOINT ms_sp0"])] + expectationCommands()
    snapshotOpen = true
    defer {
      snapshotOpen = false
      staleInTransaction = false
    }
    let result: T
    do {
      result = try body()
      if beginIsPending {
        pendingControl = []
      } else {
        // Sent without waiting for its answer (read before the next command): a read-only
        // transaction's COMMIT cannot lose anything, and the reply need not wait for it.
        parkStream()
        guard PQsendQuery(handle, "COMMIT") == 1 else { throw failure(nil, sql: "COMMIT") }
        server.unnamedOwner = nil
        snapshotCommitSent = true
      }
    } catch {
      if beginIsPending { pendingControl = [] } else if !serverIsIdle { _ = try? simple("ROLLBACK") }
      transactionFailed = false
      throw error
    }
    return result
  }

  /// Forgets the rows of statements stepped part way (`step` holds a result whole, so
  /// nothing on the server waits for them; `forEachRow` ends its stream before it returns).
  public func resetAllStatements() {
    for s in cache.values { s.reset() }
  }
}
