import Foundation
import JSONCore
import TestSupport
import XCTest

/// The clients' typed results against the result schemas of protocol.json, member by
/// member: the Node client's result interfaces (`Clients/node/src/types.ts`) and the Python
/// client's result TypedDicts (`typed.py`). Every described member is in the type and every
/// member of the type is described (where the description lists all), a member is optional
/// (`?`, `NotRequired`) exactly where the description does not require it, and admits null
/// (`| null`, `Optional`) exactly where the description does. Member types beyond null are
/// not compared (each client names its own types).
final class ClientResultTypesTests: XCTestCase {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  override func setUpWithError() throws { try TestEngine.storeIndependent("the clients' result types") }

  /// Method -> its result interface in types.ts (and, for a `oneOf` result, which alternative).
  static let interfaces: [(method: String, interface: String, alternative: Int?)] = [
    ("initialize", "InitializeResult", nil), ("store.backup", "BackupResult", nil), ("model.diff", "SchemaDiffResult", nil),
    ("model.importXcdatamodel", "ImportXcdatamodelResult", nil), ("model.audit", "AuditResult", nil),
    ("model.generate", "GenerateResult", nil), ("model.diagram", "DiagramResult", nil), ("objects.upsert", "UpsertResult", nil),
    ("objects.delete", "DeleteResult", nil),
    ("objects.get", "ObjectsResult", 1), ("query.fetch", "FetchResult", nil), ("query.observe", "ObserveResult", nil),
    ("query.count", "CountResult", nil), ("query.aggregate", "AggregateResult", nil), ("migration.apply", "MigrationResult", nil),
    ("migration.plan", "MigrationResult", nil), ("history.fetch", "HistoryResult", nil), ("import.coreData", "ImportCoreDataResult", nil),
  ]

  /// Method -> its result TypedDict in the Python client's typed.py.
  static let typedDicts: [(method: String, interface: String, alternative: Int?)] = [
    ("query.fetch", "Fetched", nil), ("objects.upsert", "Upserted", nil), ("objects.get", "Many", 1),
  ]

  func testNodeResultInterfacesMatchTheDescription() throws {
    let text = try String(contentsOf: Self.root.appendingPathComponent("Clients/node/src/types.ts"), encoding: .utf8)
    let problems = try compare(Self.interfaces) { TypeScriptInterface.members(of: $0, in: text) }
    XCTAssertEqual(problems, [], problems.joined(separator: "\n"))
  }

  func testPythonResultTypedDictsMatchTheDescription() throws {
    let text = try String(contentsOf: Self.root.appendingPathComponent("Clients/python/src/modelstore_client/typed.py"), encoding: .utf8)
    let problems = try compare(Self.typedDicts) { PythonTypedDict.members(of: $0, in: text) }
    XCTAssertEqual(problems, [], problems.joined(separator: "\n"))
  }

  private func compare(
    _ types: [(method: String, interface: String, alternative: Int?)], _ members: (String) -> [TypeScriptInterface.Member]?
  ) throws -> [String] {
    let checker = ResultSchemaChecker.shared
    let components = try JSONParser.parse(String(contentsOf: Self.root.appendingPathComponent("protocol.json"), encoding: .utf8))[
      "components"]?["schemas"]
    func resolve(_ s: JSONValue) -> JSONValue {
      guard let ref = s["$ref"]?.stringValue, let name = ref.split(separator: "/").last else { return s }
      return components?[String(name)] ?? s
    }
    var problems: [String] = []
    for (method, name, alternative) in types {
      guard var schema = checker.results[method].map(resolve) else {
        problems.append("\(method): not in the description")
        continue
      }
      if let alternative { schema = resolve(schema["oneOf"]?.arrayValue?[alternative] ?? .null) }
      guard let members = members(name) else {
        problems.append("\(method): the client has no type \(name)")
        continue
      }
      let properties = schema["properties"]?.objectValue ?? [:]
      let required = Set((schema["required"]?.arrayValue ?? []).compactMap(\.stringValue))
      for p in properties.members {
        guard let m = members.first(where: { $0.name == p.key }) else {
          problems.append("\(method): \(name) lacks the described member '\(p.key)'")
          continue
        }
        if m.optional == required.contains(p.key) {
          problems.append(
            "\(method): \(name).\(p.key) is \(m.optional ? "optional" : "required"), the description says \(required.contains(p.key) ? "required" : "optional")"
          )
        }
        let nullable = resolve(p.value)["oneOf"]?.arrayValue?.contains { $0["type"] == "null" } ?? false
        if nullable != m.nullable {
          problems.append(
            "\(method): \(name).\(p.key) is \(m.nullable ? "" : "not ")nullable in types.ts, \(nullable ? "" : "not ")in the description")
        }
      }
      if schema["additionalProperties"] == .bool(false) {
        for m in members where properties[m.name] == nil { problems.append("\(method): \(name).\(m.name) is not described") }
      }
    }
    return problems
  }
}

