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
    if snapshotCommitSent { try readSnapshotCommit() }
    let queued = pendingControl
    prefetchFailed = false
    do {
      let result = try exchangeQueued(command, sql: sql, interruptible: interruptible)
      // Answers read before a write in the same round trip are stale (a read's own
      // command is no write: `PostgresStatement.run` drops them after a write's).
      if queued.contains(where: { $0.kind == .write }) || !command.isExtended { dropPrefetched() }
      return result
    } catch  where prefetchFailed {
      // The transaction opened, then a prefetch failed (its table is gone: the schema
      // changed since it was asked): undone, and sent again without prefetches.
      prefetchFailed = false
      prefetches = []
      dropPrefetched()
      if let r = try simpleQuery(["ROLLBACK"], sql: sql, interruptible: false) { PQclear(r) }
      transactionFailed = false
      pendingControl = queued.filter { $0.kind != .prefetch }
      return try exchange(command, sql: sql, interruptible: interruptible)
    } catch {
      dropPrefetched()
      throw error
    }
  }

  /// `exchange` of what is queued now and `command`.
  private func exchangeQueued(_ command: Command, sql: String?, interruptible: Bool) throws -> OpaquePointer? {
    let queued = pendingControl
    pendingControl = []
    var controls = queued.flatMap(\.statements)
    var sends: [Send] = []
    for q in queued {
      if let c = q.command {
        sends.append(Send(sql: c.sql, send: c.send, receive: q.receive))
      } else {
        sends += q.statements.map(textCommand)
      }
    }
    let pipelined = queued.contains { $0.command != nil }
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

  /// Reads the answer to a read snapshot's COMMIT (`readingOneSnapshot`).
  func readSnapshotCommit() throws {
    snapshotCommitSent = false
    if let r = try collect([Send(sql: nil, send: { 1 })], sql: "COMMIT", interruptible: false) { PQclear(r) }
  }

  /// `sends` in one round trip (libpq's pipeline mode): a failure skips what follows it,
  /// and is thrown.
  private func pipeline(_ sends: [Send], sql: String?, interruptible: Bool) throws -> OpaquePointer? {
    roundTrips &+= 1
    guard PQenterPipelineMode(handle) == 1 else { throw failure(nil, sql: sql) }
    defer {
      // After a failure part way (a lost connection) results may be left: read them first.
      var left = sends.count + 4
      while PQexitPipelineMode(handle) == 0 && left > 0 {
        while let r = PQgetResult(handle) { PQclear(r) }
        left -= 1
      }
    }
    for s in sends {
      guard s.send() == 1 else { throw failure(nil, sql: s.sql ?? sql) }
    }
    guard PQpipelineSync(handle) == 1 else { throw failure(nil, sql: sql) }
    return try collect(sends, sql: sql, interruptible: interruptible, pipelined: true)
  }

  /// The results of the commands sent (each ended by a null result in pipeline mode, then
  /// the pipeline's sync): the last command's last result, or the first failure thrown
  /// (naming its command's statement; a failed prefetch sets `prefetchFailed`). A
  /// prefetch's result goes to its `receive`.
  private func collect(_ commands: [Send], sql: String?, interruptible: Bool, pipelined: Bool = false) throws -> OpaquePointer? {
    if interruptible { setInterruptible(true) }
    defer { if interruptible { setInterruptible(false) } }
    var last: OpaquePointer?
    var failed: OpaquePointer?
    var failedSQL = sql
    func discard() {
      if let last { PQclear(last) }
      if let failed { PQclear(failed) }
      (last, failed) = (nil, nil)
    }
    func next() throws -> OpaquePointer? {
      while PQisBusy(handle) != 0 {
        try waitForInput(sql: sql)
        guard PQconsumeInput(handle) != 0 else { throw failure(nil, sql: sql) }
      }
      return PQgetResult(handle)
    }
    do {
      for (i, command) in commands.enumerated() {
        while let r = try next() {
          switch PQresultStatus(r) {
          case PGRES_FATAL_ERROR, PGRES_BAD_RESPONSE, PGRES_NONFATAL_ERROR:
            if failed == nil {
              failed = r
              failedSQL = command.sql ?? sql
              prefetchFailed = command.receive != nil
            } else {
              PQclear(r)
            }
          case PGRES_PIPELINE_ABORTED:
            PQclear(r)
          case PGRES_TUPLES_OK where command.receive != nil:
            command.receive?(r)
          default:
            if i == commands.count - 1 {
              if let last { PQclear(last) }
              last = r
            } else {
              PQclear(r)
            }
          }
        }
      }
      // The sync's own result ends a pipeline.
      while pipelined, let r = try next() {
        let status = PQresultStatus(r)
        PQclear(r)
        if status == PGRES_PIPELINE_SYNC { break }
      }
    } catch {
      discard()
      throw error
    }
    if let failed {
      let e = failure(failed, sql: failedSQL)
      discard()
      throw e
    }
    return last
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
