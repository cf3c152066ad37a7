import Foundation
import JSONCore
import TestSupport
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

/// `modelstore upgrade` killed on a format-1 file of 60,000 objects and 20,000 history
/// transactions: each time the file is either still the format-1 file with all its rows,
/// or the upgraded one with all of them; the next upgrade finishes; a backup, when there
/// is one, is a whole copy of the format-1 file. Two kill points are exact (inside the
/// upgrade's transaction, and after its commit); more kills at moments spread over a run
/// land wherever the machine's speed puts them and are checked for consistency only.
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

  private func upgrade(_ path: String, stdout: Pipe? = nil, fileSizeLimit: Int? = nil) throws -> Process {
    let p = Process()
    if let fileSizeLimit {
      // The limit on the size of any file the process writes (RLIMIT_FSIZE): a write past it
      // ends the process with SIGXFSZ, as suddenly as SIGKILL, at that very write.
      p.executableURL = URL(fileURLWithPath: "/bin/sh")
      p.arguments = [
        "-c", "ulimit -f \(fileSizeLimit / 512) && exec \"$0\" \"$@\"", ServerProcess.binaryURL.path, "upgrade", "--store", path,
      ]
    } else {
      p.executableURL = ServerProcess.binaryURL
      p.arguments = ["upgrade", "--store", path]
    }
    p.standardOutput = stdout ?? FileHandle.nullDevice
    p.standardError = FileHandle.nullDevice
    try p.run()
    return p
  }

  /// A copy of `source` to upgrade (and whatever an earlier run left beside it removed).
  private func copy(_ source: String, _ dir: TemporaryDirectory, _ name: String) throws -> String {
    let path = dir.file(name)
    try? FileManager.default.removeItem(atPath: path)
    try? FileManager.default.removeItem(atPath: path + ".format1-backup")
    try FileManager.default.copyItem(atPath: source, toPath: path)
    return path
  }

  /// Checks the file an interrupted upgrade left: one format or the other, whole; a backup,
  /// when there is one, is the whole format-1 file; the next upgrade finishes. Returns the
  /// format version found.
  @discardableResult
  private func checkAfterKill(_ path: String, _ label: String, expected: String) throws -> String {
    let v = try version(path)
    XCTAssertTrue(v == "1" || v == "2", "\(label): formatVersion \(v)")
    XCTAssertEqual(try summary(path), expected, "\(label) (formatVersion \(v))")
    XCTAssertEqual(try sqlite3(path, "PRAGMA integrity_check").stdout, "ok", label)
    let backup = path + ".format1-backup"
    if FileManager.default.fileExists(atPath: backup) {
      XCTAssertEqual(try version(backup), "1")
      XCTAssertEqual(try summary(backup), expected, "the backup, \(label)")
    }
    let again = try upgrade(path)
    again.waitUntilExit()
    XCTAssertEqual(again.terminationStatus, 0)
    XCTAssertEqual(try version(path), "2")
    XCTAssertEqual(try summary(path), expected)
    XCTAssertTrue(FileManager.default.fileExists(atPath: backup))
    return v
  }

  /// Killed inside its transaction, after it wrote megabytes of the rebuilt tables: the
  /// format-1 file, whole. The kill point is exact: the backup exists already (so the
  /// upgrade writes no file before its transaction), and the process may write no file
  /// beyond 1 MiB, so it ends at its first write past that into the WAL (or a temporary
  /// file of the transaction), long before the commit.
  func testDyingInsideTheTransactionLeavesTheOldFile() throws {
    let dir = try TemporaryDirectory()
    let source = try bigFormatOneStore(dir)
    let expected = try summary(source)
    let path = try copy(source, dir, "inside.store")
    try FileManager.default.copyItem(atPath: source, toPath: path + ".format1-backup")
    let p = try upgrade(path, fileSizeLimit: 1 << 20)
    p.waitUntilExit()
    XCTAssertEqual(
      p.terminationReason, .uncaughtSignal, "the upgrade ended by itself (status \(p.terminationStatus)): the limit was never reached")
    XCTAssertEqual(p.terminationStatus, SIGXFSZ)
    XCTAssertEqual(try checkAfterKill(path, "killed inside the transaction", expected: expected), "1")
  }

  /// Killed after its commit, while it writes what it did to a stdout pipe the test keeps
  /// full (the process waits in that write, seen in /proc/PID/syscall): the new file, whole.
  func testSIGKILLAfterTheCommitLeavesTheNewFile() throws {
    let dir = try TemporaryDirectory()
    let source = try bigFormatOneStore(dir)
    let expected = try summary(source)
    let path = try copy(source, dir, "after.store")
    let out = Pipe()
    _ = fcntl(out.fileHandleForWriting.fileDescriptor, 1031, 4096)  // F_SETPIPE_SZ: one page
    let capacity = Int(fcntl(out.fileHandleForWriting.fileDescriptor, 1032))  // F_GETPIPE_SZ
    guard capacity > 0 else { return XCTFail("cannot read the pipe's capacity") }
    try out.fileHandleForWriting.write(contentsOf: Data(repeating: 0x2E, count: capacity))
    let p = try upgrade(path, stdout: out)
    let deadline = Date().addingTimeInterval(300)  // a bound for failures only
    while true {
      let call = (try? String(contentsOfFile: "/proc/\(p.processIdentifier)/syscall", encoding: .utf8)) ?? ""
      // write(2) (syscall 1 on x86-64, 64 on arm64) on descriptor 1.
      let fields = call.split(separator: " ")
      if fields.count > 1, fields[0] == "1" || fields[0] == "64", fields[1] == "0x1" { break }
      guard p.isRunning, Date() < deadline else { return XCTFail("the upgrade never waited writing its report (\(call))") }
      usleep(2_000)
    }
    kill(p.processIdentifier, SIGKILL)
    p.waitUntilExit()
    XCTAssertEqual(try checkAfterKill(path, "killed after the commit", expected: expected), "2")
  }

  /// SIGKILLs at moments spread over a run: wherever each lands (the machine's speed
  /// decides), the file is one format or the other, whole. That both are reached is the
  /// two tests above.
  func testSIGKILLAtAnyPointLeavesTheOldFileOrTheNewOne() throws {
    let dir = try TemporaryDirectory()
    let source = try bigFormatOneStore(dir)
    let expected = try summary(source)
    var outcomes: [String] = []
    for (i, delay) in [0, 15, 60, 150, 320, 650, 1300].enumerated() {
      let path = try copy(source, dir, "copy\(i).store")
      let p = try upgrade(path)
      usleep(useconds_t(delay * 1000))
      kill(p.processIdentifier, SIGKILL)
      p.waitUntilExit()
      outcomes.append("\(delay) ms: v\(try checkAfterKill(path, "after \(delay) ms", expected: expected))")
    }
    print("format upgrade killed: \(outcomes.joined(separator: ", "))")
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
