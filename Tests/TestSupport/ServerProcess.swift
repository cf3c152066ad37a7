import Foundation
import JSONCore

/// A `modelstore` child process for end-to-end tests: send raw lines or requests, read
/// replies with a timeout, and keep stderr for failure messages.
/// `@unchecked Sendable`: the stderr reader runs on Foundation's thread and touches only
/// `stderrData`/`stderrEnded`, under `lock`; everything else belongs to the test's thread.
public final class ServerProcess: @unchecked Sendable {
  public let process = Process()
  private let stdinPipe = Pipe()
  private let stdoutPipe = Pipe()
  private let stderrPipe = Pipe()
  private var buffer: [UInt8] = []
  private let lock = NSLock()
  private var stderrData = Data()
  private var stderrEnded = false
  private var nextID = 1
  /// On PostgreSQL (`TestEngine`), the schema a server started in memory serves instead;
  /// dropped once the server has ended.
  public let schema: PostgresTestSchema?

  /// The built binary, next to the test bundle (`.build/<config>/modelstore`), or
  /// `MODELSTORE_BIN` when set.
  public static var binaryURL: URL {
    if let env = ProcessInfo.processInfo.environment["MODELSTORE_BIN"], !env.isEmpty { return URL(fileURLWithPath: env) }
    var dir = URL(fileURLWithPath: CommandLine.arguments.first ?? ".").deletingLastPathComponent()
    for _ in 0..<4 {
      let candidate = dir.appendingPathComponent("modelstore")
      if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
      dir = dir.deletingLastPathComponent()
    }
    for bundle in Bundle.allBundles {
      let candidate = bundle.bundleURL.deletingLastPathComponent().appendingPathComponent("modelstore")
      if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
    }
    return URL(fileURLWithPath: ".build/debug/modelstore")
  }

  /// The repository root, found from this source file's location.
  public static var repositoryRoot: URL {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
  }

  /// Starts `modelstore` with `arguments`; on PostgreSQL (`TestEngine`) a server started in
  /// memory serves a fresh schema instead (`schema`). `executable`: another program to read
  /// and write the same way (default: modelstore, its arguments left as they are);
  /// `environment`: the child's whole environment (default: this process's).
  public init(
    arguments: [String] = ["serve", "--memory"], currentDirectory: URL? = nil, executable: URL? = nil,
    environment: [String: String]? = nil
  ) throws {
    ignoreBrokenPipes()
    let (engineArguments, schema) = executable == nil ? try TestEngine.serving(arguments) : (arguments, nil)
    self.schema = schema
    process.executableURL = executable ?? Self.binaryURL
    if let environment { process.environment = environment }
    process.arguments = engineArguments
    if let currentDirectory { process.currentDirectoryURL = currentDirectory }
    process.standardInput = stdinPipe
    process.standardOutput = stdoutPipe
    process.standardError = stderrPipe
    stderrPipe.fileHandleForReading.readabilityHandler = { [weak self] h in
      let d = h.availableData
      if d.isEmpty { h.readabilityHandler = nil }  // EOF: the child closed stderr
      guard let self else { return }
      self.lock.lock()
      self.stderrData.append(d)
      if d.isEmpty { self.stderrEnded = true }
      self.lock.unlock()
    }
    try process.run()
  }

  deinit {
    stderrPipe.fileHandleForReading.readabilityHandler = nil
    if process.isRunning { process.terminate() }
    if let schema {
      if process.isRunning { process.waitUntilExit() }
      schema.drop()
    }
  }

  public var stderr: String {
    lock.lock()
    defer { lock.unlock() }
    return String(decoding: stderrData, as: UTF8.self)
  }

