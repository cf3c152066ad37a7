import Foundation
import JSONCore
import TestSupport
import XCTest

/// The command line: help, version, bad arguments, stdout hygiene, start-up time.
final class CommandLineTests: XCTestCase {
  func testHelpAndVersion() throws {
    try TestEngine.storeIndependent("help and version")
    for args in [["--help"], ["-h"], ["help"], ["serve", "--help"]] {
      let r = try runModelstore(args)
      XCTAssertEqual(r.status, 0, "\(args): \(r.stderr)")
      XCTAssertFalse(r.signalled)
      XCTAssertTrue(r.stdout.contains("USAGE"), "\(args) printed: \(r.stdout)")
      XCTAssertTrue(r.stdout.contains("modelstore serve"), "\(args)")
      XCTAssertTrue(r.stdout.contains("--max-message-bytes"), "\(args)")
      XCTAssertEqual(r.stderr, "", "\(args)")
    }
    let server = try ServerProcess()
    let version = try XCTUnwrap(try server.call("initialize")["serverInfo"]?["version"]?.stringValue)
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0)
    for args in [["--version"], ["-V"]] {
      let r = try runModelstore(args)
      XCTAssertEqual(r.status, 0, "\(args)")
      XCTAssertEqual(r.stdout, "modelstore \(version)\n")
      XCTAssertEqual(r.stderr, "")
    }
  }

  func testBadArgumentsExitTwoWithAMessageOnStderr() throws {
    try TestEngine.storeIndependent("arguments refused before any store is opened")
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let cases: [([String], String)] = [
      (["serve", "--bogus"], "--bogus"),
      (["frobnicate"], "frobnicate"),
      (["serve", "--store"], "--store"),
      (["serve", "--max-message-bytes", "lots"], "--max-message-bytes"),
      (["serve", "--max-message-bytes", "10"], "--max-message-bytes"),
      (["serve", "--max-depth", "1"], "--max-depth"),
      (["serve", "--log-level", "loud"], "loud"),
      (["serve", "--store", dir.file("x.store"), "--memory"], "--memory"),
      (["serve", "--memory", "--read-only"], "read-only"),
      (["serve", "--read-only"], "read-only"),
    ]
    for (args, word) in cases {
      let r = try runModelstore(args, input: requestLine(1, "initialize") + "\n")
      XCTAssertEqual(r.status, 2, "\(args): \(r.stderr)")
      XCTAssertFalse(r.signalled)
      XCTAssertEqual(r.stdout, "", "\(args) wrote to stdout")
      XCTAssertTrue(r.stderr.contains(word), "\(args): stderr lacks '\(word)': \(r.stderr)")
    }
    XCTAssertEqual(dir.listing(), [], "a refused command created files")
    // No command at all: usage, and a failure status.
    let bare = try runModelstore([])
    XCTAssertEqual(bare.status, 2)
    XCTAssertTrue((bare.stdout + bare.stderr).contains("USAGE"))
  }

  /// With every log level on, stdout still carries nothing but JSON-RPC messages; the
  /// logs go to stderr.
  func testStdoutCarriesOnlyProtocolMessages() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let server = try ServerProcess(arguments: ["serve", "--store", dir.store("log.store"), "--log-level", "debug"])
    var lines: [String] = [
      requestLine(1, "initialize", ["clientInfo": ["name": "e2e"]]),
      requestLine(2, "model.define", ["schema": itemSchema]),
      requestLine(3, "objects.insert", ["entity": "Item", "values": ["title": "a"]]),
      requestLine(4, "objects.insert", ["entity": "Nope", "values": [:]]),
      requestLine(5, "no.such.method"),
      notificationLine("no.such.notification"),
      notificationLine("$/cancelRequest", ["id": 99]),
      notificationLine("objects.insert", ["entity": "Item", "values": ["title": 5]]),
      #"{"jsonrpc":"2.0","id":6,"result":null}"#,
      "not json at all",
      "[" + requestLine(7, "store.info") + "," + requestLine(8, "query.count", ["entity": "Item"]) + "]",
      requestLine(9, "transaction.begin"),
      requestLine(10, "transaction.rollback"),
      requestLine(11, "store.check"),
      requestLine(12, "store.backup", ["to": .string(dir.file("log-copy.store"))]),
      requestLine(13, "shutdown"),
    ]
    lines.append(notificationLine("exit"))
    server.sendRaw(Data((lines.joined(separator: "\n") + "\n").utf8))
    let out = server.readToEnd(timeout: 20)
    XCTAssertEqual(server.waitForExit(), 0)
    let stdoutLines = String(decoding: out, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
    XCTAssertEqual(stdoutLines.last, "", "stdout must end with a newline")
    var ids: [JSONValue] = []
    for line in stdoutLines.dropLast() {
      guard let value = try? JSONParser.parse(String(line)) else {
        XCTFail("stdout line is not JSON: \(line.prefix(200))")
        continue
      }
      for message in value.arrayValue ?? [value] {
        XCTAssertEqual(message["jsonrpc"], "2.0", "\(message)")
        let isReply = message["id"] != nil && (message["result"] != nil) != (message["error"] != nil)
        let isNotification = message["id"] == nil && message["method"]?.stringValue != nil
        XCTAssertTrue(isReply || isNotification, "not a JSON-RPC message: \(message)")
        if let id = message["id"] { ids.append(id) }
      }
    }
    // Every request answered once, in order; the parse error carries id null.
    XCTAssertEqual(ids, [1, 2, 3, 4, 5, .null, 7, 8, 9, 10, 11, 12, 13])
    let stderr = server.stderrAtEnd()
    let logLines = stderr.split(separator: "\n")
    XCTAssertFalse(logLines.isEmpty, "--log-level debug logged nothing")
    for l in logLines { XCTAssertTrue(l.hasPrefix("modelstore["), "unexpected stderr line: \(l)") }
    XCTAssertTrue(stderr.contains(" debug: ") || stderr.contains(" info: "), stderr)
  }

  /// Spawn to `initialize` reply, 20 times; the median is printed. What fails is a hang or a
  /// start that works for long: the CPU time the server used up to its reply (which waiting
  /// for the processor on a busy machine does not grow), median under 0.5 s.
  func testStartupTime() throws {
    var times: [TimeInterval] = []
    var cpu: [TimeInterval] = []
    for _ in 0..<20 {
      let start = Date()
      let server = try ServerProcess()
      let reply = try server.request("initialize", timeout: 60)
      times.append(Date().timeIntervalSince(start))
      cpu.append(try XCTUnwrap(server.cpuSeconds, "cannot read the server's CPU time"))
      XCTAssertNotNil(reply["result"])
      server.closeInput()
      XCTAssertEqual(server.waitForExit(), 0)
    }
    times.sort()
    cpu.sort()
    let median = (times[9] + times[10]) / 2
    let cpuMedian = (cpu[9] + cpu[10]) / 2
    print(
      String(
        format: "CommandLineTests: spawn to initialize reply over 20 runs: median %.1f ms, min %.1f ms, max %.1f ms; CPU median %.1f ms",
        median * 1000, times[0] * 1000, times[19] * 1000, cpuMedian * 1000))
    XCTAssertLessThan(cpuMedian, 0.5)
  }
}
