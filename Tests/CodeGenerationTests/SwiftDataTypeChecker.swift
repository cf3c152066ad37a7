import Foundation
import XCTest

@testable import CodeGeneration

/// Type-checks generated SwiftData code on Linux, where SwiftData does not exist.
///
/// Chosen over a rule checker written for these tests: the compiler itself checks everything a
/// rule checker would have to re-implement (and would check only as far as its author thought
/// of): names and key paths resolve, macro arguments have SwiftData's labels, order and types,
/// options exist, initializers initialize every stored property and call `super.init` right,
/// and availability. The code is compiled with `swiftc -typecheck` against `SwiftDataStub`,
/// SwiftData's API surface written for the tests, whose macros a small compiler plugin
/// expands (`SwiftDataStub.macroPlugin`).
///
/// Availability: on Linux, `swiftc` ignores `@available(iOS …)` (it checks only the platform
/// it compiles for; `-target` for an Apple platform needs that platform's standard library).
/// So SwiftData's releases become custom availability domains (Swift 6.2's experimental
/// `CustomAvailability`, `-define-dynamic-availability-domain`): `SwiftData18` and
/// `SwiftData26`, on the stub's declarations that came with them (`#Unique`, `#Index`,
/// `.preserveValueOnDeletion`; class inheritance through what `@Model` expands to on a class
/// that inherits or is not final). Each `@available(iOS …, macOS …, …, *)` of the generated
/// code is rewritten to the domains its versions reach, which it must reach on every platform
/// SwiftData runs on (`releases`); then the compiler checks that every declaration naming a
/// marked one is itself marked (a class naming another in a relationship, a `VersionedSchema`'s
/// `models`, a migration plan's stages, a typealias), and that nothing uses a macro or option
/// its mark does not reach.
///
/// Relationship inverses: `@Relationship(inverse: \Root.property)` expands to a function that
/// links the two objects both ways, so the compiler checks that the inverse exists and that
/// its type holds the declaring class (and the declared property the inverse's owner).
///
/// Units (the files generated for one model) are checked in one compiler run, each wrapped in
/// its own namespace enum `_MSUnit_N_` (the code declares nothing that must be at file scope);
/// types the code says come from the app or the SDK (its header line) are declared empty
/// inside it.
enum SwiftDataTypeChecker {
  struct Unit {
    var name: String
    var files: [CodeGenerator.File]
  }

  struct Result {
    var checked: Int
    /// Unit name → its errors (the compiler's, or the rewrite's).
    var failures: [String: [String]]
  }

  /// SwiftData releases after the first, as availability domains, with each platform's version.
  static let releases: [(domain: String, versions: [String: Int])] = [
    ("SwiftData18", ["iOS": 18, "macOS": 15, "tvOS": 18, "watchOS": 11, "visionOS": 2]),
    ("SwiftData26", ["iOS": 26, "macOS": 26, "tvOS": 26, "watchOS": 26, "visionOS": 26]),
  ]

  static var python: String? { CodeGeneratorTests.python }