  /// stderr once the child has closed it (normally at exit), waiting up to `timeout`.
  public func stderrAtEnd(timeout: TimeInterval = 5) -> String {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
      lock.lock()
      let ended = stderrEnded
      lock.unlock()
      if ended { break }
      usleep(5_000)
    }
    return stderr
  }

  /// Writes `text` plus a newline, exactly as given.
  public func sendLine(_ text: String) {
    sendRaw(Data((text + "\n").utf8))
  }

  /// Writes `data` to the child's stdin; false when it can no longer be written (the
  /// child exited or closed stdin).
  @discardableResult
  public func sendRaw(_ data: Data) -> Bool {
    (try? stdinPipe.fileHandleForWriting.write(contentsOf: data)) != nil
  }

  /// Closes stdin (EOF for the server).
  public func closeInput() {
    try? stdinPipe.fileHandleForWriting.close()
  }

  /// Closes our read end of the child's stdout: its further writes fail with EPIPE.
  public func closeOutput() {
    try? stdoutPipe.fileHandleForReading.close()
  }

  /// Shrinks the pipe of the child's stdout to its smallest capacity (one page) and returns
  /// the capacity it has. The server writes a notification made while a request runs
  /// (`$/progress`) before the request goes on, so with the test not reading, the request
  /// is held at its next notification once the pipe is full: a point the test controls.
  /// From the moment the test last read, the child writes at most this many bytes more.
  public func limitOutputPipe() -> Int {
    let fd = stdoutPipe.fileHandleForReading.fileDescriptor
    _ = fcntl(fd, Self.setPipeSize, 4096)
    return Int(fcntl(fd, Self.getPipeSize))
  }

  /// F_SETPIPE_SZ and F_GETPIPE_SZ (Linux's F_LINUX_SPECIFIC_BASE + 7 and + 8).
  private static let setPipeSize: Int32 = 1031
  private static let getPipeSize: Int32 = 1032

  /// Waits until the child has read every byte written to its stdin (the pipe is empty),
  /// so a message sent before has been read by the server; false after `timeout` (a bound
  /// for failures only: the server reads its input while it works and while it waits).
  public func waitUntilInputIsRead(timeout: TimeInterval = 60) -> Bool {
    let fd = stdinPipe.fileHandleForWriting.fileDescriptor
    let deadline = Date().addingTimeInterval(timeout)
    while true {
      var unread: Int32 = 0
      guard ioctl(fd, UInt(FIONREAD), &unread) == 0 else { return false }
      if unread == 0 { return true }
      if Date() > deadline || !process.isRunning { return false }
      usleep(1_000)
    }
  }

  /// The CPU time the child has used so far (user and system, all threads), from
  /// /proc/PID/stat; nil when it cannot be read. Unlike wall-clock time it does not grow
  /// while the child waits for the processor, so it measures how far its work has gone.
  public var cpuSeconds: Double? {
    guard let fields = procStat() else { return nil }
    // utime and stime: fields 14 and 15, 12 and 13 after the state.
    guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
  }

  /// Stops the child (SIGSTOP) and waits until it is stopped: it does no work until
  /// `resume()`; false when it did not stop within `timeout` (a bound for failures only).
  public func pause(timeout: TimeInterval = 30) -> Bool {
    guard kill(process.processIdentifier, SIGSTOP) == 0 else { return false }
    let deadline = Date().addingTimeInterval(timeout)
    while procStat()?.first != "T" {
      if Date() > deadline || !process.isRunning { return false }
      usleep(1_000)
    }
    return true
  }

  /// Lets a child stopped by `pause()` go on.
  public func resume() { kill(process.processIdentifier, SIGCONT) }

  /// The fields of /proc/PID/stat after the command's name, the state first.
  private func procStat() -> [Substring]? {
    guard let text = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8),
      let close = text.lastIndex(of: ")")
    else { return nil }
    return text[text.index(after: close)...].split(separator: " ")
  }

  /// Bytes the child has written to stdout that the test has not read yet (in the pipe).
  public var unreadOutput: Int {
    var unread: Int32 = 0
    return ioctl(stdoutPipe.fileHandleForReading.fileDescriptor, UInt(FIONREAD), &unread) == 0 ? Int(unread) + buffer.count : -1
  }

  /// A fresh request id (the counter `request` uses).
  public func freshID() -> JSONValue {
    defer { nextID += 1 }
    return .int(Int64(nextID))
  }

  /// Sends a request without waiting for its reply; returns the id used.
  @discardableResult
  public func sendRequest(_ method: String, _ params: JSONObject = [:], id: JSONValue? = nil) -> JSONValue {
    let id = id ?? freshID()
    sendLine(JSONWriter.encodeString(.object(["jsonrpc": "2.0", "id": id, "method": .string(method), "params": .object(params)])))
    return id
  }

  /// Sends a notification (no id, no reply).
  public func sendNotification(_ method: String, _ params: JSONObject = [:]) {
    sendLine(JSONWriter.encodeString(.object(["jsonrpc": "2.0", "method": .string(method), "params": .object(params)])))
  }

  /// The next reply as an object (nil on timeout or EOF).
  public func readReply(timeout: TimeInterval = 10) throws -> JSONObject? {
    try readMessage(timeout: timeout)?.objectValue
  }

  /// The next `Content-Length:` framed message (LSP header framing), or nil on timeout/EOF.
  public func readFramedMessage(timeout: TimeInterval = 10) throws -> JSONValue? {
    let deadline = Date().addingTimeInterval(timeout)
    var length: Int?
    while true {
      guard let raw = readLine(timeout: max(0.01, deadline.timeIntervalSinceNow)) else { return nil }
      let line = raw.hasSuffix("\r") ? String(raw.dropLast()) : raw
      if line.isEmpty {
        if length != nil { break }
        continue
      }
      let parts = line.split(separator: ":", maxSplits: 1)
      if parts.count == 2, parts[0].lowercased() == "content-length" {
        length = Int(parts[1].trimmingCharacters(in: .whitespaces))
      }
    }
    guard let n = length, let body = readBytes(n, timeout: max(0.01, deadline.timeIntervalSinceNow)) else { return nil }
    return try JSONParser.parse(body)
  }

  /// Everything the child writes to stdout until it closes it (or `timeout`).
  public func readToEnd(timeout: TimeInterval = 10) -> [UInt8] {
    let deadline = Date().addingTimeInterval(timeout)
    let fd = stdoutPipe.fileHandleForReading.fileDescriptor
    while deadline.timeIntervalSinceNow > 0 {
      var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      if poll(&pfd, 1, Int32(min(deadline.timeIntervalSinceNow, 1) * 1000)) <= 0 { continue }
      var chunk = [UInt8](repeating: 0, count: 65536)
      let n = read(fd, &chunk, chunk.count)
      if n <= 0 { break }
      buffer.append(contentsOf: chunk[0..<n])
    }
    defer { buffer.removeAll() }
    return buffer
  }

  /// The next line on stdout, or nil after `timeout` seconds or at EOF.
  public func readLine(timeout: TimeInterval = 10) -> String? {
    let deadline = Date().addingTimeInterval(timeout)
    let fd = stdoutPipe.fileHandleForReading.fileDescriptor
    while true {
      if let nl = buffer.firstIndex(of: 0x0A) {
        let line = Array(buffer[..<nl])
        buffer.removeSubrange(...nl)
        return String(decoding: line, as: UTF8.self)
      }
      let remaining = deadline.timeIntervalSinceNow
      if remaining <= 0 { return nil }
      var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      let ready = poll(&pfd, 1, Int32(min(remaining, 1) * 1000))
      if ready <= 0 { continue }
      var chunk = [UInt8](repeating: 0, count: 65536)
      let n = read(fd, &chunk, chunk.count)
      if n <= 0 { return nil }
      buffer.append(contentsOf: chunk[0..<n])
    }
  }

  /// Reads exactly `count` bytes (for Content-Length framed replies).
  public func readBytes(_ count: Int, timeout: TimeInterval = 10) -> [UInt8]? {
    let deadline = Date().addingTimeInterval(timeout)
    let fd = stdoutPipe.fileHandleForReading.fileDescriptor
    while buffer.count < count {
      let remaining = deadline.timeIntervalSinceNow
      if remaining <= 0 { return nil }
      var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      if poll(&pfd, 1, Int32(min(remaining, 1) * 1000)) <= 0 { continue }
      var chunk = [UInt8](repeating: 0, count: 65536)
      let n = read(fd, &chunk, chunk.count)
      if n <= 0 { return nil }
      buffer.append(contentsOf: chunk[0..<n])
    }
    let out = Array(buffer[..<count])
    buffer.removeSubrange(..<count)
    return out
  }

  /// The next reply parsed as JSON.
  public func readMessage(timeout: TimeInterval = 10) throws -> JSONValue? {
    guard let line = readLine(timeout: timeout) else { return nil }
    return try JSONParser.parse(line)
  }

  /// Sends a request with a fresh numeric id and returns the whole reply object.
  @discardableResult
  public func request(_ method: String, _ params: JSONObject = [:], timeout: TimeInterval = 10) throws -> JSONObject {
    let id = nextID
    nextID += 1
    let message: JSONValue = .object(["jsonrpc": "2.0", "id": .int(Int64(id)), "method": .string(method), "params": .object(params)])
    sendLine(JSONWriter.encodeString(message))
    guard case .object(let reply)? = try readMessage(timeout: timeout) else {
      throw ServerProcessError.noReply(method: method, stderr: stderr)
    }
    // Every result an end-to-end test reaches is checked against its described shape.
    if reply["id"] == .int(Int64(id)), let result = reply["result"] {
      ResultSchemaChecker.shared.expectConforms(method: method, result: result)
    }
    return reply
  }

  /// The `result` of a request that must succeed.
  public func call(_ method: String, _ params: JSONObject = [:], timeout: TimeInterval = 10) throws -> JSONValue {
    let reply = try request(method, params, timeout: timeout)
    guard let result = reply["result"] else { throw ServerProcessError.failed(method: method, error: reply["error"] ?? .null) }
    return result
  }

  /// The `error` of a request that must fail.
  public func callFailing(_ method: String, _ params: JSONObject = [:], timeout: TimeInterval = 10) throws -> JSONObject {
    let reply = try request(method, params, timeout: timeout)
    guard case .object(let e)? = reply["error"] else {
      throw ServerProcessError.unexpectedSuccess(method: method, result: reply["result"] ?? .null)
    }
    return e
  }

  /// Waits for the process to exit and returns its status, or nil on timeout.
  public func waitForExit(timeout: TimeInterval = 10) -> Int32? {
    let deadline = Date().addingTimeInterval(timeout)
    while process.isRunning {
      if Date() > deadline { return nil }
      usleep(10_000)
    }
    return process.terminationStatus
  }

  /// True when the child ended by a signal (a crash) rather than by calling exit.
  public var endedBySignal: Bool { !process.isRunning && process.terminationReason == .uncaughtSignal }
}

