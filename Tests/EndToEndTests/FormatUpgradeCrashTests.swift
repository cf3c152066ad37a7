import Foundation
import JSONCore
import TestSupport
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

/// `modelstore upgrade` killed with SIGKILL at many points of its work on a format-1 file
/// of 60,000 objects and 20,000 history transactions: each time the file is either still
/// the format-1 file with all its rows, or the upgraded one with all of them; the next
/// upgrade finishes; a backup, when there is one, is a whole copy of the format-1 file.
final class FormatUpgradeCrashTests: XCTestCase {
  static let fixture = ServerProcess.repositoryRoot.appendingPathComponent("Tests/Fixtures/Format1/seeds.store").path
  static let added = 60_000

  override func setUpWithError() throws { try TestEngine.requireSQLite("format-1 stores are SQLite files") }

  /// The fixture grown in its own (format-1) layout with the sqlite3 shell.
  private func bigFormatOneStore(_ dir: TemporaryDirectory) throws -> String {
    guard hasSQLite3CLI else { throw XCTSkip("the sqlite3 shell is not installed at \(sqlite3CLI.path)") }
    guard FileManager.default.fileExists(atPath: Self.fixture) else { throw XCTSkip("fixture \(Self.fixture) is missing") }
    let path = dir.file("source.store")
    try FileManager.default.copyItem(atPath: Self.fixture, toPath: path)
    let r = try sqlite3(
      path,
      """
      WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < \(Self.added))
      INSERT INTO "Task" ("_ent", "_opt", "id", "title", "isCompleted", "createdAt", "priority", "category")
      SELECT 'Task', 1, printf('%08X-0000-4000-8000-%012X', x, x), 'bulk ' || x, x % 2, 1767225600.0 + x, x % 3, 1 + x % 2 FROM c;
      WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 20000)
      INSERT INTO "_ms_history" ("timestamp", "author", "changes")
      SELECT 1767225600.0 + x, 'load', '[{"op":"insert","entity":"Task","pks":[[' || (100 + x) || ',' || (100 + x) || ']]}]' FROM c;
      PRAGMA wal_checkpoint(TRUNCATE);
      """)
    XCTAssertEqual(r.status, 0, r.stderr)
    return path
  }

  /// What both formats must agree on: object count, distinct uuids, a sum over titles and
  /// dates, one object's uuid as text, and the history.
  private func summary(_ path: String) throws -> String {
    let version = try sqlite3(path, "SELECT value FROM _ms_meta WHERE key = 'formatVersion'").stdout
    let uuid =
      version == "1"
      ? "id"
      : "substr(hex(id), 1, 8) || '-' || substr(hex(id), 9, 4) || '-' || substr(hex(id), 13, 4) || '-' || substr(hex(id), 17, 4) || '-' || substr(hex(id), 21, 12)"
    let r = try sqlite3(
      path,
      """
      SELECT count(*), count(DISTINCT id), sum(length(title)), total(createdAt), sum(priority), sum(category) FROM Task;
      SELECT \(uuid) FROM Task WHERE _pk = 500;
      SELECT count(*), max(token) FROM _ms_history;
      """)
    XCTAssertEqual(r.status, 0, r.stderr)
    return r.stdout
  }

  private func version(_ path: String) throws -> String {
    try sqlite3(path, "SELECT value FROM _ms_meta WHERE key = 'formatVersion'").stdout
  }

  private func upgrade(_ path: String) throws -> Process {
    let p = Process()
    p.executableURL = ServerProcess.binaryURL
    p.arguments = ["upgrade", "--store", path]
    p.standardOutput = FileHandle.nullDevice
    p.standardError = FileHandle.nullDevice
    try p.run()
    return p
  }

