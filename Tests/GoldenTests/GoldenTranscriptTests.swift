import Foundation
import JSONCore
import TestSupport
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

/// Replays every `Tests/Golden/*/transcript.jsonl` against the built `modelstore` (the
/// format is described in Tests/Golden/README.md). Every transcript runs; each one that
/// fails gives one XCTest failure located at the transcript's own file and line, listing
/// every mismatch with its JSON path. `UPDATE_GOLDEN=1` rewrites the `<` lines from the
/// actual output instead (comments and `<any>`/`<ignore>` masks are kept), so the change
/// can be reviewed as a diff. `GOLDEN_FILTER=023` runs only cases whose name contains it.
/// On PostgreSQL (`MODELSTORE_TEST_ENGINE=postgresql`) each server serves a fresh schema
/// instead of memory, the replies are compared through `GoldenEngineMasks`, and a
/// transcript whose header says `# sqlite only: REASON` is left out.
final class GoldenTranscriptTests: XCTestCase {
  static let goldenDirectory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Golden")

  func testGoldenTranscripts() throws {
    signal(SIGPIPE, SIG_IGN)  // a server that died must fail its transcript, not the test runner
    let environment = ProcessInfo.processInfo.environment
    let update = environment["UPDATE_GOLDEN"] == "1"
    if update && TestEngine.isPostgres { return XCTFail("UPDATE_GOLDEN records on SQLite: unset MODELSTORE_TEST_ENGINE") }
    let filter = environment["GOLDEN_FILTER"] ?? ""
    let files = Transcript.files(in: Self.goldenDirectory).filter { filter.isEmpty || $0.path.contains(filter) }
    XCTAssertFalse(files.isEmpty, "no transcripts under \(Self.goldenDirectory.path)")
    var skipped: [String] = []
    for file in files {
      let transcript: Transcript
      do {
        transcript = try Transcript(file)
      } catch let e as Transcript.SyntaxError {
        recordFailure(withDescription: e.message, inFile: file.path, atLine: e.line, expected: true)
        continue
      }
      guard transcript.runsOnThisEngine else {
        skipped.append("\(transcript.name) (\(transcript.sqliteOnly ?? ""))")
        continue
      }
      let run = Replay(transcript, update: update).run()
      if update, let text = transcript.rewritten(with: run.outputs), text != transcript.text {
        try text.write(to: file, atomically: true, encoding: .utf8)
        print("UPDATE_GOLDEN: rewrote \(transcript.name)")
      }
      let problems = update ? run.problems.filter { !$0.isMismatch } : run.problems
      guard let first = problems.first else { continue }
      let report = problems.map { "\(transcript.name):\($0.line): \($0.message)" }.joined(separator: "\n")
      let stderr = run.stderr.isEmpty ? "" : "\n--- server stderr ---\n\(run.stderr.suffix(2000))"
      recordFailure(
        withDescription:
          "golden transcript \(transcript.name) failed (\(problems.count) problem\(problems.count == 1 ? "" : "s")):\n\(report)\(stderr)",
        inFile: file.path, atLine: first.line, expected: true)
    }
    if !skipped.isEmpty {
      print("GoldenTranscriptTests on \(TestEngine.current): SQLite only by nature: \(skipped.joined(separator: "; "))")
    }
  }
}

/// A parsed transcript: server arguments and steps (a `>` line and the `<` lines after it).
struct Transcript {
  struct Expectation {
    var line: Int
    var value: JSONValue
  }
  struct Step {
    /// Line of the `>` line; nil for `<` lines before any `>`.
    var line: Int?
    var send: String?
    var expect: [Expectation] = []
  }
  struct SyntaxError: Error {
    var line: Int
    var message: String
  }

  let url: URL
  let text: String
  let lines: [String]
  var args = ["serve", "--memory"]
  /// Why the transcript runs on SQLite only (`# sqlite only: REASON` before its first
  /// `>` line): what it pins is a SQLite file's by nature.
  var sqliteOnly: String?
  var steps: [Step] = [Step(line: nil, send: nil)]

  var name: String { url.deletingLastPathComponent().lastPathComponent + "/" + url.lastPathComponent }