  /// Checks `units`; throws `XCTSkip` when swiftc or python3 is missing.
  static func check(_ units: [Unit]) throws -> Result {
    guard let swiftc = CodeGeneratorTests.swiftc else { throw XCTSkip("swiftc not found") }
    guard let python = python else { throw XCTSkip("python3 not found (it runs the stub's macro plugin)") }
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ms-swiftdata-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let plugin = dir.appendingPathComponent("swiftdata_macros.py")
    try ("#!" + python + "\n" + SwiftDataStub.macroPlugin).write(to: plugin, atomically: true, encoding: .utf8)
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: plugin.path)
    try SwiftDataStub.source.write(to: dir.appendingPathComponent("SwiftDataStub.swift"), atomically: true, encoding: .utf8)
    var failures: [String: [String]] = [:]
    var paths = [dir.appendingPathComponent("SwiftDataStub.swift").path]
    for (k, unit) in units.enumerated() {
      let (text, problems) = wrap(unit, index: k)
      if !problems.isEmpty { failures[unit.name, default: []] += problems }
      let path = dir.appendingPathComponent("u\(k).swift")
      try text.write(to: path, atomically: true, encoding: .utf8)
      paths.append(path.path)
    }
    var arguments = ["-typecheck", "-module-name", "SwiftData", "-diagnostic-style", "llvm", "-continue-building-after-errors"]
    arguments += ["-enable-experimental-feature", "CustomAvailability"]
    for r in releases { arguments += ["-Xfrontend", "-define-dynamic-availability-domain", "-Xfrontend", r.domain] }
    arguments += ["-load-plugin-executable", plugin.path + "#SwiftDataMacros"]
    let (_, output) = try CodeGeneratorTests.run(swiftc, arguments + paths, in: dir)
    for (unit, message) in attribute(output, units: units) { failures[unit, default: []].append(message) }
    return Result(checked: units.count, failures: failures)
  }

  /// The unit's files as one file: imports dropped (checked: Foundation and SwiftData only),
  /// `@available` rewritten to the domains, external types declared, all inside `_MSUnit_N_`.
  static func wrap(_ unit: Unit, index: Int) -> (String, [String]) {
    var problems: [String] = []
    var external: [String] = []
    var body: [String] = []
    for file in unit.files {
      for line in file.text.split(separator: "\n", omittingEmptySubsequences: false) {
        if line.hasPrefix("import ") {
          if !["import Foundation", "import SwiftData"].contains(String(line)) { problems.append("\(file.name): unexpected \(line)") }
          body.append("")
        } else if line.hasPrefix("// Types from your app or the SDK: ") {
          let names = line.dropFirst("// Types from your app or the SDK: ".count).dropLast(line.hasSuffix(".") ? 1 : 0)
          external += names.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
          body.append(String(line))
        } else {
          let (rewritten, problem) = rewriteAvailability(String(line))
          if let problem { problems.append("\(file.name): \(problem)") }
          body.append(rewritten)
        }
      }
    }
    let stubs = Set(external).sorted().map { "final class \($0) {}; " }.joined()
    // The stubs share the first line, so a line number is the unit's files' joined, plus one.
    return ("import Foundation; enum _MSUnit_\(index)_ { \(stubs)\n" + body.joined(separator: "\n") + "\n}\n", problems)
  }

  /// `@available(iOS 18, macOS 15, ..., *)` → `@available(SwiftData18)`; a mark that does not
  /// reach a release on every platform SwiftData runs on is a problem.
  static func rewriteAvailability(_ line: String) -> (String, String?) {
    guard let start = line.range(of: "@available("), let end = line[start.upperBound...].firstIndex(of: ")") else { return (line, nil) }
    var stated: [String: Int] = [:]
    for part in line[start.upperBound..<end].split(separator: ",") {
      let words = part.split(separator: " ")
      if words.count == 2, let v = Int(words[1].split(separator: ".")[0]) { stated[String(words[0])] = v }
    }
    // A release reached on some platforms only is a problem; it is still rewritten (as reached)
    // so that the compiler goes on to check the rest.
    var domains: [String] = []
    var problem: String?
    for r in releases {
      let reached = r.versions.filter { (stated[$0.key] ?? 0) >= $0.value }.keys.sorted()
      guard !reached.isEmpty else { continue }
      domains.append(r.domain)
      let missing = r.versions.keys.filter { !reached.contains($0) }.sorted()
      if !missing.isEmpty && problem == nil {
        problem =
          "'\(line.trimmingCharacters(in: .whitespaces))' reaches \(r.domain) on \(reached.joined(separator: ", ")) but not on "
          + missing.joined(separator: ", ")
      }
    }
    guard !domains.isEmpty else { return (line, "'\(line.trimmingCharacters(in: .whitespaces))' reaches no SwiftData release") }
    let attributes = domains.map { "@available(\($0))" }.joined(separator: " ")
    return (line.replacingCharacters(in: start.lowerBound...end, with: attributes), problem)
  }

  /// Each compiler error with the unit it belongs to: by the file (`uN.swift`), or for an error
  /// in a macro's expansion by the namespace in the expansion's mangled name (`_MSUnit_N_`).
  static func attribute(_ output: String, units: [Unit]) -> [(String, String)] {
    var out: [(String, String)] = []
    for line in output.split(separator: "\n") where line.contains(": error: ") {
      let text = String(line)
      let unitIndex = firstNumber(after: "/u", before: ".swift:", in: text) ?? firstNumber(after: "_MSUnit_", before: "_", in: text)
      if let k = unitIndex, k < units.count {
        out.append((units[k].name, withoutDirectory(text)))
      } else {
        out.append(("(stub)", text))
      }
    }
    return out
  }

  /// `/tmp/x/u3.swift:4:5: error: ...` → `u3.swift:4:5: error: ...`.
  static func withoutDirectory(_ text: String) -> String {
    guard text.hasPrefix("/"), let colon = text.range(of: ".swift:") else { return text }
    let path = text[..<colon.lowerBound]
    return String(text[(path.lastIndex(of: "/").map { text.index(after: $0) } ?? text.startIndex)...])
  }

  static func firstNumber(after prefix: String, before suffix: String, in text: String) -> Int? {
    var rest = Substring(text)
    while let r = rest.range(of: prefix) {
      let digits = rest[r.upperBound...].prefix { $0.isNumber }
      if !digits.isEmpty, rest[r.upperBound...].dropFirst(digits.count).hasPrefix(suffix) { return Int(digits) }
      rest = rest[r.upperBound...]
    }
    return nil
  }
}
