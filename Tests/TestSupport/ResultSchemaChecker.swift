import Foundation
import JSONCore
import XCTest

/// Checks a method's result against the result schema `protocol.json` gives for it: the
/// subset of JSON Schema the description uses (`type`, `properties`, `required`,
/// `additionalProperties`, `items`, `oneOf`, `enum`, `const`, `$ref` into
/// `components.schemas`). So a reply that drifts from its described shape fails a test.
public struct ResultSchemaChecker: Sendable {
  /// The description at the repository root (a test keeps it equal to the binary's output).
  public static let shared: ResultSchemaChecker = {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("protocol.json")
    do {
      return ResultSchemaChecker(description: try JSONParser.parse(try String(contentsOf: url, encoding: .utf8)))
    } catch {
      fatalError("cannot read \(url.path): \(error)")
    }
  }()

  public let results: [String: JSONValue]
  let components: JSONObject

  public init(description: JSONValue) {
    var results: [String: JSONValue] = [:]
    for m in description["methods"]?.arrayValue ?? [] {
      if let name = m["name"]?.stringValue, let schema = m["result"]?["schema"] { results[name] = schema }
    }
    self.results = results
    components = description["components"]?["schemas"]?.objectValue ?? [:]
  }

  /// Methods the transport answers itself (protocol.md, "Cancellation" and "LSP clients"),
  /// outside the method table the description lists: sent as requests, they answer `null`.
  public static let transportMethods: Set<String> = ["$/cancelRequest", "initialized"]

  /// Every way `result` differs from `method`'s described result, each with its JSON path
  /// (empty when it conforms).
  public func problems(method: String, result: JSONValue) -> [String] {
    if Self.transportMethods.contains(method) {
      return result == .null ? [] : ["\(method): the transport answers null, got \(short(result))"]
    }
    guard let schema = results[method] else { return ["\(method): not in the description"] }
    var out: [String] = []
    check(result, schema, "result", &out)
    return out.map { "\(method): \($0)" }
  }

  /// Fails the running test for each problem of a reply to `method`.
  public func expectConforms(method: String, result: JSONValue, file: StaticString = #filePath, line: UInt = #line) {
    for p in problems(method: method, result: result) { XCTFail("result does not match protocol.json: \(p)", file: file, line: line) }
  }

  private func resolve(_ schema: JSONValue) -> JSONValue {
    guard let ref = schema["$ref"]?.stringValue else { return schema }
    let name = String(ref.split(separator: "/").last ?? "")
    guard let target = components[name] else { return ["not": .object([:]), "x-missing": .string(ref)] }
    return resolve(target)
  }

  private func matches(_ v: JSONValue, _ schema: JSONValue) -> Bool {
    var out: [String] = []
    check(v, schema, "", &out)
    return out.isEmpty
  }

  private func check(_ v: JSONValue, _ raw: JSONValue, _ path: String, _ out: inout [String]) {
    let schema = resolve(raw)
    if let missing = schema["x-missing"]?.stringValue {
      out.append("\(path): the description names \(missing), which it does not define")
      return
    }
    if let options = schema["oneOf"]?.arrayValue {
      let fitting = options.filter { matches(v, $0) }.count
      if fitting != 1 { out.append("\(path): \(fitting) of the \(options.count) oneOf alternatives match \(short(v))") }
      return
    }
    if let words = schema["enum"]?.arrayValue, !words.contains(v) { out.append("\(path): \(short(v)) is not one of \(words)") }
    if let constant = schema["const"], constant != v { out.append("\(path): expected \(constant), got \(short(v))") }
    if let type = schema["type"]?.stringValue, !has(v, type) {
      out.append("\(path): expected \(type), got \(v.typeName) \(short(v))")
      return
    }
    switch v {
    case .object(let o):
      let properties = schema["properties"]?.objectValue ?? [:]
      for case .string(let key) in schema["required"]?.arrayValue ?? [] where o[key] == nil {
        out.append("\(path): missing member '\(key)'")
      }
      for m in o.members {
        if let p = properties[m.key] {
          check(m.value, p, path + "." + m.key, &out)
        } else if let extra = schema["additionalProperties"] {
          if extra == .bool(false) {
            out.append("\(path): member '\(m.key)' is not described")
          } else if extra.objectValue != nil {
            check(m.value, extra, path + "." + m.key, &out)
          }
        }
      }
    case .array(let a):
      if let items = schema["items"] { for (i, e) in a.enumerated() { check(e, items, "\(path)[\(i)]", &out) } }
    default:
      break
    }
  }

  private func has(_ v: JSONValue, _ type: String) -> Bool {
    switch (type, v) {
    case ("object", .object), ("array", .array), ("string", .string), ("boolean", .bool), ("null", .null): true
    case ("integer", .int): true
    case ("integer", .double(let d)): d.rounded() == d
    case ("number", .int), ("number", .double): true
    default: false
    }
  }

  private func short(_ v: JSONValue) -> String {
    let text = JSONWriter.encodeString(v)
    return text.count > 80 ? String(text.prefix(80)) + "…" : text
  }
}
