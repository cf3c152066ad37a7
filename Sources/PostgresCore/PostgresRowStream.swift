import CLibPQ
import DatabaseKit

/// The rows of one run of a statement as they arrive, one result per row (libpq's
/// single-row mode), so that reading a large result takes no more memory than one row:
/// `forEachRow` walks a stream and clears each row before it reads the next.
///
/// libpq reads one command's results at a time. When another command needs the
/// connection while a stream is still arriving (a statement run inside `forEachRow`'s
/// body: a nested read), the connection first parks the stream (`park`): its remaining
/// rows are read into one result held in memory (as a whole result was before), with the
/// failure that ended it, if any, and the walk goes on from there. A stream left before
/// its end (`close`: the body threw, or the caller stopped) has its remaining rows read
/// and dropped, so the connection is free for the next command; a read-only statement
/// whose request is being cancelled is cancelled on the server first (`PQcancel`), so
/// little is left to read.
final class RowStream {
  unowned let connection: PostgresConnection
  let sql: String
  /// The statement only reads: waits for it may be cancelled (`interrupt`).
  let interruptible: Bool
  /// Sent in pipeline mode (after what the connection had queued: transaction control,
  /// held writes, prefetches): a sync ends it.
  let pipelined: Bool
  /// Nothing of the statement is left to read from the server.
  private(set) var isDone = false
  /// The row given out last, read from the server (cleared at the next step).
  private var current: OpaquePointer?
  /// The rows read ahead when the stream was parked, and the next one to give out.
  private var parked: OpaquePointer?
  private var parkedRows: Int32 = 0
  private var parkedNext: Int32 = 0
  /// The failure that ended the statement, met while parking or draining: thrown after
  /// the rows before it (as SQLite's step fails where the error occurs).
  private var failure: PostgresError?

  init(connection: PostgresConnection, sql: String, interruptible: Bool, pipelined: Bool) {
    self.connection = connection
    self.sql = sql
    self.interruptible = interruptible
    self.pipelined = pipelined
    connection.activeStream = self
  }

  /// The rows of a result read whole before (a prefetched answer, its owner now): nothing
  /// is left to read from the server.
  init(connection: PostgresConnection, sql: String, whole result: OpaquePointer) {
    self.connection = connection
    self.sql = sql
    self.interruptible = false
    self.pipelined = false
    isDone = true
    (parked, parkedRows) = (result, PQntuples(result))
  }

  deinit { close() }

  /// The next row (a result and its row index), or nil after the last; throws the
  /// statement's failure where it occurred.
  func next() throws -> (result: OpaquePointer, row: Int32)? {
    if let current { PQclear(current) }
    current = nil
    if parked != nil || isDone {
      if let parked, parkedNext < parkedRows {
        parkedNext += 1
        return (parked, parkedNext - 1)
      }
      if let failure {
        self.failure = nil
        throw failure
      }
      return nil
    }
    guard let r = try read() else {
      drain(keeping: false)
      return try next()
    }
    if PQresultStatus(r) == PGRES_SINGLE_TUPLE {
      current = r
      return (r, 0)
    }
    take(r, keeping: false)
    drain(keeping: false)
    return try next()
  }

  /// Reads the rest of the statement's rows into memory, so that another command can use
  /// the connection; the walk then goes on from them.
  func park() {
    guard !isDone else { return }
    connection.streamsParked &+= 1
    drain(keeping: true)
  }

  /// Rows of a stream left before its end that are read and dropped before its statement
  /// is cancelled on the server (`close`). A cancel costs the server a process and the
  /// client a connection: 3 to 8 ms, as much as reading about 10,000 rows of 100 bytes
  /// (0.4 to 0.8 µs each; measured on the test cluster, debug build). Reading that many
  /// first makes a small rest cost no cancel, and a large one at most about twice what
  /// the cheaper way would have cost (200,000 rows: 110 to 160 ms read whole, 6 ms
  /// cancelled).
  static let rowsBeforeCancel = 10_000

