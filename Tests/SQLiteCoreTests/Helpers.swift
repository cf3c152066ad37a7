import TestSupport
import XCTest

@testable import SQLiteCore

/// A fresh in-memory connection.
func memoryDB(file: StaticString = #filePath, line: UInt = #line) throws -> Connection {
  try Connection(path: ":memory:")
}

/// A unique path in a fresh temporary directory, removed when the test case ends.
func temporaryPath(_ test: XCTestCase, _ name: String = "db.sqlite") -> String {
  temporaryFile(name, label: "sqlitecore-test", removedAfter: test)
}

/// All values of the first column of `sql`.
func column(_ db: Connection, _ sql: String, _ args: [SQLValue] = []) throws -> [SQLValue] {
  var out: [SQLValue] = []
  try db.prepare(sql).forEachRow(args) { out.append($0.value(0)) }
  return out
}

/// Expects an SQLiteError from `body` and returns it.
func sqliteError<T>(_ body: () throws -> T, file: StaticString = #filePath, line: UInt = #line) -> SQLiteError? {
  expectError(SQLiteError.self, body, file: file, line: line)
}