public enum ServerProcessError: Error, CustomStringConvertible {
  case noReply(method: String, stderr: String)
  case failed(method: String, error: JSONValue)
  case unexpectedSuccess(method: String, result: JSONValue)

  public var description: String {
    switch self {
    case .noReply(let m, let e): return "no reply to \(m); stderr: \(e)"
    case .failed(let m, let e): return "\(m) failed: \(e)"
    case .unexpectedSuccess(let m, let r): return "\(m) succeeded unexpectedly: \(r)"
    }
  }
}

/// The Task/Category schema of the seed scenarios.
public let taskCategorySchema: JSONValue = try! JSONParser.parse(
  """
  {"version":"1.0.0","entities":[
   {"name":"Category","attributes":[{"name":"id","type":"uuid","unique":true,"default":{"generate":"uuid"}},{"name":"name","type":"string"},{"name":"color","type":"string","default":"blue"}],
    "relationships":[{"name":"tasks","destination":"Task","inverse":"category","toMany":true,"deleteRule":"cascade"}]},
   {"name":"Task","attributes":[{"name":"id","type":"uuid","unique":true,"default":{"generate":"uuid"}},{"name":"title","type":"string"},{"name":"isCompleted","type":"bool","default":false},{"name":"createdAt","type":"date","default":{"generate":"now"}},{"name":"priority","type":"int","default":0}],
    "relationships":[{"name":"category","destination":"Category","inverse":"tasks","deleteRule":"nullify"}]}]}
  """)
