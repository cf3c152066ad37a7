import CLibPQ

#if canImport(Glibc)
  import Glibc
#endif

/// Making a connection, and telling its failures apart without reading libpq's or the
/// server's messages, which are in the language of `LC_MESSAGES` and `lc_messages`:
///
/// - libpq 15 keeps the SQLSTATE of the error a server sends during the connection only
///   inside the connection (its `PQgetResult` after a failed `PQconnectdb` is a result of
///   its own, without the fields), but it writes the code into the connection's message
///   when the connection's error verbosity is `PQERRORS_VERBOSE` (`FATAL:  3D000: ...`),
///   and the verbosity can be set only between `PQconnectStartParams` and the first
///   `PQconnectPoll`. So the connection is made by polling (as `PQconnectdbParams` does
///   inside), and the code is read from the place libpq puts it.
/// - Whether a server was reached at all is `PQstatus` during the polling: a connection
///   that got past `CONNECTION_STARTED` reached a server.
/// - A password the server asked for and was not given is `PQconnectionNeedsPassword`.
extension PostgresConnection {
  /// A new connection to the server `url` names, its failure told apart
  /// (`connectFailure`); notices are not printed.
  static func connect(_ url: PostgresURL) throws -> OpaquePointer {
    let (keywords, values) = connectParameters(url)
    let started = withCStrings(keywords) { k in withCStrings(values) { v in PQconnectStartParams(k, v, 1) } }
    guard let conn = started else { throw PostgresError(sqlState: "08001", message: "cannot connect to PostgreSQL: out of memory") }
    cpq_silence_notices(conn)
    PQsetErrorVerbosity(conn, PQERRORS_VERBOSE)
    var attempt = ConnectAttempt(conn: conn)
    switch attempt.run() {
    case .connected:
      PQsetErrorVerbosity(conn, PQERRORS_DEFAULT)
      return conn
    case .failed:
      let failure = connectFailure(conn, url: url, reachedServer: attempt.reachedServer)
      PQfinish(conn)
      throw failure
    case .timedOut:
      let severalHosts = ["host", "hostaddr"].contains { option(conn, $0)?.contains(",") ?? false }
      PQfinish(conn)
      // Polling cannot tell libpq to go on to the next host of a list when one does not
      // answer in time (`connect_timeout` is `PQconnectdbParams`'s own loop): with several
      // hosts, that loop is left to do it, and a failure is then told apart as before the
      // server was reached (no SQLSTATE).
      guard severalHosts else {
        throw PostgresError(
          sqlState: "08001", message: url.scrubbed("timeout expired connecting to the server of \(url.redacted)"),
          failure: .unreachable)
      }
      return try connectWaiting(keywords, values, url: url)
    }
  }

  /// The keywords and values given to libpq: `url`'s connection string, with a default
  /// `connect_timeout` of 10 s unless the URL, a service or `PGCONNECT_TIMEOUT` sets one.
  /// Entries before `dbname` are defaults the URL overrides; those after it are forced.
  private static func connectParameters(_ url: PostgresURL) -> ([String], [String]) {
    let given = url.givenOptions()
    var keywords: [String] = []
    var values: [String] = []
    if !given.contains("connect_timeout") && !given.contains("service") && getenv("PGCONNECT_TIMEOUT") == nil
      && getenv("PGSERVICE") == nil
    {
      keywords.append("connect_timeout")
      values.append("10")
    }
    keywords += ["fallback_application_name", "dbname", "client_encoding"]
    values += ["modelstore", url.conninfo, "UTF8"]
    return (keywords, values)
  }

  /// `PQconnectdbParams`, for a list of hosts that one of them did not answer in time.
  private static func connectWaiting(_ keywords: [String], _ values: [String], url: PostgresURL) throws -> OpaquePointer {
    let made = withCStrings(keywords) { k in withCStrings(values) { v in PQconnectdbParams(k, v, 1) } }
    guard let conn = made else { throw PostgresError(sqlState: "08001", message: "cannot connect to PostgreSQL: out of memory") }
    guard PQstatus(conn) == CONNECTION_OK else {
      let failure = connectFailure(conn, url: url, reachedServer: false)
      PQfinish(conn)
      throw failure
    }
    cpq_silence_notices(conn)
    return conn
  }

  /// The value libpq settled on for the connection option `keyword`.
  static func option(_ conn: OpaquePointer, _ keyword: String) -> String? {
    guard let options = PQconninfo(conn) else { return nil }
    defer { PQconninfoFree(options) }
    var p = options
    while let k = p.pointee.keyword {
      if String(cString: k) == keyword { return p.pointee.val.map { String(cString: $0) } }
      p += 1
    }
    return nil
  }

  /// Why `conn` did not connect: the SQLSTATE of the server's refusal (`28P01` a wrong
  /// password, `28000` an unknown role or no `pg_hba.conf` entry, `3D000` no such
  /// database, any other code `refused`), a password wanted and not given
  /// (`authentication`), a server reached that refused on the client's side (`refused`,
  /// an SSL mode it cannot meet...), or no server reached (`unreachable`). The message is
  /// libpq's, without the code and the server's source location verbose mode adds.
  static func connectFailure(_ conn: OpaquePointer, url: PostgresURL, reachedServer: Bool) -> PostgresError {
    let verbose = String(cString: PQerrorMessage(conn))
    let (sqlState, text) = ConnectMessage.split(verbose)
    let message = url.scrubbed(text)
    let failure: PostgresError.ConnectFailure
    switch sqlState {
    case "28P01"?, "28000"?: failure = .authentication
    case "3D000"?: failure = .noDatabase
    case _?: failure = .refused
    case nil:
      if PQconnectionNeedsPassword(conn) != 0 {
        failure = .authentication
      } else {
        failure = reachedServer ? .refused : .unreachable
      }
    }
    let code = sqlState ?? (failure == .authentication ? "28P01" : "08001")
    return PostgresError(sqlState: code, message: message, failure: failure)
  }
}

