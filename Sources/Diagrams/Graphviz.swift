import Dispatch
import Foundation
import Synchronization

/// Draws DOT text with Graphviz's `dot` (Debian package `graphviz`): SVG or PNG. `dot` is
/// found on `PATH` and run directly with its arguments (no shell); the DOT text goes to its
/// standard input (PNG at 144 dpi), the picture comes from its standard output, and what it writes on
/// standard error is reported when it fails. It is stopped after `timeout` seconds.
public enum Graphviz {
  public enum Output: String, CaseIterable, Sendable { case svg, png }

  /// The Debian package that has `dot`.
  public static let package = "graphviz"

  /// Why a picture could not be drawn.
  public struct Failure: Error, Sendable, CustomStringConvertible {
    public enum Reason: String, Sendable { case notInstalled, failed }
    public var reason: Reason
    public var message: String
    /// `dot`'s exit status (nil when it did not run or was stopped).
    public var status: Int32?
    /// The end of what `dot` wrote on standard error.
    public var stderr: String
    public var description: String { message }
  }

  /// The path of `dot` on `PATH` (of `environment`), or nil.
  public static func locate(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
    let path = environment["PATH"] ?? "/usr/bin:/bin"
    for dir in path.split(separator: ":", omittingEmptySubsequences: true) {
      let candidate = String(dir) + "/dot"
      if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
    return nil
  }

  /// `dot -T<output>` on `dot`'s text; `dot` is looked up on the `PATH` of `environment`.
  public static func render(
    _ dot: String, as output: Output, timeout: Double = 60, environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws -> [UInt8] {
    guard let executable = locate(environment) else {
      throw Failure(
        reason: .notInstalled,
        message:
          "drawing \(output.rawValue) needs Graphviz's 'dot', which is not on PATH; install the package '\(package)' (apt-get install \(package)), or ask for mermaid or dot text",
        status: nil, stderr: "")
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    // A PNG at 144 dpi reads well on a high-density screen (SVG scales by itself).
    process.arguments = ["-T" + output.rawValue] + (output == .png ? ["-Gdpi=144"] : [])
    let input = Pipe()
    let stdout = Pipe()
    let stderr = Pipe()
    process.standardInput = input
    process.standardOutput = stdout
    process.standardError = stderr
    do { try process.run() } catch {
      throw Failure(reason: .failed, message: "cannot start '\(executable)': \(error)", status: nil, stderr: "")
    }
    // Standard input is written and standard error read on threads of their own, so that
    // neither pipe fills up while this thread reads the picture.
    let errors = Mutex<[UInt8]>([])
    let group = DispatchGroup()
    let text = Data(dot.utf8)
    let inputHandle = input.fileHandleForWriting
    let errorHandle = stderr.fileHandleForReading
    DispatchQueue.global().async(group: group) {
      do {
        try inputHandle.write(contentsOf: text)
        try inputHandle.close()
      } catch {
        // dot stopped reading (it failed): its status and standard error say why.
        try? inputHandle.close()
      }
    }
    DispatchQueue.global().async(group: group) {
      let bytes = (try? errorHandle.readToEnd()) ?? nil
      errors.withLock { $0 = Array(bytes ?? Data()) }
    }
    let stopped = Atomic<Bool>(false)
    let watchdog = DispatchWorkItem { [process] in
      if process.isRunning {
        stopped.store(true, ordering: .relaxed)
        process.terminate()
      }
    }
    DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
    let picture = (try? stdout.fileHandleForReading.readToEnd()) ?? nil
    process.waitUntilExit()
    watchdog.cancel()
    group.wait()
    let status = process.terminationStatus
    let message = String(decoding: errors.withLock { $0 }.suffix(4000), as: UTF8.self)
    if stopped.load(ordering: .relaxed) {
      throw Failure(
        reason: .failed, message: "'\(executable)' did not finish within \(Int(timeout)) s and was stopped", status: nil, stderr: message)
    }
    guard process.terminationReason == .exit, status == 0, let picture, !picture.isEmpty else {
      let how =
        process.terminationReason != .exit
        ? "was killed by signal \(status)" : status == 0 ? "wrote no picture" : "exited with status \(status)"
      let said = message.isEmpty ? "" : ": " + message.trimmingCharacters(in: .whitespacesAndNewlines)
      throw Failure(
        reason: .failed, message: "'\(executable) -T\(output.rawValue)' \(how)\(said)",
        status: process.terminationReason == .exit ? status : nil, stderr: message)
    }
    return Array(picture)
  }
}