  func testSIGKILLAtAnyPointLeavesTheOldFileOrTheNewOne() throws {
    let dir = try TemporaryDirectory()
    let source = try bigFormatOneStore(dir)
    let expected = try summary(source)
    var outcomes: [String] = []
    for (i, delay) in [0, 5, 15, 30, 60, 100, 150, 220, 320, 450, 650, 900, 1300].enumerated() {
      let path = dir.file("copy\(i).store")
      try FileManager.default.copyItem(atPath: source, toPath: path)
      let p = try upgrade(path)
      usleep(useconds_t(delay * 1000))
      kill(p.processIdentifier, SIGKILL)
      p.waitUntilExit()
      // Whatever the kill interrupted, the file reads as one format or the other, whole.
      let v = try version(path)
      XCTAssertTrue(v == "1" || v == "2", "after \(delay) ms: formatVersion \(v)")
      XCTAssertEqual(try summary(path), expected, "after \(delay) ms (formatVersion \(v))")
      XCTAssertEqual(try sqlite3(path, "PRAGMA integrity_check").stdout, "ok", "after \(delay) ms")
      let backup = path + ".format1-backup"
      let hadBackup = FileManager.default.fileExists(atPath: backup)
      if hadBackup {
        XCTAssertEqual(try version(backup), "1")
        XCTAssertEqual(try summary(backup), expected, "the backup after \(delay) ms")
      }
      outcomes.append("\(delay) ms: v\(v)\(hadBackup ? " + backup" : "")")
      // The next upgrade finishes.
      let again = try upgrade(path)
      again.waitUntilExit()
      XCTAssertEqual(again.terminationStatus, 0)
      XCTAssertEqual(try version(path), "2")
      XCTAssertEqual(try summary(path), expected)
      XCTAssertTrue(FileManager.default.fileExists(atPath: backup))
      try? FileManager.default.removeItem(atPath: path)
      try? FileManager.default.removeItem(atPath: backup)
    }
    print("format upgrade killed: \(outcomes.joined(separator: ", "))")
    XCTAssertTrue(outcomes.contains { $0.contains("v1") }, "some kills came before the upgrade committed: \(outcomes)")
  }

  /// Two processes upgrading one file at once: the first to take the write lock upgrades
  /// it, the other finds formatVersion 2 under the lock; one backup, every row once.
  func testTwoProcessesUpgradingAtOnceUpgradeOnce() throws {
    let dir = try TemporaryDirectory()
    let source = try bigFormatOneStore(dir)
    let expected = try summary(source)
    let outputs = [Pipe(), Pipe()]
    let processes = try outputs.map { out -> Process in
      let p = Process()
      p.executableURL = ServerProcess.binaryURL
      p.arguments = ["upgrade", "--store", source]
      p.standardOutput = out
      p.standardError = FileHandle.nullDevice
      try p.run()
      return p
    }
    for p in processes { p.waitUntilExit() }
    XCTAssertEqual(processes.map(\.terminationStatus), [0, 0])
    let said = outputs.map { String(decoding: $0.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) }
    XCTAssertEqual(said.filter { $0.hasPrefix("upgraded ") }.count, 1, "\(said)")
    XCTAssertEqual(said.filter { $0.contains("nothing to do") }.count, 1, "\(said)")
    XCTAssertEqual(try version(source), "2")
    XCTAssertEqual(try summary(source), expected)
    XCTAssertEqual(try version(source + ".format1-backup"), "1")
    XCTAssertEqual(dir.listing().filter { $0.contains("partial") }, [], "no partial backup left")
  }

  func testServeUpgradesAFormatOneFileAndReadOnlyIsRefused() throws {
    let dir = try TemporaryDirectory()
    let path = dir.file("s.store")
    try FileManager.default.copyItem(atPath: Self.fixture, toPath: path)
    let readOnly = try ServerProcess(arguments: ["serve", "--store", path, "--read-only"])
    readOnly.closeInput()
    XCTAssertNotEqual(readOnly.waitForExit(), 0)
    let said = readOnly.stderrAtEnd()
    XCTAssertTrue(said.contains("modelstore upgrade --store PATH"), said)
    let server = try ServerProcess(arguments: ["serve", "--store", path])
    XCTAssertEqual(try server.call("store.info")["formatVersion"], 2)
    let hit = try server.call("query.fetch", ["entity": "Task", "where": "id == '00000000-0000-4000-8000-000000000001'"])
    XCTAssertEqual(hit["objects"]?.arrayValue?.first?["title"], "task 0")
    XCTAssertEqual(try server.call("objects.insert", ["entity": "Task", "values": ["title": "new"]])["_id"], "Task/14")
  }
}
