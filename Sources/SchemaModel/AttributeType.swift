import JSONCore

/// The attribute types a schema can declare: SwiftData's value types plus `json` for
/// Codable / transformable values. protocol.md, "Wire encoding of values", gives the
/// JSON and SQLite form of each.
public enum AttributeType: String, CaseIterable, Sendable {
  case string, int, int16, int32, int64, double, float, decimal, bool, date, uuid, data, url, json

  /// The family of column the type's values need: types of one family can share a column
  /// of a hierarchy's table (SchemaValidator's rule). The names are SQL's generic type
  /// names, as messages show them; the column's declared type is the database dialect's
  /// choice (StoreEngine's `AttributeType.columnKind`, `SQLDialect.columnType`).
  public var columnFamily: String {
    switch self {
    case .int, .int16, .int32, .int64, .bool: return "INTEGER"
    case .double, .float, .date: return "REAL"
    case .data, .uuid: return "BLOB"
    case .string, .decimal, .url, .json: return "TEXT"
    }
  }

  public var isInteger: Bool { self == .int || self == .int16 || self == .int32 || self == .int64 }
  public var isNumeric: Bool { isInteger || self == .double || self == .float || self == .decimal }

  /// The integer range the type accepts (SwiftData's `Int` is 64-bit).
  public var integerRange: ClosedRange<Int64>? {
    switch self {
    case .int16: return Int64(Int16.min)...Int64(Int16.max)
    case .int32: return Int64(Int32.min)...Int64(Int32.max)
    case .int, .int64: return Int64.min...Int64.max
    default: return nil
    }
  }
}

/// Where a default value comes from: a literal, or a generator run at insert time.
public enum DefaultValue: Equatable, Sendable {
  case literal(JSONValue)
  case generate(Generator)

  public enum Generator: String, Sendable, CaseIterable {
    /// A new random UUID (for `uuid` and `string` attributes).
    case uuid
    /// The current time (for `date` attributes).
    case now

    /// A fresh value of `type` (a uuid attribute's UUID, a string's UUID text, a date's now).
    public func generate(for type: AttributeType) -> AttributeValue {
      switch self {
      case .uuid: return type == .uuid ? .uuid(UUIDText.randomBytes()) : .string(UUIDText.random())
      case .now: return .date(currentTimeSeconds())
      }
    }
  }
}

/// What a relationship does to its destination objects when its source is deleted.
public enum DeleteRule: String, CaseIterable, Sendable {
  case nullify, cascade, deny, noAction
}
