import CoreDataTooling
import DatabaseKit
import SchemaModel

/// How a Core Data column's stored value becomes ModelStore's stored value, as an SQL
/// expression, so that the same conversion serves the in-place views and the import
/// (which copies from those views).
enum CoreDataValueKind: Equatable {
  /// Strings, integers, booleans (0/1), floats, URIs: the same stored form in both stores.
  case plain
  /// REAL seconds since 2001-01-01 -> REAL seconds since 1970-01-01 (NULL for text or a
  /// blob, which the import refuses).
  case date
  /// A 16-byte BLOB, as ModelStore stores a uuid too (NULL for anything else, which the
  /// import refuses).
  case uuid
  /// A REAL, INTEGER or TEXT number -> canonical decimal text (`ms_cd_decimal`).
  case decimal
  /// A BLOB written with "allows external storage": a 1-byte marker, then the bytes (1)
  /// or the name of a file in `.<store>_SUPPORT/_EXTERNAL_DATA/` (2) (`ms_cd_external`).
  case externalData
}

enum CoreDataValues {
  /// Seconds from 1970-01-01 to 2001-01-01, Core Data's reference date (that of property lists too).
  static let referenceDateOffset = PlistValue.referenceDateOffset

  /// The SQL expression converting column `column` (already qualified and quoted).
  static func expression(_ kind: CoreDataValueKind, _ column: String) -> String {
    switch kind {
    case .plain: return column
    // Only numbers are dates: SQL's + would read text or a blob as 0 (2001-01-01).
    case .date: return "CASE WHEN typeof(\(column)) IN ('real', 'integer') THEN \(column) + \(referenceDateOffset) END"
    case .uuid: return "CASE WHEN typeof(\(column)) = 'blob' AND length(\(column)) = 16 THEN \(column) END"
    case .decimal: return "ms_cd_decimal(\(column))"
    case .externalData: return "ms_cd_external(\(column))"
    }
  }

  /// A condition true for the rows whose value cannot be converted (the import refuses
  /// them, naming the row); nil when every stored value converts.
  static func invalidCondition(_ kind: CoreDataValueKind, _ column: String) -> String? {
    switch kind {
    case .uuid: return "\(column) IS NOT NULL AND (typeof(\(column)) <> 'blob' OR length(\(column)) <> 16)"
    case .date: return "\(column) IS NOT NULL AND typeof(\(column)) NOT IN ('real', 'integer')"
    default: return nil
    }
  }

  /// A condition for values that are kept as null with a warning (a decimal NaN, an
  /// external file that is missing): Core Data can hold them, ModelStore cannot.
  static func lossyCondition(_ kind: CoreDataValueKind, _ column: String) -> String? {
    switch kind {
    case .decimal, .externalData: return "\(column) IS NOT NULL AND \(expression(kind, column)) IS NULL"
    default: return nil
    }
  }

  /// Canonical decimal text of a Core Data DECIMAL value; nil for NaN, infinities and text
  /// that is not a number.
  static func decimal(_ v: SQLValue) -> SQLValue {
    switch v {
    case .integer(let i): return .text(String(i))
    case .real(let d):
      guard d.isFinite else { return .null }
      return DecimalText.canonical(plainDigits(d)).map { .text($0) } ?? .null
    case .text(let s): return DecimalText.canonical(s).map { .text($0) } ?? .null
    default: return .null
    }
  }

  /// The shortest round-tripping digits of `d` without an exponent (`1e-07` -> `0.0000001`).
  static func plainDigits(_ d: Double) -> String {
    let text = d.description
    guard let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }), let exponent = Int(text[text.index(after: e)...]) else { return text }
    var mantissa = String(text[..<e])
    let negative = mantissa.hasPrefix("-")
    if negative { mantissa.removeFirst() }
    let parts = mantissa.split(separator: ".", omittingEmptySubsequences: false)
    let whole = String(parts[0])
    let frac = parts.count > 1 ? String(parts[1]) : ""
    let digits = whole + frac
    let point = whole.count + exponent
    let body: String
    if point <= 0 {
      body = "0." + String(repeating: "0", count: -point) + digits
    } else if point >= digits.count {
      body = digits + String(repeating: "0", count: point - digits.count)
    } else {
      body = String(digits.prefix(point)) + "." + String(digits.dropFirst(point))
    }
    return (negative ? "-" : "") + body
  }

  /// Registers `ms_cd_decimal` and `ms_cd_external` on `connection`; external files are
  /// looked up in `externalDirectory`.
  static func registerFunctions(on connection: any DatabaseConnection, externalDirectory: String) throws {
    try connection.createFunction("ms_cd_decimal", argumentCount: 1) { decimal($0[0]) }
    try connection.createFunction("ms_cd_external", argumentCount: 1) { args in
      guard case .blob(let b) = args[0], let marker = b.first else { return args[0] }
      switch marker {
      case 1: return .blob(Array(b.dropFirst()))
      case 2:
        let name = String(decoding: b.dropFirst().prefix { $0 != 0 }, as: UTF8.self)
        guard UUIDText.canonical(name) != nil, let bytes = CoreDataFile.readFile(externalDirectory + "/" + name) else { return .null }
        return .blob(bytes)
      default: return args[0]
      }
    }
  }
}
