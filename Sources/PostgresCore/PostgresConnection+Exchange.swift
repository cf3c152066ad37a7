import CLibPQ
import DatabaseKit

#if canImport(Glibc)
  import Glibc
#endif

/// Talking to the server: a command and its results, with what the connection has not
/// sent yet (`pendingControl`: transaction control, writes held back) going first in the
/// same round trip (as statements before a simple query's text, or as commands before
/// the others in libpq's pipeline mode).
extension PostgresConnection {
  /// What goes to the server: a simple query (one or more statements, no parameters),
  /// statements without parameters sent as commands of their own (one simple query when
  /// nothing held back goes with them), or an extended-protocol command sent by the
  /// closure (`PQsendQueryPrepared`, ...).
  enum Command {
    case simple(String)
    case statements([String])
    case extended(() -> Int32)

    var isExtended: Bool {
      if case .extended = self { return true }
      return false
    }

    /// Statements of its own that may write (nothing for what is queued sent alone).
    var mayWrite: Bool {
      switch self {
      case .extended: return false
      case .statements(let list): return !list.isEmpty
      case .simple: return true
      }
    }
  }

  /// One command of a pipeline: what sends it, the statement its failure names (nil: the
  /// exchange's own), and for a prefetch what takes its result.
  private struct Send {
    var sql: String?
    var send: () -> Int32
    var receive: ((OpaquePointer) -> Void)? = nil
  }

  /// Runs `sql` (one or more statements) as a simple query; the first failure is thrown.
  /// Returns the last statement's command tag (`COMMIT`). With `countingChanges`, the rows
  /// a last INSERT, UPDATE or DELETE changed count in `changes` and `totalChanges`.
  @discardableResult
  func simple(_ sql: String, interruptible: Bool = false, countingChanges: Bool = false) throws -> String? {
    guard let result = try exchange(.simple(sql), sql: sql, interruptible: interruptible) else { return nil }
    defer { PQclear(result) }
    let status = String(cString: PQcmdStatus(result))
    if countingChanges, let n = PQcmdTuples(result).flatMap({ Int(String(cString: $0)) }),
      status.hasPrefix("INSERT") || status.hasPrefix("UPDATE") || status.hasPrefix("DELETE")
    {
      changes = n
      totalChanges &+= n
    }
    return status
  }

  /// Runs `list` after what is queued, in one round trip; the first failure is thrown.
  /// Returns the last one's command tag. An empty list sends what is queued alone.
  @discardableResult
  func statements(_ list: [String]) throws -> String? {
    let sql = list.last
    guard let result = try exchange(.statements(list), sql: sql, interruptible: false) else { return nil }
    defer { PQclear(result) }
    return String(cString: PQcmdStatus(result))
  }

  /// Sends `command` after the pending transaction control and held writes, waits for the
  /// results (running the cancellation probe while it waits) and returns the command's
  /// last one, or throws the first failure (a held write's names its own statement).
  func exchange(_ command: Command, sql: String?, interruptible: Bool) throws -> OpaquePointer? {
    if interruptible { try throwIfInterrupted(sql: sql) }
    // Answers read before a write in the same round trip are stale (a read's own command
    // is no write: `PostgresStatement.run` drops them after a write's).
    return try withQueued(sql: sql, writes: command.mayWrite) { queued in
      try exchange(queued, command, sql: sql, interruptible: interruptible)
    }
  }

  /// Makes the connection ready for a command (a stream's rest parked, a read snapshot's
  /// COMMIT answered) and calls `body` with what is queued (`pendingControl`), which goes
  /// first. When a prefetch failed (its table is gone: the schema changed since it was
  /// asked), the transaction that opened is undone and all is sent again without
  /// prefetches. The answers prefetched are dropped after a held write, or when `writes`.
  private func withQueued<T>(sql: String?, writes: Bool, _ body: ([PendingControl]) throws -> T) throws -> T {
    openingWentStale = false
    parkStream()
    if snapshotCommitSent { try readSnapshotCommit() }
    let queued = pendingControl
    pendingControl = []
    prefetchFailed = false
    do {
      let result = try body(queued)
      if writes || queued.contains(where: { $0.kind == .write }) { dropPrefetched() }
      return result
    } catch  where prefetchFailed && !openingWentStale && queued.contains(where: { $0.kind == .prefetch }) {
      prefetchFailed = false
      prefetches = []
      dropPrefetched()
      if let r = try simpleQuery(["ROLLBACK"], sql: sql, interruptible: false) { PQclear(r) }
      transactionFailed = false
      pendingControl = queued.filter { $0.kind != .prefetch }
      return try withQueued(sql: sql, writes: writes, body)
    } catch {
      dropPrefetched()
      throw error
    }
  }

