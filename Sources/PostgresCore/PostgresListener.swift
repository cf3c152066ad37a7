import CLibPQ
import DatabaseKit

/// A connection of its own that listens for a store's notifications, so that live queries
/// follow the commits of other servers: every write transaction sends `NOTIFY` on the
/// store's channel (`PostgresConnection.notifyChannel`) with its COMMIT, and PostgreSQL
/// delivers it to listeners once the transaction has committed (and never for one rolled
/// back). Its socket (`descriptor`) becomes readable when a notification arrives; whoever
/// waits on it then calls `read`. A lost connection is made again (and listening again)
/// by `read`, which then reports a change, since notifications may have been missed.
/// `@unchecked Sendable`: made on one thread, then used by one thread at a time (the
/// watcher's, which calls `descriptor` and `read` only), and finished in `deinit` once no
/// thread uses it.
public final class PostgresListener: @unchecked Sendable {
  private let handle: OpaquePointer
  public let channel: String
  /// The connection listens (false after a lost connection until it listens again).
  private var listening = false

  /// Connects to the server `url` names and listens on `channel`.
  public init(url: PostgresURL, channel: String) throws {
    self.channel = channel
    handle = try PostgresConnection.connect(url)
    do {
      try listen()
    } catch {
      PQfinish(handle)
      throw error
    }
  }

  deinit { PQfinish(handle) }

  /// The socket to wait on; -1 while the connection is lost (then `read` tries again).
  public var descriptor: Int32 { listening && PQstatus(handle) == CONNECTION_OK ? PQsocket(handle) : -1 }

  /// Reads what arrived: true when a notification came, or when the connection had been
  /// lost (it is made again, and whatever was committed meanwhile must be looked at).
  public func read() -> Bool {
    guard listening, PQstatus(handle) == CONNECTION_OK, PQconsumeInput(handle) == 1, PQstatus(handle) == CONNECTION_OK else {
      return reconnect()
    }
    var notified = false
    while let n = PQnotifies(handle) {
      notified = true
      PQfreemem(n)
    }
    return notified
  }

  /// Makes the connection again and listens (when that fails, `descriptor` stays -1 and
  /// the next `read` tries again); true either way: a change may have been missed.
  private func reconnect() -> Bool {
    listening = false
    PQreset(handle)
    if PQstatus(handle) == CONNECTION_OK {
      cpq_silence_notices(handle)
      listening = (try? listen()) != nil
    }
    return true
  }

  private func listen() throws {
    guard let r = PQexec(handle, "LISTEN \(Identifier.quote(channel))") else {
      throw PostgresError.connectionLost(PostgresConnection.connectionMessage(handle), sql: nil)
    }
    defer { PQclear(r) }
    guard PQresultStatus(r) == PGRES_COMMAND_OK else { throw PostgresError(result: r, sql: "LISTEN") }
    listening = true
  }
}
