/// A value of an XML property list (Apple's `plist` DTD), read without Foundation. Xcode
/// keeps a model bundle's current version in one (`.xccurrentversion`).
public indirect enum PropertyList: Equatable, Sendable {
  case dictionary([(key: String, value: PropertyList)])
  case array([PropertyList])
  case string(String)
  case integer(Int64)
  case real(Double)
  case bool(Bool)
  /// ISO 8601 text, as written.
  case date(String)
  /// Base64 text, as written.
  case data(String)

  public subscript(key: String) -> PropertyList? {
    guard case .dictionary(let entries) = self else { return nil }
    return entries.first { $0.key == key }?.value
  }

  public var stringValue: String? { if case .string(let s) = self { return s } else { return nil } }

  public static func == (l: PropertyList, r: PropertyList) -> Bool {
    switch (l, r) {
    case (.dictionary(let a), .dictionary(let b)):
      return a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    case (.array(let a), .array(let b)): return a == b
    case (.string(let a), .string(let b)), (.date(let a), .date(let b)), (.data(let a), .data(let b)): return a == b
    case (.integer(let a), .integer(let b)): return a == b
    case (.real(let a), .real(let b)): return a == b
    case (.bool(let a), .bool(let b)): return a == b
    default: return false
    }
  }

  /// Reads an XML property list document (`<plist version="1.0">` around one value).
  public static func parse(_ bytes: [UInt8]) throws -> PropertyList {
    let root = try XMLReader.parse(bytes)
    guard root.name == "plist" else {
      throw XMLError("expected a <plist> document, found <\(root.name)>", line: root.line, column: root.column)
    }
    let values = root.children
    guard values.count == 1 else {
      throw XMLError("<plist> must hold exactly one value, found \(values.count)", line: root.line, column: root.column)
    }
    return try value(values[0], depth: 0)
  }

  private static func value(_ e: XMLElement, depth: Int) throws -> PropertyList {
    func fail(_ message: String, _ at: XMLElement = e) -> XMLError { XMLError(message, line: at.line, column: at.column) }
    guard depth < 64 else { throw fail("property list nests deeper than 64 levels") }
    switch e.name {
    case "dict":
      var entries: [(key: String, value: PropertyList)] = []
      var k = 0
      while k < e.children.count {
        let keyElement = e.children[k]
        guard keyElement.name == "key" else { throw fail("expected <key> in <dict>, found <\(keyElement.name)>", keyElement) }
        guard k + 1 < e.children.count else { throw fail("<key>\(keyElement.text)</key> has no value", keyElement) }
        if entries.contains(where: { $0.key == keyElement.text }) { throw fail("key '\(keyElement.text)' appears twice", keyElement) }
        entries.append((keyElement.text, try value(e.children[k + 1], depth: depth + 1)))
        k += 2
      }
      return .dictionary(entries)
    case "array": return .array(try e.children.map { try value($0, depth: depth + 1) })
    case "string": return .string(e.text)
    case "integer":
      guard let v = Int64(e.text.trimmingXMLSpace) else { throw fail("'\(e.text)' is not an integer") }
      return .integer(v)
    case "real":
      guard let v = Double(e.text.trimmingXMLSpace) else { throw fail("'\(e.text)' is not a real number") }
      return .real(v)
    case "true": return .bool(true)
    case "false": return .bool(false)
    case "date": return .date(e.text.trimmingXMLSpace)
    case "data": return .data(String(e.text.unicodeScalars.filter { !$0.properties.isWhitespace }))
    default: throw fail("<\(e.name)> is not a property list value")
    }
  }
}

extension String {
  /// Without leading and trailing spaces, tabs and line ends.
  var trimmingXMLSpace: String {
    let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
    guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
    return String(self[first...last])
  }
}
