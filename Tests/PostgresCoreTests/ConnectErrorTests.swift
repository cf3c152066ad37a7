import Foundation
import TestSupport
import XCTest

@testable import PostgresCore

/// Connecting fails with the reason told apart, and never with a password in the message.
final class ConnectErrorTests: XCTestCase {
  private func failure(_ url: String, file: StaticString = #filePath, line: UInt = #line) throws -> PostgresError? {
    let parsed = try PostgresURL(url)
    return postgresError({ try PostgresConnection(url: parsed) }, file: file, line: line)
  }

  func testAServerThatIsNotThereIsUnreachable() throws {
    let e = try failure("postgresql:///postgres?host=/nonexistent-modelstore-socket-dir")
    XCTAssertEqual(e?.connectFailure, .unreachable)
    XCTAssertTrue(e?.message.contains("/nonexistent-modelstore-socket-dir") ?? false, e?.message ?? "")
    XCTAssertEqual(e?.isConnectionFailure, true)
    // A TCP port nobody listens on.
    XCTAssertEqual(try failure("postgresql://127.0.0.1:1/postgres")?.connectFailure, .unreachable)
  }

  func testAWrongOrMissingPasswordIsAnAuthenticationFailure() throws {
    let cluster = try PostgresTestCluster.requireURL()
    let wrong = try failure(PostgresTestCluster.adding("user=ms_password_user&password=not-the-one", to: cluster))
    XCTAssertEqual(wrong?.connectFailure, .authentication)
    XCTAssertEqual(wrong?.sqlState, "28P01")
    XCTAssertTrue(wrong?.message.contains("password authentication failed") ?? false, wrong?.message ?? "")
    XCTAssertFalse(wrong?.message.contains("not-the-one") ?? true)
    let none = try failure(PostgresTestCluster.adding("user=ms_password_user", to: cluster))
    XCTAssertEqual(none?.connectFailure, .authentication, none?.message ?? "")
    let right = try PostgresConnection(
      url: PostgresURL(PostgresTestCluster.adding("user=ms_password_user&password=right-password", to: cluster)))
    XCTAssertEqual(try right.scalar("SELECT current_user"), .text("ms_password_user"))
    XCTAssertFalse(right.path.contains("right-password"), right.path)
  }

  func testAMissingDatabaseIsNamed() throws {
    let cluster = try PostgresTestCluster.requireURL()
    let db = try PostgresConnection(url: PostgresURL(cluster))
    guard case .text(let socket)? = try db.scalar("SHOW unix_socket_directories") else { return XCTFail("no socket folder") }
    let e = try failure("postgresql:///no_such_database_here?host=\(socket)&user=postgres")
    XCTAssertEqual(e?.connectFailure, .noDatabase, e?.message ?? "")
    XCTAssertEqual(e?.sqlState, "3D000")
    XCTAssertTrue(e?.message.contains("no_such_database_here") ?? false)
  }

  /// An unknown role and a `pg_hba.conf` rule that turns the role away are SQLSTATE 28000
  /// (`invalid_authorization_specification`), told apart by the code, not the message.
  func testAnUnknownOrRejectedRoleIsAnAuthenticationFailure() throws {
    let cluster = try PostgresTestCluster.requireURL()
    for user in ["ms_no_such_role_here", "ms_rejected_user"] {
      let e = try failure(PostgresTestCluster.adding("user=\(user)", to: cluster))
      XCTAssertEqual(e?.connectFailure, .authentication, e?.message ?? "")
      XCTAssertEqual(e?.sqlState, "28000", e?.message ?? "")
      XCTAssertTrue(e?.message.contains(user) ?? false, e?.message ?? "")
      XCTAssertFalse(e?.message.contains("LOCATION") ?? true, "verbose mode's source location is not shown: \(e?.message ?? "")")
    }
  }

