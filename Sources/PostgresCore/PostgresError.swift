import CLibPQ
import DatabaseKit

/// A failure of PostgreSQL or of the connection to it, told apart by its SQLSTATE
/// (www.postgresql.org/docs/current/errcodes-appendix.html). Carries the SQL text, never
/// the bound values, and never a password (messages about the connection are scrubbed by
/// the `PostgresURL` they concern).
public struct PostgresError: DatabaseError {
  /// The five-character SQLSTATE (`23505`); failures on the client side use the class 08
  /// codes of connection failures and `22023` for a value that cannot be bound.
  public var sqlState: String?
  public var message: String
  /// The server's DETAIL line, when it sent one.
  public var detail: String?
  /// The constraint a class 23 failure names (the index of a UNIQUE constraint).
  public var constraint: String?
  public var sql: String?
  public var cause: Error? { nil }
  /// Why a connection could not be made, for the opener's precise errors.
  public var connectFailure: ConnectFailure?

  public enum ConnectFailure: String, Sendable {
    /// No server answered (refused, no socket, unknown host, timeout).
    case unreachable
    /// The server refused the credentials (or wanted a password none was given for).
    case authentication
    /// The server has no database of that name.
    case noDatabase
    /// Anything else the server refused the connection for (its message says what).
    case refused
  }

  public init(sqlState: String, message: String, sql: String? = nil) {
    self.sqlState = sqlState
    self.message = message
    self.sql = sql
  }

  /// PostgreSQL's own numeric form of the SQLSTATE (`MAKE_SQLSTATE` in its elog.h: six
  /// bits per character), so that `code` is a number like SQLite's.
  public var code: Int32 {
    var out: Int32 = 0
    for (i, c) in (sqlState ?? "00000").utf8.prefix(5).enumerated() { out |= Int32((c &- 48) & 0x3F) << (6 * i) }
    return out
  }

  /// The SQLSTATE itself.
  public var codeName: String { sqlState ?? "" }

  private var sqlClass: Substring { (sqlState ?? "").prefix(2) }

  /// Serialization failure, deadlock, or a lock not granted within `lock_timeout`.
  public var isBusy: Bool { ["40001", "40P01", "55P03"].contains(sqlState) }
  /// Serialization failure or deadlock: PostgreSQL rolled the transaction back.
  public var isConflict: Bool { sqlState == "40001" || sqlState == "40P01" }
  /// `query_canceled`: `interrupt()` (PQcancel) stopped the statement.
  public var isInterrupted: Bool { sqlState == "57014" }
  public var isConstraint: Bool { sqlClass == "23" }
  /// `read_only_sql_transaction`: a write in a read-only transaction (a hot standby, or a
  /// database or role whose transactions are read-only by default).
  public var isReadOnly: Bool { sqlState == "25006" }
  public var isNotADatabase: Bool { false }
  /// A `sum` of bigints beyond 64 bits: `ms_integer_sum`'s error (22003 with its own
  /// DETAIL). PostgreSQL's other 22003 errors (arithmetic beyond 64 bits or the doubles'
  /// range) are not: protocol.md lists them as failing the statement.
  public var isIntegerOverflow: Bool {
    sqlState == "22003" && detail == PostgresDialect.integerSumOverflowDetail
  }
  /// The connection failed or was lost (class 08): the server rolled back whatever
  /// transaction was open.
  public var isConnectionFailure: Bool { sqlClass == "08" }

  public var description: String {
    "PostgreSQL error \(sqlState ?? "?"): \(message)" + (detail.map { " (\($0))" } ?? "") + (sql.map { " in \($0)" } ?? "")
  }

  /// The error a failed result reports.
  init(result: OpaquePointer, sql: String?) {
    func field(_ code: Int32) -> String? { PQresultErrorField(result, code).map { String(cString: $0) } }
    sqlState = field(cpq_diag_sqlstate)
    message = field(cpq_diag_message_primary) ?? Self.trimmed(String(cString: PQresultErrorMessage(result)))
    detail = field(cpq_diag_message_detail)
    constraint = field(cpq_diag_constraint_name)
    self.sql = sql
  }

  /// A malformed store URL or connection string.
  static func badURL(_ message: String) -> PostgresError {
    PostgresError(sqlState: "08P01", message: "malformed PostgreSQL URL: \(message)")
  }

  /// The connection is gone (the server stopped, the network failed).
  static func connectionLost(_ message: String, sql: String?) -> PostgresError {
    PostgresError(
      sqlState: "08006", message: "the connection to the PostgreSQL server was lost" + (message.isEmpty ? "" : ": \(message)"), sql: sql)
  }

  /// What this connection cannot do (`backup(to:)`, Swift functions).
  static func unsupported(_ message: String) -> PostgresError { PostgresError(sqlState: "0A000", message: message) }

  static func trimmed(_ s: String) -> String {
    var t = Substring(s)
    while let c = t.last, c == "\n" || c == " " { t.removeLast() }
    return String(t)
  }
}
