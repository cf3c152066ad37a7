import JSONCore
import SQLiteCore

/// Why a JSON value does not fit an attribute's type.
public struct ValueError: Error, Equatable {
  public var expected: String
  public var got: String
  public var message: String
}

/// Converts between an attribute's wire form (JSON) and its stored form (SQLite).
/// protocol.md "Wire encoding of values" documents every case.
extension AttributeType {
  /// The stored form of `value`; `.null` for JSON null. Throws when the value does not fit.
  public func encode(_ value: JSONValue) throws -> SQLValue {
    if case .null = value { return .null }
    switch (self, value) {
    case (.string, .string(let s)): return .text(s)
    case (.int, .int(let i)), (.int64, .int(let i)): return .integer(i)
    case (.int16, .int(let i)), (.int32, .int(let i)):
      guard integerRange!.contains(i) else { throw mismatch(value, "an integer in \(integerRange!)") }
      return .integer(i)
    case (.double, .int(let i)): return .real(Double(i))
    case (.double, .double(let d)): return .real(d)
    case (.float, .int(let i)): return .real(Double(Float(i)))
    case (.float, .double(let d)):
      let f = Float(d)
      guard f.isFinite || !d.isFinite else { throw mismatch(value, "a number within Float's range") }
      return .real(Double(f))
    case (.decimal, .string(let s)):
      guard let c = DecimalText.canonical(s) else { throw mismatch(value, "a decimal string such as \"12.50\"") }
      return .text(c)
    case (.decimal, .int(let i)): return .text(String(i))
    case (.bool, .bool(let b)): return .integer(b ? 1 : 0)
    case (.date, .string(let s)):
      guard let d = ISODate.parse(s) else { throw mismatch(value, "an ISO 8601 date such as \"2026-01-31T12:00:00.000Z\"") }
      return .real(d)
    case (.uuid, .string(let s)):
      guard let u = UUIDText.bytes(s) else { throw mismatch(value, "a UUID string") }
      return .blob(u)
    case (.data, .string(let s)):
      guard let bytes = Base64.decode(s) else { throw mismatch(value, "base64 text") }
      return .blob(bytes)
    case (.url, .string(let s)):
      guard !s.isEmpty, !s.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }) else {
        throw mismatch(value, "a URL without spaces or control characters")
      }
      return .text(s)
    case (.json, _): return .text(JSONWriter.encodeString(value))
    default:
      throw mismatch(value, wireDescription)
    }
  }

  /// The wire form of a stored value. Stored values of an unexpected class (written by
  /// another program) are passed through in the nearest JSON form rather than dropped.
  public func decode(_ value: SQLValue) -> JSONValue {
    switch (self, value) {
    case (_, .null): return .null
    case (.bool, .integer(let i)): return .bool(i != 0)
    case (.int, .integer(let i)), (.int16, .integer(let i)), (.int32, .integer(let i)), (.int64, .integer(let i)):
      return .int(i)
    case (.double, .real(let d)), (.float, .real(let d)): return .double(d)
    case (.double, .integer(let i)), (.float, .integer(let i)): return .double(Double(i))
    case (.date, .real(let d)): return ISODate.wireValue(d)
    case (.date, .integer(let i)): return ISODate.wireValue(Double(i))
    case (.data, .blob(let b)): return .string(Base64.encode(b))
    case (.uuid, .blob(let b)) where b.count == 16: return .string(UUIDText.text(b))
    case (.json, .text(let s)): return (try? JSONParser.parse(s)) ?? .string(s)
    case (_, .text(let s)): return .string(s)
    case (_, .integer(let i)): return .int(i)
    case (_, .real(let d)): return .double(d)
    case (_, .blob(let b)): return .string(Base64.encode(b))
    }
  }

  /// How values of this type look on the wire, for error messages.
  public var wireDescription: String {
    switch self {
    case .string: return "a string"
    case .int, .int64: return "an integer"
    case .int16, .int32: return "an integer in \(integerRange!)"
    case .double, .float: return "a number"
    case .decimal: return "a decimal string"
    case .bool: return "a boolean"
    case .date: return "an ISO 8601 date string"
    case .uuid: return "a UUID string"
    case .data: return "base64 text"
    case .url: return "a URL string"
    case .json: return "any JSON value"
    }
  }

  private func mismatch(_ value: JSONValue, _ expected: String) -> ValueError {
    let got: String
    switch value {
    case .string(let s): got = s.utf8.count > 40 ? "string" : "string \"\(s)\""
    case .int(let i): got = "integer \(i)"
    case .double(let d): got = "number \(d)"
    default: got = value.typeName
    }
    return ValueError(expected: expected, got: got, message: "expected \(expected) for type \(rawValue), got \(got)")
  }
}
