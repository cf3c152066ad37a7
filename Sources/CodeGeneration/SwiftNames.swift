import CoreDataTooling
import JSONCore
import SchemaModel

/// Swift spellings shared by the SwiftData and Core Data generators: identifiers, types
/// and literals.
enum SwiftNames {
  /// A name usable as a Swift identifier: keywords get backticks.
  static func identifier(_ name: String) -> String { ModelAuditRun.swiftKeywords.contains(name) ? "`\(name)`" : name }

  /// A type name made from free text ("Model 2" -> "Model2"); starts with a letter.
  static func typeName(_ text: String) -> String {
    var out = ""
    var upperNext = true
    for c in text.unicodeScalars {
      if (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || (c >= "0" && c <= "9") || c == "_" {
        out.unicodeScalars.append(upperNext ? Unicode.Scalar(String(c).uppercased())! : c)
        upperNext = false
      } else {
        upperNext = true
      }
    }
    if out.isEmpty || out.first!.isNumber { out = "Model" + out }
    return out
  }

  /// The Swift value type of an attribute (without `?`).
  static func valueType(_ t: AttributeType) -> String {
    switch t {
    case .string: return "String"
    case .int: return "Int"
    case .int16: return "Int16"
    case .int32: return "Int32"
    case .int64: return "Int64"
    case .double: return "Double"
    case .float: return "Float"
    case .decimal: return "Decimal"
    case .bool: return "Bool"
    case .date: return "Date"
    case .uuid: return "UUID"
    case .data, .json: return "Data"
    case .url: return "URL"
    }
  }

  /// A Swift string literal.
  static func string(_ s: String) -> String { quoted(s) { "\\u{\(String($0, radix: 16))}" } }

  /// `s` in double quotes with `"`, `\`, `\n`, `\r`, `\t` escaped and other control
  /// characters as `control` writes them: the common ground of Swift's and Python's literals.
  static func quoted(_ s: String, control: (UInt32) -> String) -> String {
    var out = "\""
    for c in s.unicodeScalars {
      switch c {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      case "\r": out += "\\r"
      case "\t": out += "\\t"
      default:
        if c.value < 0x20 || c.value == 0x7F { out += control(c.value) } else { out.unicodeScalars.append(c) }
      }
    }
    return out + "\""
  }

  /// The Swift expression of a default value, or nil when it has no Swift form (json).
  /// `types` qualifies a system type an entity's name would shadow.
  static func defaultExpression(_ d: DefaultValue, _ t: AttributeType, _ types: SwiftTypeSpelling? = nil) -> String? {
    func type(_ name: String) -> String { types?.system(name) ?? name }
    switch d {
    case .generate(.uuid): return t == .uuid ? "\(type("UUID"))()" : "\(type("UUID"))().uuidString"
    case .generate(.now): return "\(type("Date")).now"
    case .literal(let v):
      switch (t, v) {
      case (.string, .string(let s)): return string(s)
      case (.int, .int(let i)), (.int16, .int(let i)), (.int32, .int(let i)), (.int64, .int(let i)): return String(i)
      case (.double, .int(let i)), (.float, .int(let i)): return "\(i).0"
      case (.double, .double(let d)), (.float, .double(let d)): return d.isFinite ? number(d) : nil
      case (.decimal, .string(let s)):
        // An integer literal is exact (Decimal's integer literals are Int: 32 bits on watchOS);
        // a fraction goes through the text, as a float literal would through Double.
        if let i = Int64(s), i.magnitude <= UInt64(Int32.max) { return String(i) }
        return "\(type("Decimal"))(string: \(string(s)))!"
      case (.decimal, .int(let i)):
        return i.magnitude <= UInt64(Int32.max) ? String(i) : "\(type("Decimal"))(string: \(string(String(i))))!"
      case (.bool, .bool(let b)): return b ? "true" : "false"
      case (.date, .string(let s)):
        guard let seconds = ISODate.parse(s) else { return nil }
        return "\(type("Date"))(timeIntervalSince1970: \(number(seconds)))"
      case (.uuid, .string(let s)): return "\(type("UUID"))(uuidString: \(string(s)))!"
      case (.url, .string(let s)): return "\(type("URL"))(string: \(string(s)))!"
      case (.data, .string(let s)): return "\(type("Data"))(base64Encoded: \(string(s)))!"
      default: return nil
      }
    }
  }

  /// A double as a Swift float literal (always with a fraction or exponent).
  static func number(_ d: Double) -> String {
    let text = JSONWriter.encodeString(.double(d))
    return text.contains(".") || text.contains("e") ? text : text + ".0"
  }
}
