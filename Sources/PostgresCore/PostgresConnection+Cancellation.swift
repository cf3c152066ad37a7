import CLibPQ
import DatabaseKit

/// Cancellation: `interrupt()` raises the flag that loops over many statements check
/// (`pollInterrupt`) and cancels the read waiting for the server (`PQcancel`, from any
/// thread). A write is left to finish; it stops at the next check, as on SQLite.
///
/// A statement PostgreSQL cancels fails, and a failure aborts the whole transaction: the
/// connection then rolls back to the innermost level's savepoint (`recoverFromFailedStatement`),
/// undoing that level. So a read is cancelled on the server only where its failure undoes
/// nothing that must outlive it (`guardRead`):
///
/// - outside a transaction, and in a read snapshot (`readingOneSnapshot`), whose owner
///   ends it on any failure;
/// - in a level opened by `inTransaction` (a write request's), which its owner rolls back
///   on any failure anyway;
/// - in any other level (a client's `transaction.begin`), under a savepoint of the read's
///   own, `ms_rd`, sent in front of the read in its round trip (libpq's pipeline mode);
///   after the read, its RELEASE waits in the queue (`pendingControl`) for the next
///   exchange, so the savepoint costs no round trip. A read whose queue still ends with
///   that RELEASE (nothing else ran since the last read) keeps the savepoint, so a run of
///   reads pays for one SAVEPOINT and one RELEASE. When the read fails (cancelled, or an
///   SQL error), the connection rolls back to `ms_rd` and releases it (queued the same
///   way): the level keeps its work and can be committed.
///
/// Only the read's own wait may be cancelled, unless what goes in front of it in its round
/// trip is the opening of a transaction that fails as a whole with it (the locks, the
/// schema check and the first reads of a write transaction or snapshot): queued writes and
/// savepoints must never fail for a cancel. The server holds the answers of a pipeline's commands
/// until its sync, so a flush request goes in front of the read: the commands before it
/// have answered once their answers arrive, and the wait after them is the read's.
extension PostgresConnection {
  /// The interrupt asked for, whether the wait going on may be cancelled on the server,
  /// and whether the command being read was cancelled already.
  struct InterruptState {
    var requested = false
    var interruptible = false
    var cancelSent = false
    /// The 10 ms ticks the wait went on since the cancel was sent (`cancelAgainIfDue`).
    var ticksSinceCancel = 0
  }

  /// How the read being sent may be cancelled (`guardRead`).
  struct ReadCancel {
    /// `PQcancel` may stop its wait.
    var mayBeCancelled = false
    /// Its own savepoint.
    var savepoint = ReadSavepoint.none
    /// The queued commands in front of it (a transaction's opening) may be cancelled too.
    var preamble = false
  }

  enum ReadSavepoint {
    /// None: outside a transaction, or in a level rolled back on failure.
    case none
    /// `SAVEPOINT ms_rd` goes in front of the read, in its round trip.
    case sent
    /// The savepoint of an earlier read is still open: nothing ran since.
    case reused
  }

  public func interrupt() {
    interruptState.withLock { state in
      state.requested = true
      if state.interruptible { sendCancel(&state) }
    }
  }

  public func clearInterrupt() { interruptState.withLock { $0 = InterruptState(interruptible: $0.interruptible) } }

  public var isInterruptRequested: Bool { interruptState.withLock { $0.requested } }

  public func pollInterrupt() -> Bool {
    cancellationProbe?()
    return isInterruptRequested
  }

  /// While a read waits for the server, `interrupt` may cancel it (when `guardRead`
  /// allowed it); an interrupt requested before the wait began (while the commands in
  /// front of it ran) cancels it now.
  func setInterruptible(_ value: Bool) {
    let allowed = value && readCancel.mayBeCancelled
    interruptState.withLock { state in
      state.interruptible = allowed
      if allowed && state.requested { sendCancel(&state) }
    }
  }

  /// Cancels the running read at once (on this connection's thread), when it may be
  /// cancelled (with `contained`, only when its failure undoes nothing else:
  /// `readCancelIsContained`): a stream that is left before its end. True when the cancel
  /// was sent.
  @discardableResult func cancelRunningRead(contained: Bool = false) -> Bool {
    guard contained ? readCancelIsContained : readCancel.mayBeCancelled else { return false }
    return interruptState.withLock { sendCancel(&$0) }
  }

  /// The running read's failure undoes nothing but the read: outside a transaction, or
  /// under its own savepoint (not in a level merely rolled back on failure, whose work
  /// before the read would be lost with it).
  var readCancelIsContained: Bool { readCancel.mayBeCancelled && (transactionDepth == 0 || readCancel.savepoint != .none) }

