import TestSupport
import XCTest

@testable import PostgresCore

/// A connection to a fresh schema of the test cluster (created here, dropped with `schema`).
func freshConnection(
  _ schema: PostgresTestSchema, options: PostgresConnection.Options = PostgresConnection.Options()
) throws -> PostgresConnection {
  let admin = try PostgresConnection(url: PostgresURL(schema.storeURL))
  try admin.execute("CREATE SCHEMA IF NOT EXISTS \"\(schema.name)\"")
  admin.close()
  return try PostgresConnection(url: PostgresURL(schema.storeURL), options: options)
}

/// The `PostgresError` `body` throws (a test failure when it throws nothing or another error).
func postgresError<T>(_ body: () throws -> T, file: StaticString = #filePath, line: UInt = #line) -> PostgresError? {
  expectError(PostgresError.self, body, file: file, line: line)
}

/// The round trips to the server `body` costs on `db`.
func roundTrips(_ db: PostgresConnection, _ body: () throws -> Void) rethrows -> Int {
  let before = db.roundTrips
  try body()
  return db.roundTrips - before
}