/// The top-level members of an `export interface` in a TypeScript file (with those of the
/// interfaces it extends): names, `?`, and whether the type admits `null`.
enum TypeScriptInterface {
  struct Member {
    var name: String
    var optional: Bool
    var nullable: Bool
  }

  static func members(of name: String, in text: String) -> [Member]? {
    guard let start = text.range(of: "export interface \(name)") else { return nil }
    let rest = text[start.upperBound...]
    guard let open = rest.firstIndex(of: "{") else { return nil }
    // Generic params (`<T extends StoredObject = StoredObject>`) are no `extends` clause.
    let header = String(rest[..<open]).replacingOccurrences(of: #"<[^>]*>"#, with: "", options: .regularExpression)
    var inherited: [Member] = []
    if let ext = header.range(of: "extends ") {
      let parent = header[ext.upperBound...].split(whereSeparator: { !$0.isLetter && !$0.isNumber }).first.map(String.init) ?? ""
      inherited = members(of: parent, in: text) ?? []
    }
    // The body up to its closing brace, comments removed, split at top-level `;`.
    var depth = 0
    var body = ""
    var i = rest.index(after: open)
    while i < rest.endIndex {
      let c = rest[i]
      if c == "{" || c == "(" || c == "[" || c == "<" { depth += 1 }
      if c == "}" || c == ")" || c == "]" || c == ">" {
        if depth == 0 { break }
        depth -= 1
      }
      body.append(depth == 0 && c == ";" ? "\u{1}" : c)
      i = rest.index(after: i)
    }
    let cleaned = body.replacingOccurrences(of: #"/\*[\s\S]*?\*/"#, with: "", options: .regularExpression)
      .replacingOccurrences(of: #"//[^\n]*"#, with: "", options: .regularExpression)
    return inherited
      + cleaned.split(separator: "\u{1}").compactMap { part in
        let field = part.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let colon = field.firstIndex(of: ":") else { return nil }
        var key = String(field[..<colon]).trimmingCharacters(in: .whitespaces)
        let optional = key.hasSuffix("?")
        if optional { key.removeLast() }
        let type = field[field.index(after: colon)...]
        // `| null` at the top level of the member's type (not inside a nested object).
        var level = 0
        var topLevel = ""
        for c in type {
          if "{([<".contains(c) { level += 1 }
          if "})]>".contains(c) { level -= 1 }
          if level == 0 { topLevel.append(c) }
        }
        return Member(name: key, optional: optional, nullable: topLevel.contains("null"))
      }
  }
}

/// The members of a `class NAME(TypedDict...)` in a Python file: `name: type` lines of its
/// body, `NotRequired[...]` optional, `Optional[...]` or `None` nullable.
enum PythonTypedDict {
  static func members(of name: String, in text: String) -> [TypeScriptInterface.Member]? {
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    guard let start = lines.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces).hasPrefix("class \(name)(TypedDict") }) else {
      return nil
    }
    let indent = lines[start].prefix { $0 == " " }.count
    var out: [TypeScriptInterface.Member] = []
    for line in lines[(start + 1)...] {
      let body = line.trimmingCharacters(in: .whitespaces)
      if body.isEmpty { continue }
      if line.prefix(while: { $0 == " " }).count <= indent { break }
      guard let colon = body.firstIndex(of: ":"), body[..<colon].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else { continue }
      let type = body[body.index(after: colon)...].trimmingCharacters(in: .whitespaces)
      out.append(
        TypeScriptInterface.Member(
          name: String(body[..<colon]), optional: type.hasPrefix("NotRequired["),
          nullable: type.contains("Optional[") || type.contains("None")))
    }
    return out
  }
}
