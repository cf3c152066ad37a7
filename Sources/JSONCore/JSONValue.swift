/// A JSON value held in Swift, so that no jansson pointer escapes this module.
///
/// Objects keep their members in order (`JSONObject`), so output is deterministic
/// and golden transcripts stay stable across runs.
public enum JSONValue: Equatable, Sendable {
  case null
  case bool(Bool)
  case int(Int64)
  case double(Double)
  case string(String)
  case array([JSONValue])
  case object(JSONObject)
  /// Text already encoded by `JSONWriter`, written out as it is: lets a large result be
  /// serialized row by row instead of being built as a tree first.
  case encoded(EncodedJSON)

  /// The JSON type name used in error messages ("expected string, got integer").
  public var typeName: String {
    switch self {
    case .null: return "null"
    case .bool: return "boolean"
    case .int: return "integer"
    case .double: return "number"
    case .string: return "string"
    case .array: return "array"
    case .object: return "object"
    case .encoded: return "encoded JSON"
    }
  }

  public var isNull: Bool { if case .null = self { return true } else { return false } }
  public var stringValue: String? { if case .string(let s) = self { return s } else { return nil } }
  public var objectValue: JSONObject? { if case .object(let o) = self { return o } else { return nil } }
  public var arrayValue: [JSONValue]? { if case .array(let a) = self { return a } else { return nil } }

  /// Member lookup on an object value; nil for non-objects and missing keys.
  public subscript(key: String) -> JSONValue? {
    if case .object(let o) = self { return o[key] }
    return nil
  }
}

/// One complete JSON value as compact UTF-8 text, produced by `JSONWriter` (so it is valid
/// and holds no raw newline).
public struct EncodedJSON: Equatable, Sendable {
  public let bytes: [UInt8]
  public init(writtenBy writer: JSONWriter) { bytes = writer.bytes }
}

/// An ordered JSON object. Lookups are linear: request objects are small, and order
/// matters more than asymptotics here.
public struct JSONObject: Equatable, Sendable, ExpressibleByDictionaryLiteral {
  public var members: [Member]

  public struct Member: Equatable, Sendable {
    public var key: String
    public var value: JSONValue
    public init(_ key: String, _ value: JSONValue) {
      self.key = key
      self.value = value
    }
  }

  public init() { members = [] }
  public init(_ members: [Member]) { self.members = members }
  public init(dictionaryLiteral elements: (String, JSONValue)...) {
    members = elements.map { Member($0.0, $0.1) }
  }

  public var isEmpty: Bool { members.isEmpty }
  public var count: Int { members.count }
  public var keys: [String] { members.map(\.key) }

  /// Reads a member; setting appends a new key or replaces an existing one in place.
  public subscript(key: String) -> JSONValue? {
    get {
      for m in members where m.key == key { return m.value }
      return nil
    }
    set {
      if let i = members.firstIndex(where: { $0.key == key }) {
        if let v = newValue { members[i].value = v } else { members.remove(at: i) }
      } else if let v = newValue {
        members.append(Member(key, v))
      }
    }
  }

  /// Appends without checking for an existing key; for builders that know keys are new.
  public mutating func append(_ key: String, _ value: JSONValue) {
    members.append(Member(key, value))
  }

  public func contains(_ key: String) -> Bool { members.contains { $0.key == key } }
}

// No ExpressibleByNilLiteral: with it, `nil` where a `JSONValue?` is expected silently
// becomes `.null` (a reply of `null` where none was meant). Write `.null` explicitly.
extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
  ExpressibleByFloatLiteral, ExpressibleByArrayLiteral
{
  public init(stringLiteral value: String) { self = .string(value) }
  public init(integerLiteral value: Int64) { self = .int(value) }
  public init(booleanLiteral value: Bool) { self = .bool(value) }
  public init(floatLiteral value: Double) { self = .double(value) }
  public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
}

extension JSONValue: ExpressibleByDictionaryLiteral {
  public init(dictionaryLiteral elements: (String, JSONValue)...) {
    self = .object(JSONObject(elements.map { JSONObject.Member($0.0, $0.1) }))
  }
}