  /// What is queued as commands of a pipeline, and whether any must go so (a held write
  /// or a prefetch: otherwise, statements that can go as one simple query).
  private func sends(_ queued: [PendingControl]) -> (sends: [Send], pipelined: Bool) {
    var sends: [Send] = []
    for q in queued {
      if let c = q.command {
        sends.append(Send(sql: c.sql, send: c.send, receive: q.receive))
      } else {
        sends += q.statements.map(textCommand)
      }
    }
    return (sends, queued.contains { $0.command != nil })
  }

  /// `exchange` of `queued` and `command`.
  private func exchange(_ queued: [PendingControl], _ command: Command, sql: String?, interruptible: Bool) throws -> OpaquePointer? {
    var controls = queued.flatMap(\.statements)
    let (sends, pipelined) = sends(queued)
    switch command {
    case .simple(let text):
      if pipelined {
        // A simple query cannot join a pipeline: what is queued goes first, on its own.
        if let r = try pipeline(sends, sql: sql, interruptible: false) { PQclear(r) }
        controls = []
      }
      return try simpleQuery(controls + [text], sql: sql, interruptible: interruptible)
    case .statements(let list):
      if pipelined { return try pipeline(sends + list.map(textCommand), sql: sql, interruptible: interruptible) }
      guard !(controls + list).isEmpty else { return nil }
      return try simpleQuery(controls + list, sql: sql, interruptible: interruptible)
    case .extended(let send):
      guard !sends.isEmpty else {
        roundTrips &+= 1
        guard send() == 1 else { throw failure(nil, sql: sql) }
        return try collect([Send(sql: nil, send: send)], sql: sql, interruptible: interruptible)
      }
      return try pipeline(sends + [Send(sql: nil, send: send)], sql: sql, interruptible: interruptible)
    }
  }

  /// `list` as one simple query (which ends the server's unnamed statement).
  private func simpleQuery(_ list: [String], sql: String?, interruptible: Bool) throws -> OpaquePointer? {
    roundTrips &+= 1
    server.unnamedOwner = nil
    guard PQsendQuery(handle, list.joined(separator: "; ")) == 1 else { throw failure(nil, sql: sql) }
    return try collect([Send(sql: nil, send: { 1 })], sql: sql, interruptible: interruptible)
  }

  /// A statement without parameters as a command of a pipeline (through the unnamed statement).
  private func textCommand(_ text: String) -> Send {
    Send(sql: nil) { [handle, server] in
      server.unnamedOwner = nil
      return PQsendQueryParams(handle, text, 0, nil, nil, nil, nil, 0)
    }
  }

