import DatabaseKit
import JSONCore
import SchemaModel

/// The engine's encoding of attribute values onto the database seam's `SQLValue`: one
/// class per column kind (`ColumnContent`), the same for every engine; an engine with richer
/// column types converts at its statements (see CONTRIBUTING.md, "Database seam").
/// protocol.md "Wire encoding of values" documents every case.
extension AttributeType {
  /// What a column of this type holds; the dialect picks its declared type (`SQLDialect.columnType`).
  public var columnContent: ColumnContent {
    switch self {
    case .int, .int16, .int32, .int64: return .integer
    case .bool: return .boolean
    case .double, .float: return .real
    case .date: return .date
    case .decimal: return .decimal
    case .string, .url: return .text
    case .uuid: return .uuid
    case .data: return .bytes
    case .json: return .json
    }
  }

  /// The stored form of `value`; `.null` for JSON null. Throws `ValueError` when the value
  /// does not fit.
  public func encode(_ value: JSONValue) throws -> SQLValue { try parse(value).stored }

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
}

extension AttributeValue {
  /// The value as bound to a statement.
  public var stored: SQLValue {
    switch self {
    case .null: return .null
    case .integer(let i): return .integer(i)
    case .number(let d), .date(let d): return .real(d)
    case .bool(let b): return .integer(b ? 1 : 0)
    case .decimal(let s), .string(let s), .json(let s): return .text(s)
    case .uuid(let b), .data(let b): return .blob(b)
    }
  }
}

extension DefaultValue.Generator {
  /// A fresh value in the stored form of `type` (a uuid's 16 bytes, a string's text).
  public func storedValue(for type: AttributeType) -> SQLValue { generate(for: type).stored }
}

extension Attribute {
  /// The stored form of a literal default (nil for none or a generated one).
  public func storedLiteralDefault() throws -> SQLValue? {
    guard case .literal(let v)? = defaultValue else { return nil }
    return try type.encode(v)
  }
}
