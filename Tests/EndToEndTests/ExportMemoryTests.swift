import Foundation
import JSONCore
import TestSupport
import XCTest

/// `modelstore export` streams: its peak memory does not grow with the store. Measured as
/// the export process's peak resident set (`wait4`'s `ru_maxrss`, `measuring`) for a store and for the
/// same store with ten times the objects, on either engine (on PostgreSQL the rows are read
/// as they arrive, libpq's single-row mode; held whole, 10x the objects here took about
/// 54 MiB more).
final class ExportMemoryTests: XCTestCase {
  private var dir: TemporaryDirectory!

  override func setUpWithError() throws { dir = try TemporaryDirectory("modelstore-export-memory") }
  override func tearDown() { dir.remove() }

  /// Objects of about 3 KB each: 2,000 of them and then 20,000.
  static let small = 2_000
  static let large = 20_000
  /// The most the peak may grow for 10x the objects (their rows come to about 60 MB).
  static let allowedGrowthKiB = 6 * 1024

  private func insert(_ server: ServerProcess, from: Int, to: Int) throws {
    let body = String(repeating: "0123456789", count: 300)
    for start in stride(from: from, to: to, by: 2_000) {
      let changes: [JSONValue] = (start..<min(start + 2_000, to)).map { i in
        ["op": "insert", "entity": "Item", "values": ["title": .string("\(i) \(body)"), "n": .int(Int64(i))]]
      }
      _ = try server.call("context.save", ["changes": .array(changes)], timeout: 120)
    }
  }

  /// The parent that measures: it forks (from its own small memory: a child spawned from
  /// this test process would count the test's memory as its own at exec), runs the
  /// command there with no input and its output dropped, and prints the exit status and
  /// the child's peak resident memory in KiB (`wait4`'s `ru_maxrss`).
  static let measuring = """
    import os, sys
    pid = os.fork()
    if pid == 0:
        null = os.open("/dev/null", os.O_RDWR)
        os.dup2(null, 0)
        os.dup2(null, 1)
        os.execv(sys.argv[1], sys.argv[1:])
    _, status, usage = os.wait4(pid, 0)
    print(os.waitstatus_to_exitcode(status), usage.ru_maxrss)
    """

  /// Runs `modelstore` with `arguments`: its exit status and peak resident memory in KiB.
  private func peakMemory(_ arguments: [String]) throws -> (status: Int32, kib: Int) {
    let r = try runProgram(
      URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", Self.measuring, ServerProcess.binaryURL.path] + arguments, timeout: 120)
    let fields = r.stdout.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
    guard r.status == 0, fields.count == 2 else {
      XCTFail("the measuring parent failed: \(r.stdout) \(r.stderr)")
      return (-1, 0)
    }
    return (Int32(fields[0]), fields[1])
  }

  private func exportPeak(_ store: String) throws -> Int {
    let out = dir.file("export.ndjson")
    let r = try peakMemory(["export", "--store", store, "--out", out, "--force"])
    if r.status != 0 { XCTFail("export failed: \(try runModelstore(["export", "--store", store, "--out", out, "--force"]).stderr)") }
    return r.kib
  }

  func testAnExportOfTenTimesTheObjectsPeaksNoHigher() throws {
    let store = try dir.store("big.store")
    let server = try ServerProcess(arguments: ["serve", "--store", store])
    _ = try server.call("model.define", ["schema": itemSchema])
    try insert(server, from: 0, to: Self.small)
    let smallPeak = try exportPeak(store)
    try insert(server, from: Self.small, to: Self.large)
    XCTAssertEqual(try server.call("query.count", ["entity": "Item"])["count"], .int(Int64(Self.large)))
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0, server.stderr)
    let largePeak = try exportPeak(store)
    XCTAssertEqual(try String(contentsOfFile: dir.file("export.ndjson"), encoding: .utf8).split(separator: "\n").count, Self.large + 1)
    print("export peak memory: \(smallPeak) KiB for \(Self.small) objects, \(largePeak) KiB for \(Self.large)")
    XCTAssertLessThan(
      largePeak - smallPeak, Self.allowedGrowthKiB,
      "peak memory \(smallPeak) KiB for \(Self.small) objects, \(largePeak) KiB for \(Self.large)")
  }
}