  /// Ends the stream: what is left on the server is read and dropped, after cancelling a
  /// read whose request is being cancelled. A read left before its end (`first`, a walk
  /// that stopped) with more than `rowsBeforeCancel` rows still coming is cancelled on the
  /// server then, where its failure undoes nothing else (`readCancelIsContained`), so the
  /// rest is not sent; its failure is not the caller's.
  func close() {
    if !isDone {
      if interruptible && connection.isInterruptRequested { connection.cancelRunningRead() }
      drain(keeping: false, cancellingAfter: interruptible ? Self.rowsBeforeCancel : nil)
    }
    failure = nil
    if let current { PQclear(current) }
    if let parked { PQclear(parked) }
    (current, parked, parkedRows, parkedNext) = (nil, nil, 0, 0)
  }

  /// The statement's next result, waiting for it (nil at the statement's end). A lost
  /// connection ends the stream.
  private func read() throws -> OpaquePointer? { try connection.nextResult(sql: sql, interruptible: interruptible) }

  /// Reads the statement's remaining results, then the pipeline's sync, keeping the rows
  /// (`keeping`) and the first failure; then the connection is free.
  private func drain(keeping: Bool, cancellingAfter limit: Int? = nil) {
    do {
      var dropped = 0
      while let r = try read() {
        take(r, keeping: keeping)
        dropped += 1
        if dropped == limit && connection.cancelRunningRead(contained: true) { connection.streamsCancelled &+= 1 }
      }
      while pipelined, let r = try read() {
        let status = PQresultStatus(r)
        PQclear(r)
        if status == PGRES_PIPELINE_SYNC { break }
      }
    } catch {
      if failure == nil { failure = error as? PostgresError ?? PostgresError.connectionLost("\(error)", sql: sql) }
    }
    if pipelined { connection.leavePipeline() }
    isDone = true
    if connection.activeStream === self { connection.activeStream = nil }
    if failure == nil, let failed {
      failure = connection.failure(failed, sql: sql)
    }
    if let failed { PQclear(failed) }
    failed = nil
    // The read's savepoint, if it has one, is released (or rolled back to after a failure).
    if interruptible { connection.endRead() }
  }

  /// The first failed result, read until the statement's end (its error is made after
  /// the pipeline's sync, when the transaction's state is known).
  private var failed: OpaquePointer?

  /// One result of the statement: a row (kept when parking), its end (a command's counts
  /// its changes, as `PostgresStatement.run` does), or a failure.
  private func take(_ r: OpaquePointer, keeping: Bool) {
    switch PQresultStatus(r) {
    case PGRES_SINGLE_TUPLE:
      if keeping { append(r) }
    case PGRES_TUPLES_OK where PQntuples(r) > 0 && parked == nil:
      // Rows that came whole (single-row mode was not taken): they are given out as parked.
      (parked, parkedRows) = (r, PQntuples(r))
      return
    case PGRES_TUPLES_OK, PGRES_PIPELINE_ABORTED:
      break
    case PGRES_COMMAND_OK:
      connection.changes = PQcmdTuples(r).flatMap { Int(String(cString: $0)) } ?? 0
      connection.totalChanges &+= connection.changes
    default:
      if failed == nil {
        failed = r
        return
      }
    }
    PQclear(r)
  }

  /// Copies a row result's values to the end of `parked` (libpq allocates them in blocks
  /// of the one result, as it does a whole result's).
  private func append(_ r: OpaquePointer) {
    if parked == nil { parked = PQcopyResult(r, PG_COPYRES_ATTRS) }
    guard let parked else { return }
    for f in 0..<PQnfields(r) {
      if PQgetisnull(r, 0, f) != 0 {
        PQsetvalue(parked, parkedRows, f, nil, -1)
      } else {
        PQsetvalue(parked, parkedRows, f, PQgetvalue(r, 0, f), PQgetlength(r, 0, f))
      }
    }
    parkedRows += 1
  }
}
