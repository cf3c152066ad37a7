import CLibPQ
import DatabaseKit

/// A check asked in the round trip that opens a transaction or read snapshot: a value the
/// caller read before (a store's schema cookie), read again where it counts, after the
/// transaction's write lock or at the start of the snapshot, without a round trip of its
/// own. The statement sent with it was made from what the caller read before; when the
/// value is not what the caller expects, that statement's answer (or failure) is not given
/// out: the statement fails with `staleOpening` instead (the transaction stays open, for
/// the caller to roll back or to read again and go on), and so does every statement after
/// it until the caller has taken note (`acceptStaleOpening`).
extension PostgresConnection {
  /// A read asked with the next opening (`expectAtNextOpening`).
  struct Expectation {
    let statements: [String]
    let sql: String
    let values: [SQLValue]
    let answer: SQLValue
  }

  /// Asks, in the round trip that opens the next transaction (at the outermost level, after
  /// the store's write lock) or read snapshot, `statements` (without parameters: a lock to
  /// take first) and then the read `sql` with `values`, whose first value must be
  /// `answer`. The statement is prepared now when it is not, so call this before opening.
  /// The opening's first statement then carries it; one that runs no statement sends it
  /// when asked (`sendPendingExpectation`), and a commit sends it first.
  public func expectAtNextOpening(_ statements: [String], _ sql: String, _ values: [SQLValue], answer: SQLValue) throws {
    _ = try cachedStatement(sql)
    nextExpectation = Expectation(statements: statements, sql: sql, values: values, answer: answer)
  }

  /// The expectation as commands of the opening that takes it (none when none is asked).
  /// One whose statement is no longer prepared on the server (the connection was made
  /// again meanwhile) cannot go in the pipeline: it is taken as not held, so the caller
  /// reads again what it expected.
  func expectationCommands() -> [PendingControl] {
    defer { nextExpectation = nil }
    staleInTransaction = false
    expectationAnswered = false
    guard let e = nextExpectation else { return [] }
    guard let statement = cache[e.sql], let send = try? statement.sender(e.values) else {
      expectationAnswered = true
      staleInTransaction = true
      staleOpenings &+= 1
      return []
    }
    let kinds = statement.columnKinds
    let lock = e.statements.isEmpty ? [] : [PendingControl(kind: .expectation, statements: e.statements)]
    return lock + [
      PendingControl(
        kind: .expectation, statements: [], command: (e.sql, send),
        receive: { [unowned self] result in
          expectationAnswered = true
          let held = PQntuples(result) == 1 && !kinds.isEmpty && PostgresRow(result: result, row: 0, kinds: kinds).value(0) == e.answer
          PQclear(result)
          if !held {
            openingWentStale = true
            staleInTransaction = true
            staleOpenings &+= 1
          }
        })
    ]
  }

  /// The expectation of the open transaction or snapshot is still to be sent (no
  /// statement ran in it yet). (`expectationAnswered`: the last one asked was answered.)
  public var expectationIsPending: Bool { pendingControl.contains { $0.kind == .expectation } }

  /// Sends the opening and its expectation now (one round trip) when no statement has yet;
  /// throws `staleOpening` when the expectation did not hold.
  public func sendPendingExpectation() throws {
    guard expectationIsPending else { return }
    try beforeStatement()
    try statements([])
  }

  /// The caller has read again what the expectation found changed: statements run again.
  public func acceptStaleOpening() { staleInTransaction = false }

  /// The failure of a statement whose opening found the expectation changed (noting a
  /// transaction that statement's own failure aborted, as `failure` does).
  func staleOpening(sql: String?) -> PostgresError {
    if PQtransactionStatus(handle) == PQTRANS_INERROR { transactionFailed = true }
    return PostgresError(
      sqlState: "40000",
      message: "the statement was made from what its opening found changed (another server changed the store's schema); it was not run",
      sql: sql)
  }
}
