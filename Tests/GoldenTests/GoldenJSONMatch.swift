import JSONCore

/// Structural JSON comparison for golden transcripts (Tests/Golden/README.md):
/// object member order is ignored, numbers compare by value (1 == 1.0), the string
/// "<any>" matches any present value, and "<ignore>" as an object member value also
/// matches a missing member. The Python and Node replayers implement the same rules.
enum GoldenJSON {
  static let any = "<any>"
  static let ignore = "<ignore>"

  struct Difference {
    var path: String
    var reason: String
    var expected: String
    var actual: String
  }

  /// The first place where `actual` does not match `expected`, or nil.
  static func firstDifference(_ expected: JSONValue, _ actual: JSONValue, path: String = "$") -> Difference? {
    if isWildcard(expected) { return nil }
    func differ(_ reason: String) -> Difference {
      Difference(path: path, reason: reason, expected: expected.description, actual: actual.description)
    }
    guard kind(expected) == kind(actual) else { return differ("expected \(kind(expected)), got \(kind(actual))") }
    switch (expected, actual) {
    case (.object(let e), .object(let a)):
      for m in e.members {
        guard let value = a[m.key] else {
          if m.value == .string(ignore) { continue }
          return Difference(path: child(path, m.key), reason: "missing member", expected: m.value.description, actual: "(missing)")
        }
        if let d = firstDifference(m.value, value, path: child(path, m.key)) { return d }
      }
      for m in a.members where !e.contains(m.key) {
        return Difference(path: child(path, m.key), reason: "unexpected member", expected: "(absent)", actual: m.value.description)
      }
      return nil
    case (.array(let e), .array(let a)):
      for (i, (x, y)) in zip(e, a).enumerated() {
        if let d = firstDifference(x, y, path: "\(path)[\(i)]") { return d }
      }
      return e.count == a.count ? nil : differ("array has \(a.count) elements, expected \(e.count)")
    default:
      return sameScalar(expected, actual) ? nil : differ("value differs")
    }
  }

  /// `actual`, with the wildcards of the previous expectation `old` carried over, so
  /// that rewriting a transcript (UPDATE_GOLDEN=1) keeps its masks for volatile values.
  static func remask(_ old: JSONValue?, _ actual: JSONValue) -> JSONValue {
    guard let old else { return actual }
    if isWildcard(old) { return old }
    switch (old, actual) {
    case (.object(let o), .object(let a)):
      var out = JSONObject()
      for m in a.members { out.append(m.key, remask(o[m.key], m.value)) }
      for m in o.members where m.value == .string(ignore) && !a.contains(m.key) { out.append(m.key, m.value) }
      return .object(out)
    case (.array(let o), .array(let a)):
      return .array(a.enumerated().map { i, v in remask(i < o.count ? o[i] : nil, v) })
    default:
      return actual
    }
  }

  private static func isWildcard(_ v: JSONValue) -> Bool { v == .string(any) || v == .string(ignore) }

  private static func kind(_ v: JSONValue) -> String {
    switch v {
    case .int, .double: return "number"
    default: return v.typeName
    }
  }

  private static func sameScalar(_ x: JSONValue, _ y: JSONValue) -> Bool {
    switch (x, y) {
    case (.int(let a), .double(let b)), (.double(let b), .int(let a)): return Double(a) == b
    default: return x == y
    }
  }

  private static func child(_ path: String, _ key: String) -> String {
    let isName =
      key.first.map { $0.isASCII && ($0.isLetter || $0 == "_" || $0 == "$") } ?? false
      && key.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "$") }
    return isName ? "\(path).\(key)" : "\(path)[\(JSONWriter.encodeString(.string(key)))]"
  }
}
