import Foundation
import JSONCore
import TestSupport
import XCTest

/// Storage format 2 across processes: two servers on one file never hand out a key twice
/// (the largest committed key is in `_ms_keys`, not in either process), uuids travel as
/// text, and a format-1 file is refused untouched.
final class StorageFormatProcessTests: XCTestCase {
  private var dir: TemporaryDirectory!
  override func setUpWithError() throws { dir = try TemporaryDirectory() }
  override func tearDown() { dir.remove() }

  private let noteSchema: JSONValue = schema(entity("Note", [attr("text", "string"), attr("key", "uuid", unique: true)]))

  private func insert(_ server: ServerProcess, _ text: String, key: String = UUID().uuidString) throws -> String {
    let o = try server.call("objects.insert", ["entity": "Note", "values": ["text": .string(text), "key": .string(key)]])
    return o["_id"]?.stringValue ?? ""
  }

  func testTwoServersOnOneFileNeverReuseAKey() throws {
    let path = try dir.store("shared.store")
    let a = try ServerProcess(arguments: ["serve", "--store", path])
    _ = try a.call("model.define", ["schema": noteSchema])
    let b = try ServerProcess(arguments: ["serve", "--store", path])
    XCTAssertEqual(try insert(a, "one"), "Note/1", "keys in a fresh store start at 1")
    XCTAssertEqual(try insert(a, "two"), "Note/2")
    XCTAssertEqual(try insert(b, "three"), "Note/3")
    // B deletes the newest object and commits; neither process may hand its key out again.
    _ = try b.call("objects.delete", ["id": "Note/3"])
    XCTAssertEqual(try insert(a, "four"), "Note/4")
    _ = try a.call("objects.delete", ["id": "Note/4"])
    XCTAssertEqual(try insert(b, "five"), "Note/5")
    // A client transaction that rolls back commits nothing, so the other process may take
    // the key it had reported; one that commits raises the maximum for both.
    _ = try a.call("transaction.begin")
    XCTAssertEqual(try insert(a, "undone"), "Note/6")
    _ = try a.call("transaction.rollback")
    XCTAssertEqual(try insert(b, "six"), "Note/6")
    _ = try b.call("transaction.begin")
    XCTAssertEqual(try insert(b, "seven"), "Note/7")
    _ = try b.call("objects.delete", ["id": "Note/7"])
    _ = try b.call("transaction.commit")
    XCTAssertEqual(try insert(a, "eight"), "Note/8")
    let ids = try a.call("query.ids", ["entity": "Note"])["ids"]
    XCTAssertEqual(ids, ["Note/1", "Note/2", "Note/5", "Note/6", "Note/8"])
    for s in [a, b] {
      s.closeInput()
      XCTAssertEqual(s.waitForExit(), 0, s.stderr)
    }
    XCTAssertEqual(try dir.sql("shared.store", "SELECT \"name\" || '=' || \"max\" FROM \"_ms_keys\";"), "Note=8")
  }

  func testUUIDsAreTextOnTheWireAndBytesInTheFile() throws {
    let path = try dir.store("uuids.store")
    let server = try ServerProcess(arguments: ["serve", "--store", path])
    _ = try server.call("model.define", ["schema": noteSchema])
    let key = "6ba7b810-9dad-41d1-80b4-00c04fd430c8"
    _ = try insert(server, "x", key: key)
    let got = try server.call("objects.get", ["id": "Note/1"])
    XCTAssertEqual(got["key"], .string(key.uppercased()))
    let found = try server.call("query.ids", ["entity": "Note", "where": "key == %@", "args": [.string(key)]])
    XCTAssertEqual(found["ids"], ["Note/1"])
    XCTAssertEqual(try server.call("store.info")["formatVersion"], 2)
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0, server.stderr)
    if TestEngine.isPostgres {
      // PostgreSQL's own uuid type (16 bytes).
      let stored = try dir.sql(
        "uuids.store", "SELECT pg_typeof(\"key\")::text || ' ' || upper(replace(\"key\"::text, '-', '')) FROM \"Note\";")
      XCTAssertEqual(stored, "uuid 6BA7B8109DAD41D180B400C04FD430C8")
    } else {
      let stored = try dir.sql(
        "uuids.store", "SELECT typeof(\"key\") || ' ' || length(\"key\") || ' ' || hex(\"key\") FROM \"Note\";")
      XCTAssertEqual(stored, "blob 16 6BA7B8109DAD41D180B400C04FD430C8")
    }
  }

  /// Opened read-only, a format-1 file cannot be upgraded: it is refused and not touched
  /// (FormatUpgradeCrashTests covers the upgrade of a file opened for writing).
  func testFormatOneFileOpenedReadOnlyIsRefusedUntouched() throws {
    try TestEngine.requireSQLite("format-1 stores are SQLite files")
    try XCTSkipUnless(hasSQLite3CLI, "needs /usr/bin/sqlite3")
    let path = dir.file("old.store")
    let made = try sqlite3(
      path,
      """
      PRAGMA application_id = 1297306703;
      CREATE TABLE "_ms_meta" ("key" TEXT PRIMARY KEY, "value" TEXT NOT NULL);
      INSERT INTO "_ms_meta" VALUES ('format', 'modelstore'), ('formatVersion', '1');
      """)
    XCTAssertEqual(made.status, 0, made.stderr)
    let before = FileManager.default.contents(atPath: path)
    let r = try runModelstore(["serve", "--store", path, "--read-only"], input: requestLine(1, "store.info") + "\n")
    XCTAssertEqual(r.status, 1, r.stderr)  // a store that cannot be opened is a failure, not a usage error
    XCTAssertEqual(r.stdout, "")
    for words in ["formatVersion 1", "modelstore upgrade", path] { XCTAssertTrue(r.stderr.contains(words), r.stderr) }
    let server = try ServerProcess()
    let e = try server.callFailing("store.open", ["path": .string(path), "readOnly": true])
    XCTAssertEqual(e["code"], -32015)
    XCTAssertEqual(e["data"]?["kind"], "formatTooOld")
    XCTAssertEqual(e["data"]?["formatVersion"], 1)
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0)
    XCTAssertEqual(FileManager.default.contents(atPath: path), before, "the refused file was modified")
    XCTAssertEqual(dir.listing(), ["old.store"], "the refused file gained companions")
  }
}