  /// False on PostgreSQL for a transcript marked `# sqlite only:`.
  var runsOnThisEngine: Bool { sqliteOnly == nil || !TestEngine.isPostgres }

  static func files(in directory: URL) -> [URL] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
    return names.sorted().map { directory.appendingPathComponent($0).appendingPathComponent("transcript.jsonl") }
      .filter { FileManager.default.fileExists(atPath: $0.path) }
  }

  init(_ url: URL) throws {
    self.url = url
    text = try String(contentsOf: url, encoding: .utf8)
    lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.hasSuffix("\r") ? String($0.dropLast()) : String($0) }
    var seenContent = false
    for (i, line) in lines.enumerated() where !line.allSatisfy(\.isWhitespace) {
      let number = i + 1
      defer { seenContent = true }
      var body = String(line.dropFirst())
      if body.hasPrefix(" ") { body.removeFirst() }
      switch line.first {
      case "#":
        let header = body.trimmingCharacters(in: .whitespaces)
        if !seenContent && header.hasPrefix("args:") { args = header.dropFirst(5).split(whereSeparator: \.isWhitespace).map(String.init) }
        if steps.count == 1 && header.hasPrefix("sqlite only:") {
          sqliteOnly = header.dropFirst("sqlite only:".count).trimmingCharacters(in: .whitespaces)
        }
      case ">":
        steps.append(Step(line: number, send: body))
      case "<":
        do {
          steps[steps.count - 1].expect.append(Expectation(line: number, value: try JSONParser.parse(body, maxDepth: 100_000)))
        } catch {
          throw SyntaxError(line: number, message: "\(url.path):\(number): expected line is not JSON: \(error)")
        }
      default:
        throw SyntaxError(line: number, message: "\(url.path):\(number): a line must start with '#', '>' or '<'")
      }
    }
  }

  /// The file with each step's `<` lines replaced by `outputs[step]` (raw server lines),
  /// keeping the masks of the old expectations. Nil when there is nothing to write.
  func rewritten(with outputs: [[String]]) -> String? {
    guard outputs.count == steps.count else { return nil }
    var before: [Int: [String]] = [:], after: [Int: [String]] = [:]  // keyed by 0-based line index
    var leading: [String] = []
    var dropped: Set<Int> = []
    for (s, step) in steps.enumerated() {
      let fresh = outputs[s].enumerated().map { k, raw -> String in
        guard let actual = try? JSONParser.parse(raw, maxDepth: 100_000) else { return "< " + raw }
        let masked = GoldenJSON.remask(k < step.expect.count ? step.expect[k].value : nil, actual)
        return "< " + (masked == actual ? raw : JSONWriter.encodeString(masked))
      }
      dropped.formUnion(step.expect.map { $0.line - 1 })
      if let first = step.expect.first {
        before[first.line - 1] = fresh
      } else if let line = step.line {
        after[line - 1] = fresh
      } else {
        leading = fresh
      }
    }
    var out = leading
    for (i, line) in lines.enumerated() {
      out += before[i] ?? []
      if !dropped.contains(i) { out.append(line) }
      out += after[i] ?? []
    }
    return out.joined(separator: "\n")
  }
}

/// One run of a transcript against a fresh server in a scratch directory.
struct Replay {
  struct Problem {
    var line: Int
    var message: String
    /// A value mismatch (rewritable by UPDATE_GOLDEN) rather than missing output, a dead server...
    var isMismatch = false
  }
  struct Outcome {
    var problems: [Problem] = []
    /// Raw output lines per step (for UPDATE_GOLDEN).
    var outputs: [[String]] = []
    var stderr = ""
  }

  let transcript: Transcript
  let update: Bool
  let lineTimeout: TimeInterval = 10

  init(_ transcript: Transcript, update: Bool) {
    self.transcript = transcript
    self.update = update
  }

