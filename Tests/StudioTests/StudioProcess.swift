import Foundation
import JSONCore
import TestSupport
import XCTest

/// A `modelstore studio` child process and an HTTP client for it (curl, a real client:
/// the tests never write HTTP by hand).
final class StudioProcess {
  let process: ServerProcess
  /// The URL it printed, with its token.
  let url: String
  let port: Int
  let token: String
  var base: String { "http://127.0.0.1:\(port)" }

  init(_ arguments: [String], environment: [String: String]? = nil) throws {
    process = try ServerProcess(arguments: ["studio"] + arguments, environment: environment)
    // The URL is its first line on stdout, printed once it listens.
    guard let line = process.readLine(timeout: 30) else {
      throw StudioTestError.noURL(process.stderrAtEnd())
    }
    url = line
    let pattern = try NSRegularExpression(pattern: #"^http://127\.0\.0\.1:([0-9]+)/\?token=([0-9a-f]{64})$"#)
    guard let m = pattern.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)),
      let port = Range(m.range(at: 1), in: line).flatMap({ Int(line[$0]) }), let token = Range(m.range(at: 2), in: line)
    else { throw StudioTestError.noURL("unexpected first line: \(line)") }
    self.port = port
    self.token = String(line[token])
  }

  /// Stops it with SIGTERM and returns its exit status.
  func stop() -> Int32? {
    if process.process.isRunning { kill(process.process.processIdentifier, SIGTERM) }
    return process.waitForExit(timeout: 30)
  }

  deinit { _ = stop() }

  /// Waits until the studio has logged `line` on stderr (it logs, at `--log-level info`,
  /// when a session starts and ends); false when it did not within `timeout`.
  func waitForLog(_ line: String, timeout: TimeInterval = 60) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
      if process.stderr.contains(line) { return true }
      usleep(2_000)
    }
    return false
  }

  struct Response {
    var status: Int
    var headers: [String: String]
    var body: [UInt8]
    var text: String { String(decoding: body, as: UTF8.self) }
    var json: JSONValue? { try? JSONParser.parse(body) }
  }

  /// One request with curl. `path` may carry a query; `token: true` adds this studio's
  /// token; `headers` are sent as given (`Host: x` replaces curl's own).
  func request(
    _ method: String, _ path: String, token: Bool = true, headers: [String] = [], body: String? = nil,
    contentType: String? = "application/json"
  ) throws -> Response {
    var target = base + path
    if token { target += (path.contains("?") ? "&" : "?") + "token=\(self.token)" }
    var args = ["-s", "-S", "-i", "--max-time", "60", "-X", method]
    for h in headers { args += ["-H", h] }
    if let body {
      if let contentType { args += ["-H", "Content-Type: \(contentType)"] }
      args += ["--data-binary", body]
    }
    args.append(target)
    let r = try runProgram(URL(fileURLWithPath: "/usr/bin/curl"), args, timeout: 90)
    return try Self.parse(Array(r.stdout.utf8), curlErrors: r.stderr)
  }

  /// A JSON-RPC message into `session`; the reply's JSON (or nil for 204).
  func rpc(_ session: String, _ message: String) throws -> Response {
    try request("POST", "/rpc", headers: ["ModelStore-Session: \(session)"], body: message)
  }

  /// `curl -i` output: the last response's status line, headers and body.
  static func parse(_ out: [UInt8], curlErrors: String) throws -> Response {
    var rest = out[...]
    let separator = Array("\r\n\r\n".utf8)
    while true {
      guard let end = rest.firstRange(of: separator) else {
        throw StudioTestError.badResponse(curlErrors + String(decoding: out, as: UTF8.self))
      }
      let head = String(decoding: rest[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
      rest = rest[end.upperBound...]
      guard let status = head.first?.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else {
        throw StudioTestError.badResponse(head.joined(separator: "\n"))
      }
      if status == 100 { continue }
      var headers: [String: String] = [:]
      for line in head.dropFirst() {
        guard let colon = line.firstIndex(of: ":") else { continue }
        headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
      }
      return Response(status: status, headers: headers, body: Array(rest))
    }
  }

  /// A page's event stream (`curl -N` on GET /events), read line by line.
  final class Events {
    let curl: ServerProcess
    /// The session the stream started.
    private(set) var session = ""

    init(_ studio: StudioProcess) throws {
      curl = try ServerProcess(
        arguments: ["-s", "-N", "--max-time", "300", "\(studio.base)/events?token=\(studio.token)"],
        executable: URL(fileURLWithPath: "/usr/bin/curl"))
      guard let hello = try next(event: "session"), let id = hello["session"]?.stringValue else {
        throw StudioTestError.noSession(curl.stderrAtEnd())
      }
      session = id
    }

    /// The data of the next event of type `event` (`nil`: unnamed events, the session's
    /// notifications), waiting for it; nil when the stream ends first.
    func next(event: String? = nil, timeout: TimeInterval = 60) throws -> JSONValue? {
      var type: String?
      while let line = curl.readLine(timeout: timeout) {
        if line.hasPrefix("event: ") { type = String(line.dropFirst(7)) }
        if line.hasPrefix("data: ") {
          let data = try JSONParser.parse(String(line.dropFirst(6)))
          if type == event { return data }
          type = nil
        }
        if line.isEmpty { type = nil }
      }
      return nil
    }

    /// Closes the stream: the session ends.
    func close() {
      if curl.process.isRunning { kill(curl.process.processIdentifier, SIGTERM) }
      _ = curl.waitForExit(timeout: 30)
    }

    deinit { close() }
  }
}

enum StudioTestError: Error {
  case noURL(String)
  case noSession(String)
  case badResponse(String)
}

extension JSONValue {
  /// Element `i` of an array, nil when this is no array or too short.
  func item(_ i: Int) -> JSONValue? {
    guard let a = arrayValue, i < a.count else { return nil }
    return a[i]
  }
}