  /// libpq's messages in another language (its German catalogue, chosen by `LANGUAGE`)
  /// change nothing in how failures are told apart: the kinds come from SQLSTATEs and
  /// libpq's status, never from the text.
  func testATranslatedLibpqTellsFailuresApartTheSameWay() throws {
    let cluster = try PostgresTestCluster.requireURL()
    let db = try PostgresConnection(url: PostgresURL(cluster))
    guard case .text(let socket)? = try db.scalar("SHOW unix_socket_directories") else { return XCTFail("no socket folder") }
    let savedLocale = setlocale(LC_MESSAGES, nil).map { String(cString: $0) } ?? "C"
    let savedLanguage = ProcessInfo.processInfo.environment["LANGUAGE"]
    defer {
      if let savedLanguage { setenv("LANGUAGE", savedLanguage, 1) } else { unsetenv("LANGUAGE") }
      setlocale(LC_MESSAGES, savedLocale)
    }
    setenv("LANGUAGE", "de", 1)
    guard setlocale(LC_MESSAGES, "C.UTF-8") != nil else { throw XCTSkip("no C.UTF-8 locale to translate libpq's messages with") }
    let unreachable = try failure("postgresql:///postgres?host=/nonexistent-modelstore-socket-dir")
    guard let text = unreachable?.message, !text.contains("No such file or directory") else {
      throw XCTSkip("libpq's German messages are not installed (/usr/share/locale/de/LC_MESSAGES/libpq5-*.mo)")
    }
    XCTAssertEqual(unreachable?.connectFailure, .unreachable, text)
    let missing = try failure("postgresql:///no_such_database_here?host=\(socket)&user=postgres")
    XCTAssertEqual(missing?.connectFailure, .noDatabase, missing?.message ?? "")
    let wrong = try failure(PostgresTestCluster.adding("user=ms_password_user&password=not-the-one", to: cluster))
    XCTAssertEqual(wrong?.connectFailure, .authentication, wrong?.message ?? "")
    XCTAssertEqual(wrong?.sqlState, "28P01")
    let none = try failure(PostgresTestCluster.adding("user=ms_password_user", to: cluster))
    XCTAssertEqual(none?.connectFailure, .authentication, none?.message ?? "")
  }

  /// A server that accepts the connection and never answers: the attempt gives up after
  /// `connect_timeout` (polled by the connection itself) as unreachable.
  func testAServerThatNeverAnswersTimesOut() throws {
    let dir = try TemporaryDirectory("pg-silent")
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    XCTAssertGreaterThanOrEqual(fd, 0)
    defer { close(fd) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let path = Array(dir.file(".s.PGSQL.5432").utf8CString)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      for (i, c) in path.prefix(raw.count - 1).enumerated() { raw[i] = UInt8(bitPattern: c) }
    }
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    XCTAssertEqual(bound, 0)
    XCTAssertEqual(listen(fd, 4), 0)
    let started = Date()
    let e = try failure("postgresql:///postgres?host=\(dir.path)&connect_timeout=2")
    XCTAssertEqual(e?.connectFailure, .unreachable, e?.message ?? "")
    XCTAssertTrue(e?.message.contains("timeout") ?? false, e?.message ?? "")
    XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 1.5)
  }

  /// The parts of a verbose message: the code after the severity, the message without it
  /// and without the location line, whatever the language of the words around them.
  func testAVerboseMessageGivesItsCode() {
    let german = """
      Verbindung zum Server auf Socket »/tmp/x/.s.PGSQL.5432« fehlgeschlagen: FATAL:  3D000: Datenbank »nope« existiert nicht
      ORT:  InitPostgres, postinit.c:948

      """
    let (code, message) = ConnectMessage.split(german)
    XCTAssertEqual(code, "3D000")
    XCTAssertEqual(
      message, "Verbindung zum Server auf Socket »/tmp/x/.s.PGSQL.5432« fehlgeschlagen: FATAL:  Datenbank »nope« existiert nicht")
    XCTAssertNil(ConnectMessage.split("connection to server on socket \"/tmp/y\" failed: No such file or directory").sqlState)
  }

  func testEnvironmentVariablesAndServiceFilesFillInTheRest() throws {
    let cluster = try PostgresTestCluster.requireURL()
    let db = try PostgresConnection(url: PostgresURL(cluster))
    guard case .text(let socket)? = try db.scalar("SHOW unix_socket_directories") else { return XCTFail("no socket folder") }
    let saved = ["PGHOST", "PGUSER", "PGDATABASE", "PGSERVICEFILE"].map { name in (name, ProcessInfo.processInfo.environment[name]) }
    defer { for (k, v) in saved { if let v { setenv(k, v, 1) } else { unsetenv(k) } } }
    setenv("PGHOST", socket, 1)
    setenv("PGUSER", "postgres", 1)
    setenv("PGDATABASE", "postgres", 1)
    let fromEnvironment = try PostgresConnection(url: PostgresURL("postgresql://?schema=env_test"))
    XCTAssertEqual(try fromEnvironment.scalar("SELECT current_database()"), .text("postgres"))
    XCTAssertEqual(try fromEnvironment.scalar("SELECT current_schemas(false)::text"), .text("{}"), "the schema does not exist yet")
    XCTAssertEqual(try fromEnvironment.scalar("SHOW search_path"), .text("env_test"))
    unsetenv("PGHOST")
    let dir = try TemporaryDirectory("pg-service")
    let file = dir.file("pg_service.conf")
    try "[shop]\nhost=\(socket)\nuser=postgres\ndbname=postgres\n".write(toFile: file, atomically: true, encoding: .utf8)
    setenv("PGSERVICEFILE", file, 1)
    let fromService = try PostgresConnection(url: PostgresURL("postgresql:service=shop schema=svc"))
    XCTAssertEqual(try fromService.scalar("SELECT 1"), .integer(1))
    XCTAssertEqual(fromService.schema, "svc")
  }
}
