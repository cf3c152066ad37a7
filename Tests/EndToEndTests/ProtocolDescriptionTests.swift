import Foundation
import JSONCore
import TestSupport
import XCTest

/// `protocol.json` is the output of `modelstore protocol --json` (the description the
/// server's params types give), and protocol.md's method sections document exactly its
/// params. To change a method's params: change its params struct, then
/// `modelstore protocol --json > protocol.json`, then protocol.md and both clients.
final class ProtocolDescriptionTests: XCTestCase {
  static let root = ServerProcess.repositoryRoot

  override func setUpWithError() throws { try TestEngine.storeIndependent("the protocol's description") }

  func testProtocolJSONIsTheBinarysOutput() throws {
    let run = try runModelstore(["protocol", "--json"])
    XCTAssertEqual(run.status, 0, run.stderr)
    let committed = try String(contentsOf: Self.root.appendingPathComponent("protocol.json"), encoding: .utf8)
    XCTAssertTrue(
      run.stdout == committed,
      "protocol.json differs from `modelstore protocol --json`: regenerate it with `.build/debug/modelstore protocol --json > protocol.json`"
    )
  }

  /// Every method's section in protocol.md names exactly the params the description has,
  /// and says `required` in the default column for exactly the required ones.
  func testProtocolMDMethodTablesAgreeWithTheDescription() throws {
    let description = try JSONParser.parse(Array(try Data(contentsOf: Self.root.appendingPathComponent("protocol.json"))))
    let text = try String(contentsOf: Self.root.appendingPathComponent("protocol.md"), encoding: .utf8)
    let sections = Self.methodSections(text)
    var documented: [String: [String: String]] = [:]
    var failures: [String] = []
    for method in description["methods"]?.arrayValue ?? [] {
      let name = method["name"]?.stringValue ?? ""
      guard let body = sections[name] else {
        failures.append("\(name): no '### \(name)' section")
        continue
      }
      var params: [String: Bool] = [:]
      for p in method["params"]?.arrayValue ?? [] { params[p["name"]?.stringValue ?? ""] = p["required"] == .bool(true) }
      if method["x-additionalParams"] == .bool(true) {
        if !body.contains("params are ignored") {
          failures.append("\(name): accepts any params, but its section does not say 'params are ignored'")
        }
        continue
      }
      for ignored in method["x-ignoredParams"]?.arrayValue?.compactMap(\.stringValue) ?? [] where !body.contains("`\(ignored)`") {
        failures.append("\(name): accepts and ignores \(ignored), but its section does not name `\(ignored)`")
      }
      guard let rows = Self.documentedParams(body, documented: documented) else {
        failures.append("\(name): its section has no '| param |' table, 'No params.' or 'Params: exactly those of [method]'")
        continue
      }
      documented[name] = rows
      let missing = Set(params.keys).subtracting(rows.keys).sorted()
      let extra = Set(rows.keys).subtracting(params.keys).sorted()
      if !missing.isEmpty { failures.append("\(name): protocol.md lacks \(missing.joined(separator: ", "))") }
      if !extra.isEmpty {
        failures.append("\(name): protocol.md documents \(extra.joined(separator: ", ")), which the server does not take")
      }
      for (param, required) in params {
        guard let def = rows[param], !def.isEmpty else { continue }
        if (def == "required") != required {
          failures.append("\(name).\(param): the description says required: \(required), protocol.md's default column '\(def)'")
        }
      }
    }
    // Params any request may carry (taken by the server before the method reads its own)
    // are documented in "Messages".
    let messages = text.components(separatedBy: "\n## Messages\n").dropFirst().first?.components(separatedBy: "\n## ").first ?? ""
    for common in description["x-commonParams"]?.arrayValue ?? [] {
      let name = common["name"]?.stringValue ?? ""
      if !messages.contains("`\(name)`") { failures.append("x-commonParams \(name): not documented in protocol.md's Messages section") }
    }
    XCTAssertTrue(failures.isEmpty, failures.joined(separator: "\n"))
  }

  /// `### name` sections (up to the next `##`/`###` heading), outside code fences.
  static func methodSections(_ text: String) -> [String: String] {
    var out: [String: String] = [:]
    var current: String?
    var inFence = false
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
      if line.hasPrefix("```") { inFence.toggle() }
      if !inFence && (line.hasPrefix("## ") || line.hasPrefix("### ")) {
        current = line.hasPrefix("### ") ? String(line.dropFirst(4)) : nil
        if let current { out[current] = "" }
        continue
      }
      if let current { out[current, default: ""] += line + "\n" }
    }
    return out
  }

  /// The params a section documents, with each one's default column ("" when several
  /// share a row): the rows of its `| param |` tables; `No params.`; or `Params: exactly
  /// those of [m]` / `The params of `m` without `a`, `b`` for an earlier method `m`.
  static func documentedParams(_ body: String, documented: [String: [String: String]]) -> [String: String]? {
    var rows: [String: String] = [:]
    var inTable = false
    var sawTable = false
    for line in body.split(separator: "\n", omittingEmptySubsequences: false) {
      guard line.hasPrefix("|") else {
        inTable = false
        continue
      }
      let cells = splitRow(String(line))
      if cells.first == "param" {
        inTable = true
        sawTable = true
        continue
      }
      guard inTable, cells.count >= 3, !cells[0].hasPrefix("---") else { continue }
      let names = backticked(cells[0])
      for n in names { rows[n] = names.count == 1 ? cells[2] : "" }
    }
    if sawTable { return rows }
    if body.contains("No params.") { return [:] }
    for (marker, end) in [("Params: exactly those of [", "]"), ("The params of `", "`")] {
      guard let start = body.range(of: marker), let close = body[start.upperBound...].range(of: end) else { continue }
      guard let base = documented[String(body[start.upperBound..<close.lowerBound])] else { return nil }
      let sentence = body[close.upperBound...].prefix { $0 != "." }
      var out = base
      if sentence.hasPrefix(" without") { for n in backticked(String(sentence)) { out[n] = nil } }
      return out
    }
    return nil
  }

  static func splitRow(_ line: String) -> [String] {
    var cells: [String] = []
    var cell = ""
    var previous: Character = " "
    for c in line.dropFirst() {
      if c == "|" && previous != "\\" {
        cells.append(cell.trimmingCharacters(in: .whitespaces))
        cell = ""
      } else {
        cell.append(c)
      }
      previous = c
    }
    return cells
  }

  static func backticked(_ s: String) -> [String] {
    s.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
  }
}
