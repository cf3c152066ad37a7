import TestSupport
import XCTest

@testable import SQLiteCore

#if canImport(Glibc)
  import Glibc
#endif

/// A fresh in-memory connection.
func memoryDB(file: StaticString = #filePath, line: UInt = #line) throws -> Connection {
  try Connection(path: ":memory:")
}

/// A unique path in a fresh temporary directory, removed when the test case ends.
func temporaryPath(_ test: XCTestCase, _ name: String = "db.sqlite") -> String {
  var template = Array("/tmp/sqlitecore-test-XXXXXX".utf8CString)
  let dir = template.withUnsafeMutableBufferPointer { buf -> String in
    guard let p = mkdtemp(buf.baseAddress!) else { return "/tmp" }
    return String(cString: p)
  }
  test.addTeardownBlock {
    _ = try? FileManagerLite.removeTree(dir)
  }
  return dir + "/" + name
}

/// Minimal recursive delete without Foundation.
enum FileManagerLite {
  static func removeTree(_ dir: String) throws {
    guard let d = opendir(dir) else { return }
    while let e = readdir(d) {
      let name = withUnsafePointer(to: e.pointee.d_name) { String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self)) }
      if name == "." || name == ".." { continue }
      unlink(dir + "/" + name)
    }
    closedir(d)
    rmdir(dir)
  }
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