  /// Sends the command `send` sends (after what is queued: transaction control, held
  /// writes, prefetches, in the same round trip) and returns its rows as they arrive
  /// (`RowStream`, libpq's single-row mode), once what went before it has answered; a
  /// failure there (a held write's names its own statement) is thrown here. `writes`: the
  /// command may write (the answers prefetched are dropped).
  func openStream(_ send: @escaping () -> Int32, sql: String, interruptible: Bool, writes: Bool) throws -> RowStream {
    if interruptible { try throwIfInterrupted(sql: sql) }
    return try withQueued(sql: sql, writes: writes) { queued in
      roundTrips &+= 1
      let (sends, _) = sends(queued)
      guard !sends.isEmpty else {
        guard send() == 1 else { throw failure(nil, sql: sql) }
        PQsetSingleRowMode(handle)
        return RowStream(connection: self, sql: sql, interruptible: interruptible, pipelined: false)
      }
      try sendPipeline(sends + [Send(sql: nil, send: send)], sql: sql)
      var answers: Answers
      do {
        answers = try read(sends, sql: sql, keepingLast: false)
      } catch {
        leavePipeline(left: sends.count + 4)
        throw error
      }
      // (In pipeline mode, single-row mode is set for the next command before its results are read.)
      PQsetSingleRowMode(handle)
      let stream = RowStream(connection: self, sql: sql, interruptible: interruptible, pipelined: true)
      if openingWentStale {
        // Its rows answer a statement made from what the opening found changed.
        stream.close()
        answers.discard()
        throw staleOpening(sql: sql)
      }
      guard let failed = answers.failed else { return stream }
      // The statement was skipped: its result and the sync are left to read.
      stream.close()
      let e = failure(failed, sql: answers.failedSQL)
      answers.discard()
      throw e
    }
  }

  /// Parks the rows of a statement still arriving (`RowStream.park`), so that another
  /// command can use the connection.
  func parkStream() { activeStream?.park() }

  /// Reads the answer to a read snapshot's COMMIT (`readingOneSnapshot`).
  func readSnapshotCommit() throws {
    snapshotCommitSent = false
    if let r = try collect([Send(sql: nil, send: { 1 })], sql: "COMMIT", interruptible: false) { PQclear(r) }
  }

  /// `sends` in one round trip (libpq's pipeline mode): a failure skips what follows it,
  /// and is thrown.
  private func pipeline(_ sends: [Send], sql: String?, interruptible: Bool) throws -> OpaquePointer? {
    roundTrips &+= 1
    try sendPipeline(sends, sql: sql)
    defer { leavePipeline(left: sends.count + 4) }
    return try collect(sends, sql: sql, interruptible: interruptible, pipelined: true)
  }

  /// Enters pipeline mode and sends `sends` and a sync; leaves pipeline mode again when
  /// sending fails.
  private func sendPipeline(_ sends: [Send], sql: String?) throws {
    guard PQenterPipelineMode(handle) == 1 else { throw failure(nil, sql: sql) }
    for s in sends {
      guard s.send() == 1 else {
        leavePipeline(left: sends.count + 4)
        throw failure(nil, sql: s.sql ?? sql)
      }
    }
    guard PQpipelineSync(handle) == 1 else {
      leavePipeline(left: sends.count + 4)
      throw failure(nil, sql: sql)
    }
  }

  /// Leaves pipeline mode; after a failure part way (a lost connection) results may be
  /// left: they are read first (at most `left` commands' worth).
  func leavePipeline(left: Int = 4) {
    var left = left
    while PQexitPipelineMode(handle) == 0 && left > 0 {
      while let r = PQgetResult(handle) { PQclear(r) }
      left -= 1
    }
  }

  /// What the commands read so far answered: the last command's last result, the first
  /// failure and the statement it names.
  private struct Answers {
    var last: OpaquePointer?
    var failed: OpaquePointer?
    var failedSQL: String?

    mutating func discard() {
      if let last { PQclear(last) }
      if let failed { PQclear(failed) }
      (last, failed) = (nil, nil)
    }
  }

  /// The results of the commands sent (each ended by a null result in pipeline mode, then
  /// the pipeline's sync): the last command's last result, or the first failure thrown
  /// (naming its command's statement; a failed prefetch sets `prefetchFailed`). A
  /// prefetch's result goes to its `receive`.
  private func collect(_ commands: [Send], sql: String?, interruptible: Bool, pipelined: Bool = false) throws -> OpaquePointer? {
    if interruptible { setInterruptible(true) }
    defer { if interruptible { setInterruptible(false) } }
    var answers = try read(commands, sql: sql, keepingLast: true)
    do {
      // The sync's own result ends a pipeline.
      while pipelined, let r = try nextResult(sql: sql) {
        let status = PQresultStatus(r)
        PQclear(r)
        if status == PGRES_PIPELINE_SYNC { break }
      }
    } catch {
      answers.discard()
      throw error
    }
    if openingWentStale {
      answers.discard()
      throw staleOpening(sql: sql)
    }
    if let failed = answers.failed {
      let e = failure(failed, sql: answers.failedSQL)
      answers.discard()
      throw e
    }
    // A cancel that reached a read while it ran (or was prepared) wins even if PQcancel
    // came too late for the server to stop it: the request is cancelled.
    if interruptible, let e = interruptedError(sql: sql) {
      answers.discard()
      throw e
    }
    return answers.last
  }