  func run() -> Outcome {
    var outcome = Outcome()
    let lastLine = (transcript.lines.lastIndex { !$0.allSatisfy(\.isWhitespace) } ?? 0) + 1
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("modelstore-golden-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: scratch) }
    let server: ServerProcess
    do {
      server = try ServerProcess(arguments: transcript.args, currentDirectory: scratch)
    } catch {
      outcome.problems.append(Problem(line: 1, message: "cannot start \(ServerProcess.binaryURL.path): \(error)"))
      return outcome
    }
    // The method of each request sent so far, by its id's JSON text (for the engine masks).
    var methods: [String: String] = [:]
    steps: for step in transcript.steps {
      var got: [String] = []
      defer { outcome.outputs.append(got) }
      if let text = step.send, let line = step.line {
        if let sent = try? JSONParser.parse(text) {
          for request in sent.arrayValue ?? [sent] {
            if let id = request["id"], let method = request["method"]?.stringValue { methods[JSONWriter.encodeString(id)] = method }
          }
        }
        guard send(text + "\n", to: server) else {
          outcome.problems.append(
            Problem(line: line, message: "cannot send this line: the server has exited (status \(exitStatus(server)))"))
          break steps
        }
      }
      for want in step.expect {
        guard let raw = server.readLine(timeout: lineTimeout) else {
          let why =
            server.process.isRunning
            ? "no output within \(Int(lineTimeout)) s" : "server exited (status \(exitStatus(server))) before this line"
          outcome.problems.append(Problem(line: want.line, message: "\(why); expected: \(want.value)"))
          if update { continue }
          break steps
        }
        got.append(raw)
        if let problem = compare(want, raw, step, methods: methods) { outcome.problems.append(problem) }
      }
      // Only when rewriting: also pick up output beyond the expected count.
      while update, let extra = server.readLine(timeout: 0.2) { got.append(extra) }
    }
    server.closeInput()
    var extra: [String] = []
    while let line = server.readLine(timeout: lineTimeout) { extra.append(line) }
    if !extra.isEmpty {
      outcome.problems.append(
        Problem(
          line: lastLine,
          message: "\(extra.count) unexpected output line(s) after the last step:\n    " + extra.prefix(5).joined(separator: "\n    "),
          isMismatch: true))
      if update, !outcome.outputs.isEmpty { outcome.outputs[outcome.outputs.count - 1] += extra }
    }
    if let status = server.waitForExit(timeout: lineTimeout) {
      if status != 0 {
        outcome.problems.append(Problem(line: lastLine, message: "server exited with status \(status) after stdin was closed, expected 0"))
      }
    } else {
      server.process.terminate()
      outcome.problems.append(Problem(line: lastLine, message: "server did not exit within \(Int(lineTimeout)) s after stdin was closed"))
    }
    outcome.stderr = server.stderr
    return outcome
  }

  private func compare(_ want: Transcript.Expectation, _ raw: String, _ step: Transcript.Step, methods: [String: String]) -> Problem? {
    let sent = step.send.map { "\n    in reply to line \(step.line!): > \($0.prefix(300))" } ?? ""
    guard let actual = try? JSONParser.parse(raw, maxDepth: 100_000) else {
      return Problem(line: want.line, message: "server output is not JSON:\n    actual line:   \(raw)\(sent)", isMismatch: true)
    }
    guard let d = GoldenJSON.firstDifference(GoldenEngineMasks.masking(want.value, methods: methods), actual) else { return nil }
    return Problem(
      line: want.line,
      message: """
        mismatch at \(d.path): \(d.reason)
            expected: \(d.expected.prefix(500))
            actual:   \(d.actual.prefix(500))
            expected line: \(want.value.description.prefix(1000))
            actual line:   \(raw.prefix(1000))\(sent)
        """,
      isMismatch: true)
  }

  /// Writes straight to the server's stdin descriptor: unlike FileHandle.write, a closed
  /// pipe is reported (EPIPE) instead of trapping.
  private func send(_ text: String, to server: ServerProcess) -> Bool {
    guard server.process.isRunning, let pipe = server.process.standardInput as? Pipe else { return false }
    let fd = pipe.fileHandleForWriting.fileDescriptor
    return Array(text.utf8).withUnsafeBytes { buffer in
      var offset = 0
      while offset < buffer.count {
        let n = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
        if n < 0 {
          if errno == EINTR || errno == EAGAIN { continue }
          return false
        }
        offset += n
      }
      return true
    }
  }

  private func exitStatus(_ server: ServerProcess) -> String {
    server.process.isRunning ? "still running" : "\(server.process.terminationStatus)"
  }
}
