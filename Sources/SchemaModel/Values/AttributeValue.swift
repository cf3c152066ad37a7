import JSONCore

/// Why a JSON value does not fit an attribute's type.
public struct ValueError: Error, Equatable {
  public var expected: String
  public var got: String
  public var message: String
}

/// An attribute's value checked against its type and parsed from its wire form (JSON),
/// before any storage encoding: what each database engine encodes in its own way
/// (StoreEngine's `AttributeType.encode`). protocol.md "Wire encoding of values"
/// documents every case.
public enum AttributeValue: Equatable, Sendable {
  case null
  /// `int`, `int16`, `int32`, `int64` (within the type's range).
  case integer(Int64)
  /// `double`, `float` (a float's value rounded to Float).
  case number(Double)
  /// `decimal`: canonical decimal text.
  case decimal(String)
  case bool(Bool)
  /// `date`: seconds since 1970.
  case date(Double)
  /// `uuid`: its 16 bytes.
  case uuid([UInt8])
  /// `data`: the bytes the base64 text gave.
  case data([UInt8])
  /// `string` and `url`.
  case string(String)
  /// `json`: the value's JSON text.
  case json(String)
}

extension AttributeType {
  /// The typed form of `value`; `.null` for JSON null. Throws when the value does not fit.
  public func parse(_ value: JSONValue) throws -> AttributeValue {
    if case .null = value { return .null }
    switch (self, value) {
    case (.string, .string(let s)): return .string(s)
    case (.int, .int(let i)), (.int64, .int(let i)): return .integer(i)
    case (.int16, .int(let i)), (.int32, .int(let i)):
      guard integerRange!.contains(i) else { throw mismatch(value, "an integer in \(integerRange!)") }
      return .integer(i)
    case (.double, .int(let i)): return .number(Double(i))
    case (.double, .double(let d)): return .number(d)
    case (.float, .int(let i)): return .number(Double(Float(i)))
    case (.float, .double(let d)):
      let f = Float(d)
      guard f.isFinite || !d.isFinite else { throw mismatch(value, "a number within Float's range") }
      return .number(Double(f))
    case (.decimal, .string(let s)):
      guard let c = DecimalText.canonical(s) else { throw mismatch(value, "a decimal string such as \"12.50\"") }
      return .decimal(c)
    case (.decimal, .int(let i)): return .decimal(String(i))
    case (.bool, .bool(let b)): return .bool(b)
    case (.date, .string(let s)):
      guard let d = ISODate.parse(s) else { throw mismatch(value, "an ISO 8601 date such as \"2026-01-31T12:00:00.000Z\"") }
      return .date(d)
    case (.uuid, .string(let s)):
      guard let u = UUIDText.bytes(s) else { throw mismatch(value, "a UUID string") }
      return .uuid(u)
    case (.data, .string(let s)):
      guard let bytes = Base64.decode(s) else { throw mismatch(value, "base64 text") }
      return .data(bytes)
    case (.url, .string(let s)):
      guard !s.isEmpty, !s.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }) else {
        throw mismatch(value, "a URL without spaces or control characters")
      }
      return .string(s)
    case (.json, _): return .json(JSONWriter.encodeString(value))
    default:
      throw mismatch(value, wireDescription)
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