  /// `PQcancel`, once per command (`again`: once more).
  @discardableResult private func sendCancel(_ state: inout InterruptState, again: Bool = false) -> Bool {
    guard !state.cancelSent || again, let cancel else { return false }
    state.cancelSent = true
    state.ticksSinceCancel = 0
    var buffer = [CChar](repeating: 0, count: 256)
    return PQcancel(cancel, &buffer, Int32(buffer.count)) == 1
  }

  /// Called every 10 ms of a wait for the server: a read still waiting 100 ms after its
  /// cancel was sent is sent it again. The server drops a cancel that reaches its process
  /// between two commands, while it reads the next one (PostgreSQL's cancel applies to the
  /// command running), so one sent as the read was about to start can be lost.
  func cancelAgainIfDue() {
    interruptState.withLock { state in
      guard state.interruptible && state.requested && state.cancelSent else { return }
      state.ticksSinceCancel += 1
      if state.ticksSinceCancel >= 10 { sendCancel(&state, again: true) }
    }
  }

  // MARK: - Reads inside transactions

  /// Decides how the interruptible read about to be sent after `queued` may be cancelled,
  /// and adds the savepoint that needs to `queued` (or takes the queued RELEASE of the
  /// last one back). `endRead` follows once the read's command has ended.
  func guardRead(_ queued: inout [PendingControl]) {
    readCommandRan = false
    interruptState.withLock { $0.cancelSent = false }
    let depth = transactionDepth
    guard depth > 0, !levelsRolledBackOnFailure.contains(depth) else {
      // A transaction's opening fails with the read when the read's owner ends the whole
      // transaction on failure: a snapshot, or a write request's outermost level.
      let opening = depth <= 1 && queued.first?.kind == .begin && !queued.contains { $0.kind == .write }
      readCancel = ReadCancel(mayBeCancelled: true, savepoint: .none, preamble: opening)
      return
    }
    if queued.last?.kind == .readRelease {
      queued.removeLast()
      readCancel = ReadCancel(mayBeCancelled: true, savepoint: .reused)
    } else {
      queued.append(readSavepointControl(.readSavepoint))
      readCancel = ReadCancel(mayBeCancelled: true, savepoint: .sent)
    }
  }

  /// After the read's command ended (its rows read, or its failure met; its transaction
  /// state known): its savepoint's RELEASE is queued, after a ROLLBACK TO when the read
  /// left the transaction aborted, whose failure then is no longer the level's. A
  /// savepoint that never ran (something in front of it failed) needs nothing: that
  /// failure is the level's.
  func endRead() {
    let established = readCancel.savepoint == .reused || (readCancel.savepoint == .sent && readCommandRan)
    readCancel = ReadCancel()
    guard established, PQstatus(handle) == CONNECTION_OK else { return }
    if PQtransactionStatus(handle) == PQTRANS_INERROR || transactionFailed {
      pendingControl.append(readSavepointControl(.readRollback))
      transactionFailed = false
    }
    pendingControl.append(readSavepointControl(.readRelease))
  }

  /// The statements of the reads' savepoint, prepared on the server with the session's
  /// settings and sent by name in a pipeline (the server parses them once; as text in a
  /// simple query).
  static let readSavepointStatements: [(kind: PendingControl.Kind, name: String, sql: String)] = [
    (.readSavepoint, "ms_rd_set", "SAVEPOINT ms_rd"),
    (.readRollback, "ms_rd_undo", "ROLLBACK TO SAVEPOINT ms_rd"),
    (.readRelease, "ms_rd_release", "RELEASE SAVEPOINT ms_rd"),
  ]

  /// Queues the preparation of `readSavepointStatements` (`setUpSession`).
  func prepareReadSavepointStatements() {
    for s in Self.readSavepointStatements {
      pendingControl.append(
        PendingControl(kind: .prepare, statements: [], command: (s.sql, { [handle] in PQsendPrepare(handle, s.name, s.sql, 0, nil) })))
    }
  }

  /// The queued control of `kind` (one of `readSavepointStatements`).
  private func readSavepointControl(_ kind: PendingControl.Kind) -> PendingControl {
    let s = Self.readSavepointStatements.first { $0.kind == kind }!
    return PendingControl(
      kind: kind, statements: [s.sql], command: (s.sql, { [handle] in PQsendQueryPrepared(handle, s.name, 0, nil, nil, nil, 0) }))
  }

  /// Runs `body` in a level of its own that is rolled back when `body` throws: a read in it
  /// may then be cancelled without a savepoint of its own (its failure undoes only work
  /// that `body`'s failure undoes anyway).
  public func inTransaction<T>(_ body: () throws -> T) throws -> T {
    try begin()
    levelsRolledBackOnFailure.insert(transactionDepth)
    return try closingLevel(body)
  }
}
