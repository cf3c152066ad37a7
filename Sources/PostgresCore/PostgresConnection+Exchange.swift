import CLibPQ
import DatabaseKit

#if canImport(Glibc)
  import Glibc
#endif

/// Talking to the server: a command and its results, with the transaction control the
/// connection has not sent yet (`pendingControl`) going first in the same round trip
/// (as statements before a simple query's text, or as commands before an extended one in
/// libpq's pipeline mode).
extension PostgresConnection {
  /// What goes to the server: a simple query (one or more statements, no parameters), or
  /// an extended-protocol command sent by the closure (`PQsendQueryPrepared`, ...).
  enum Command {
    case simple(String)
    case extended(() -> Int32)
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

  /// Sends `command` after the pending transaction control, waits for the results
  /// (running the cancellation probe while it waits) and returns the command's last one,
  /// or throws the first failure.
  func exchange(_ command: Command, sql: String?, interruptible: Bool) throws -> OpaquePointer? {
    if interruptible { try throwIfInterrupted(sql: sql) }
    let controls = try takeControls()
    switch command {
    case .simple(let text):
      // A simple query ends the server's unnamed statement.
      server.unnamedOwner = nil
      let whole = (controls + [text]).joined(separator: "; ")
      guard PQsendQuery(handle, whole) == 1 else { throw failure(nil, sql: sql) }
      return try collect(commands: 1, sql: sql, interruptible: interruptible)
    case .extended(let send):
      guard !controls.isEmpty else {
        guard send() == 1 else { throw failure(nil, sql: sql) }
        return try collect(commands: 1, sql: sql, interruptible: interruptible)
      }
      return try pipeline(controls, send, sql: sql, interruptible: interruptible)
    }
  }

  /// Sends the command `send` sends (after the pending transaction control) and returns
  /// its rows as they arrive (`RowStream`, libpq's single-row mode), once the control
  /// before it has answered; a failure of the control is thrown here.
  func openStream(_ send: () -> Int32, sql: String, interruptible: Bool) throws -> RowStream {
    if interruptible { try throwIfInterrupted(sql: sql) }
    let controls = try takeControls()
    guard !controls.isEmpty else {
      guard send() == 1 else { throw failure(nil, sql: sql) }
      PQsetSingleRowMode(handle)
      return RowStream(connection: self, sql: sql, interruptible: interruptible, pipelined: false)
    }
    try sendPipeline(controls, send, sql: sql)
    var failed: OpaquePointer?
    do {
      for _ in controls {
        while let r = try nextResult(sql: sql) {
          let status = PQresultStatus(r)
          if failed == nil && status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK { failed = r } else { PQclear(r) }
        }
      }
    } catch {
      leavePipeline(left: controls.count + 4)
      throw error
    }
    // (In pipeline mode, single-row mode is set for the next command before its results are read.)
    PQsetSingleRowMode(handle)
    let stream = RowStream(connection: self, sql: sql, interruptible: interruptible, pipelined: true)
    guard let failed else { return stream }
    // The statement was skipped: its result and the sync are left to read.
    stream.close()
    let e = failure(failed, sql: sql)
    PQclear(failed)
    throw e
  }

  /// Parks the rows of a statement still arriving (`RowStream.park`), so that another
  /// command can use the connection.
  func parkStream() { activeStream?.park() }

  /// Makes the connection ready for a command (a stream's rest parked, a read snapshot's
  /// COMMIT answered) and takes the pending transaction control, which goes first.
  func takeControls() throws -> [String] {
    parkStream()
    if snapshotCommitSent { try readSnapshotCommit() }
    let controls = pendingControl.flatMap(\.statements)
    pendingControl = []
    roundTrips &+= 1
    return controls
  }

  /// Reads the answer to a read snapshot's COMMIT (`readingOneSnapshot`).
  func readSnapshotCommit() throws {
    snapshotCommitSent = false
    if let r = try collect(commands: 1, sql: "COMMIT", interruptible: false) { PQclear(r) }
  }

  /// `controls` (statements without parameters) and the command `send` sends, in one
  /// round trip (libpq's pipeline mode): a failure skips what follows it, and is thrown.
  private func pipeline(_ controls: [String], _ send: () -> Int32, sql: String?, interruptible: Bool) throws -> OpaquePointer? {
    try sendPipeline(controls, send, sql: sql)
    defer { leavePipeline(left: controls.count + 4) }
    return try collect(commands: controls.count + 1, sql: sql, interruptible: interruptible, pipelined: true)
  }

  /// Enters pipeline mode and sends `controls`, the command `send` sends and a sync; leaves
  /// pipeline mode again when sending fails.
  func sendPipeline(_ controls: [String], _ send: () -> Int32, sql: String?) throws {
    guard PQenterPipelineMode(handle) == 1 else { throw failure(nil, sql: sql) }
    for c in controls {
      guard PQsendQueryParams(handle, c, 0, nil, nil, nil, nil, 0) == 1 else {
        leavePipeline(left: controls.count + 4)
        throw failure(nil, sql: sql)
      }
    }
    // The controls went through the unnamed statement.
    server.unnamedOwner = nil
    guard send() == 1, PQpipelineSync(handle) == 1 else {
      leavePipeline(left: controls.count + 4)
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

  /// The results of `commands` commands (each ended by a null result in pipeline mode,
  /// then the pipeline's sync): the last command's last result, or the first failure
  /// thrown.
  private func collect(commands: Int, sql: String?, interruptible: Bool, pipelined: Bool = false) throws -> OpaquePointer? {
    if interruptible { setInterruptible(true) }
    defer { if interruptible { setInterruptible(false) } }
    var last: OpaquePointer?
    var failed: OpaquePointer?
    func discard() {
      if let last { PQclear(last) }
      if let failed { PQclear(failed) }
      (last, failed) = (nil, nil)
    }
    func next() throws -> OpaquePointer? { try nextResult(sql: sql) }
    do {
      for i in 0..<commands {
        while let r = try next() {
          switch PQresultStatus(r) {
          case PGRES_FATAL_ERROR, PGRES_BAD_RESPONSE, PGRES_NONFATAL_ERROR:
            if failed == nil { failed = r } else { PQclear(r) }
          case PGRES_PIPELINE_ABORTED:
            PQclear(r)
          default:
            if i == commands - 1 {
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
      let e = failure(failed, sql: sql)
      discard()
      throw e
    }
    // A cancel that reached a read while it ran (or was prepared) wins even if PQcancel
    // came too late for the server to stop it: the request is cancelled.
    if interruptible, let e = interruptedError(sql: sql) {
      discard()
      throw e
    }
    return last
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