  /// Reads the results of `commands` (each to its end), keeping the last command's last
  /// result when `keepingLast` and the first failure; a prefetch's result goes to its
  /// `receive`. What was kept is dropped when reading fails.
  private func read(_ commands: [Send], sql: String?, keepingLast: Bool) throws -> Answers {
    var answers = Answers(failedSQL: sql)
    do {
      for (i, command) in commands.enumerated() {
        while let r = try nextResult(sql: sql) {
          switch PQresultStatus(r) {
          case PGRES_FATAL_ERROR, PGRES_BAD_RESPONSE, PGRES_NONFATAL_ERROR:
            if answers.failed == nil {
              answers.failed = r
              answers.failedSQL = command.sql ?? sql
              prefetchFailed = command.receive != nil
            } else {
              PQclear(r)
            }
          case PGRES_PIPELINE_ABORTED:
            PQclear(r)
          case PGRES_TUPLES_OK where command.receive != nil:
            command.receive?(r)
          default:
            if keepingLast && i == commands.count - 1 {
              if let last = answers.last { PQclear(last) }
              answers.last = r
            } else {
              PQclear(r)
            }
          }
        }
      }
    } catch {
      answers.discard()
      throw error
    }
    return answers
  }

  /// Throws `query_canceled` when an interrupt was requested: a read does not start then.
  func throwIfInterrupted(sql: String?) throws {
    if let e = interruptedError(sql: sql) { throw e }
  }

  private func interruptedError(sql: String?) -> PostgresError? {
    guard isInterruptRequested else { return nil }
    return PostgresError(sqlState: "57014", message: "canceling statement due to user request", sql: sql)
  }

  /// The next result of the command being read (nil at its end), waiting for it (a wait
  /// that `interrupt` may cancel when `interruptible`).
  func nextResult(sql: String?, interruptible: Bool = false) throws -> OpaquePointer? {
    while PQisBusy(handle) != 0 {
      if interruptible { setInterruptible(true) }
      defer { if interruptible { setInterruptible(false) } }
      try waitForInput(sql: sql)
      guard PQconsumeInput(handle) != 0 else { throw failure(nil, sql: sql) }
    }
    return PQgetResult(handle)
  }

  /// Waits until the socket has something to read, running the cancellation probe every
  /// 10 ms meanwhile.
  private func waitForInput(sql: String?) throws {
    let fd = PQsocket(handle)
    guard fd >= 0 else { throw failure(nil, sql: sql) }
    while true {
      var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      let n = poll(&p, 1, cancellationProbe == nil ? -1 : 10)
      if n > 0 { return }
      if n < 0 && errno != EINTR { throw PostgresError.connectionLost("poll failed (errno \(errno))", sql: sql) }
      cancellationProbe?()
    }
  }

  /// The error of a failed result, or of the connection when there is none; notes a
  /// transaction the failure aborted.
  func failure(_ result: OpaquePointer?, sql: String?) -> PostgresError {
    var e: PostgresError
    if PQstatus(handle) == CONNECTION_BAD {
      e = .connectionLost(url.scrubbed(Self.connectionMessage(handle)), sql: sql)
    } else if let result, PQresultErrorField(result, cpq_diag_sqlstate) != nil {
      e = PostgresError(result: result, sql: sql)
    } else {
      e = PostgresError(sqlState: "XX000", message: url.scrubbed(Self.connectionMessage(handle)), sql: sql)
    }
    if PQtransactionStatus(handle) == PQTRANS_INERROR { transactionFailed = true }
    return e
  }
}
