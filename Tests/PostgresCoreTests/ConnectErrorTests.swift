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