extension PostgresError {
  init(sqlState: String, message: String, failure: ConnectFailure) {
    self.init(sqlState: sqlState, message: message)
    connectFailure = failure
  }
}

/// One connection being made by `PQconnectPoll`, waiting on its socket as
/// `PQconnectdbParams` does, at most `connect_timeout` seconds for each server address
/// tried (each a new socket).
struct ConnectAttempt {
  let conn: OpaquePointer
  /// A connection to a server was made (the status got past `CONNECTION_STARTED`).
  private(set) var reachedServer = false

  enum Outcome { case connected, failed, timedOut }

  init(conn: OpaquePointer) { self.conn = conn }

  mutating func run() -> Outcome {
    let timeout = Self.timeoutSeconds(conn)
    var socket: Int32 = -1
    var deadline = 0.0
    var state = PGRES_POLLING_WRITING
    while true {
      noteStatus()
      if PQstatus(conn) == CONNECTION_BAD || state == PGRES_POLLING_FAILED { return .failed }
      if state == PGRES_POLLING_OK { return .connected }
      let fd = PQsocket(conn)
      if fd != socket {
        socket = fd
        deadline = Self.now() + Double(timeout ?? 0)
      }
      var pfd = pollfd(fd: fd, events: Int16(state == PGRES_POLLING_READING ? POLLIN : POLLOUT), revents: 0)
      let waitMs = timeout == nil ? -1 : max(0, Int32(((deadline - Self.now()) * 1000).rounded(.up)))
      let ready = poll(&pfd, 1, waitMs)
      if ready < 0 && errno == EINTR { continue }
      if ready == 0 { return .timedOut }
      state = PQconnectPoll(conn)
    }
  }

  private mutating func noteStatus() {
    let status = PQstatus(conn)
    if status != CONNECTION_STARTED && status != CONNECTION_NEEDED && status != CONNECTION_BAD { reachedServer = true }
  }

  /// `connect_timeout` as libpq reads it: nil (wait for ever) when unset or 0, at least 2 s.
  private static func timeoutSeconds(_ conn: OpaquePointer) -> Int? {
    guard let text = PostgresConnection.option(conn, "connect_timeout"), let n = Int(text.trimmingCharacters()), n > 0 else {
      return nil
    }
    return max(n, 2)
  }

  private static func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
  }
}

/// The message of a failed connection made with `PQERRORS_VERBOSE`.
enum ConnectMessage {
  /// The SQLSTATE of the last error a server sent (verbose mode writes it after the
  /// severity: `SEVERITY:  CODE: message`), and the message without that code and
  /// without the server's source location lines (`LOCATION:  function, file.c:line`),
  /// on one line.
  static func split(_ verbose: String) -> (sqlState: String?, message: String) {
    var sqlState: String?
    var lines: [String] = []
    for rawLine in verbose.split(whereSeparator: \.isNewline) {
      var line = String(rawLine.trimmingSpaces)
      if line.isEmpty || isLocation(line) { continue }
      if let (code, range) = codeAfterSeverity(line) {
        sqlState = code
        line.removeSubrange(range)
      }
      lines.append(line)
    }
    return (sqlState, lines.joined(separator: " "))
  }

  /// A code of five digits or capital letters after the first `:  ` (a severity and two
  /// spaces) and followed by `: `, with the range to remove (the code and its `: `).
  private static func codeAfterSeverity(_ line: String) -> (String, Range<String.Index>)? {
    let u = Array(line.utf8)
    var i = 0
    while i + 3 <= u.count {
      if u[i] == UInt8(ascii: ":") && u[i + 1] == UInt8(ascii: " ") && u[i + 2] == UInt8(ascii: " ") {
        let start = i + 3
        let end = start + 5
        guard end + 2 <= u.count, u[end] == UInt8(ascii: ":"), u[end + 1] == UInt8(ascii: " "),
          u[start..<end].allSatisfy({ ($0 >= 48 && $0 <= 57) || ($0 >= 65 && $0 <= 90) })
        else {
          i += 1
          continue
        }
        let lower = line.utf8.index(line.utf8.startIndex, offsetBy: start)
        let upper = line.utf8.index(lower, offsetBy: 7)
        return (String(decoding: u[start..<end], as: UTF8.self), lower..<upper)
      }
      i += 1
    }
    return nil
  }

  /// The server's source location, the last line of an error in verbose mode
  /// (`WORD:  function, file.c:123`, the word in the client's language).
  private static func isLocation(_ line: String) -> Bool {
    guard let sep = line.firstRange(of: ":  ") else { return false }
    let rest = line[sep.upperBound...]
    guard let comma = rest.firstRange(of: ", ") else { return false }
    let place = rest[comma.upperBound...]
    guard let colon = place.lastIndex(of: ":"), place[..<colon].hasSuffix(".c") else { return false }
    let digits = place[place.index(after: colon)...]
    return !digits.isEmpty && digits.allSatisfy { $0.isASCII && $0.isNumber }
  }
}

extension String {
  fileprivate func trimmingCharacters() -> String { String(Substring(self).trimmingSpaces) }
}
