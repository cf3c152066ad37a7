import Foundation
import JSONCore

/// A fresh folder under the system temporary directory, removed by `remove()` (call it
/// from `tearDown` or a `defer`) or at deinit.
public final class TemporaryDirectory {
  public let url: URL
  public var path: String { url.path }
  /// The PostgreSQL schemas `store(_:)` named, by store name (TestEngine.swift).
  var schemas: [String: PostgresTestSchema] = [:]

  public init(_ label: String = "modelstore-e2e") throws {
    url = FileManager.default.temporaryDirectory.appendingPathComponent("\(label)-\(getpid())-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  deinit { remove() }

  public func remove() {
    try? FileManager.default.removeItem(at: url)
    for s in schemas.values { s.drop() }
    schemas = [:]
  }

  /// The path of `name` inside the folder (not created).
  public func file(_ name: String) -> String { url.appendingPathComponent(name).path }

  public func exists(_ name: String) -> Bool { FileManager.default.fileExists(atPath: file(name)) }

  /// The size of `name` in bytes, nil when it does not exist.
  public func size(_ name: String) -> Int? {
    (try? FileManager.default.attributesOfItem(atPath: file(name)))?[.size] as? Int
  }

  public func listing() -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
  }
}

/// Writing to a child that has exited must fail with EPIPE, not kill the test process.
public func ignoreBrokenPipes() {
  _ = sigpipeIgnored
}
private let sigpipeIgnored: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

/// The outcome of a program run to completion.
public struct RunResult {
  public var status: Int32
  /// True when the program was killed by a signal (crash) instead of exiting.
  public var signalled: Bool
  public var timedOut: Bool
  public var stdout: String
  public var stderr: String
}

/// Runs `executable` with `arguments`, feeding `input` on stdin then closing it, and
/// collects everything it prints. Kills it after `timeout` seconds (`timedOut`).
/// `environment` replaces the inherited environment's variables it names.
public func runProgram(
  _ executable: URL, _ arguments: [String], input: Data = Data(), timeout: TimeInterval = 20, environment: [String: String] = [:]
) throws -> RunResult {
  ignoreBrokenPipes()
  let p = Process()
  p.executableURL = executable
  p.arguments = arguments
  if !environment.isEmpty { p.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
  let inPipe = Pipe(), outPipe = Pipe(), errPipe = Pipe()
  p.standardInput = inPipe
  p.standardOutput = outPipe
  p.standardError = errPipe
  try p.run()
  /// Collects one pipe's bytes on a background thread.
  final class Sink: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    func set(_ d: Data) { lock.lock(); data = d; lock.unlock() }
    var value: Data { lock.lock(); defer { lock.unlock() }; return data }
  }
  let group = DispatchGroup()
  let out = Sink(), err = Sink()
  DispatchQueue.global().async(group: group) { out.set(outPipe.fileHandleForReading.readDataToEndOfFile()) }
  DispatchQueue.global().async(group: group) { err.set(errPipe.fileHandleForReading.readDataToEndOfFile()) }
  DispatchQueue.global().async {
    // The program may exit without reading its input: EPIPE is expected then, not fatal.
    if !input.isEmpty { try? inPipe.fileHandleForWriting.write(contentsOf: input) }
    try? inPipe.fileHandleForWriting.close()
  }
  let deadline = Date().addingTimeInterval(timeout)
  var timedOut = false
  while p.isRunning {
    if Date() > deadline {
      timedOut = true
      p.terminate()
      break
    }
    usleep(5_000)
  }
  p.waitUntilExit()
  _ = group.wait(timeout: .now() + 5)
  return RunResult(
    status: p.terminationStatus, signalled: p.terminationReason == .uncaughtSignal, timedOut: timedOut,
    stdout: String(decoding: out.value, as: UTF8.self), stderr: String(decoding: err.value, as: UTF8.self))
}

/// Runs the built `modelstore` binary to completion.
public func runModelstore(
  _ arguments: [String], input: String = "", timeout: TimeInterval = 20, environment: [String: String] = [:]
) throws -> RunResult {
  try runProgram(ServerProcess.binaryURL, arguments, input: Data(input.utf8), timeout: timeout, environment: environment)
}

/// The sqlite3 command-line shell, when installed.
public let sqlite3CLI = URL(fileURLWithPath: "/usr/bin/sqlite3")
public var hasSQLite3CLI: Bool { FileManager.default.isExecutableFile(atPath: sqlite3CLI.path) }

/// Runs `sql` on `database` with the sqlite3 shell; stdout trimmed.
public func sqlite3(_ database: String, _ sql: String, readOnly: Bool = false) throws -> RunResult {
  var r = try runProgram(sqlite3CLI, (readOnly ? ["-readonly"] : []) + [database, sql])
  r.stdout = r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
  return r
}

/// One JSON-RPC request as a line of text (no newline).
public func requestLine(_ id: JSONValue, _ method: String, _ params: JSONObject = [:]) -> String {
  JSONWriter.encodeString(.object(["jsonrpc": "2.0", "id": id, "method": .string(method), "params": .object(params)]))
}

/// One JSON-RPC notification as a line of text (no newline).
public func notificationLine(_ method: String, _ params: JSONObject = [:]) -> String {
  JSONWriter.encodeString(.object(["jsonrpc": "2.0", "method": .string(method), "params": .object(params)]))
}

extension JSONValue {
  public var intValue: Int64? { if case .int(let i) = self { return i } else { return nil } }
  public var boolValue: Bool? { if case .bool(let b) = self { return b } else { return nil } }
}

extension JSONObject {
  /// `error.code` of a reply object.
  public var errorCode: Int64? { self["error"]?["code"]?.intValue }
  /// `error.data.kind` of a reply object.
  public var errorKind: String? { self["error"]?["data"]?["kind"]?.stringValue }
}

/// The Item schema the protocol tests use: one string attribute and one int.
public let itemSchema: JSONValue = try! JSONParser.parse(
  """
  {"version":"1.0.0","entities":[{"name":"Item","attributes":[{"name":"title","type":"string"},{"name":"n","type":"int","default":0}]}]}
  """)
