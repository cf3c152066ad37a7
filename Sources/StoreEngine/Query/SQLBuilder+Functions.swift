import DatabaseKit
import JSONCore
import SchemaModel

/// Function expressions that SQL can evaluate: `CAST` (date literals, number and string
/// conversions) and the arithmetic operators `+ - * /`. Others parse but are refused here.
extension SQLBuilder {
  /// Seconds from 1970-01-01 to 2001-01-01, Core Data's reference date.
  static let referenceDateOffset = 978_307_200.0

  mutating func function(_ name: String, _ args: [Expression], offset: Int) throws -> Compiled {
    try nest(1, at: offset)
    defer { unnest(1) }
    switch name {
    case "CAST": return try cast(args, offset: offset)
    case "+", "-", "*", "/": return try arithmetic(name, args, offset: offset)
    default:
      throw PredicateError("function '\(name)' is not supported in queries (only CAST and + - * /)", offset: offset)
    }
  }

  private mutating func cast(_ args: [Expression], offset: Int) throws -> Compiled {
    guard args.count == 2, case .constant(.string(let type)) = args[1] else {
      throw PredicateError("CAST needs a value and a type name, as in CAST('2024-01-31', 'NSDate')", offset: offset)
    }
    let inner = try operand(args[0])
    switch (type, inner) {
    case ("NSDate", .value(.int(let n))): return .value(.double(Double(n) + Self.referenceDateOffset))
    case ("NSDate", .value(.double(let n))): return .value(.double(n + Self.referenceDateOffset))
    case ("NSDate", .value(.string(let s))):
      guard let seconds = ISODate.parse(s) else {
        throw PredicateError("CAST(..., 'NSDate') needs an ISO 8601 date such as \"2026-01-31T12:00:00Z\", got \"\(s)\"", offset: offset)
      }
      return .value(.double(seconds))
    case ("NSNumber", .value(.string(let s))):
      if let i = Int64(s) { return .value(.int(i)) }
      guard let d = Double(s) else { throw PredicateError("CAST(..., 'NSNumber') cannot read \"\(s)\" as a number", offset: offset) }
      return .value(.double(d))
    case ("NSNumber", .value(let v)) where v.isNumber: return .value(v)
    case ("NSString", .value(.string)): return inner
    case ("NSString", .value(.int(let i))): return .value(.string(String(i)))
    case ("NSString", .value(.double(let d))): return .value(.string(String(d)))
    case ("NSNumber", .scalar(let o)) where o.type == .string || o.type == .url:
      // Text as SQLite's CAST to REAL reads it, on every engine ('12abc' is 12, 'abc' 0).
      return .scalar(Operand(sql: dialect.textToReal(o.sql), kind: .attribute(.double), name: o.name))
    case ("NSNumber", .scalar(let o)) where o.type.map(Self.isNumeric) ?? false || o.type == .date:
      return .scalar(Operand(sql: dialect.castToReal(o.sql), kind: .attribute(.double), name: o.name))
    case ("NSString", .scalar(let o)) where o.type != nil && o.type != .json && o.type != .data:
      let text = o.type == .uuid ? dialect.uuidText(o.sql) : dialect.castToText(o.sql)
      return .scalar(Operand(sql: text, kind: .attribute(.string), name: o.name))
    case ("NSDate", .scalar(let o)) where o.type.map(Self.isNumeric) ?? false:
      // Decimals are stored as text: read as a number, as arithmetic reads them.
      let seconds = o.type == .decimal ? dialect.castToReal(o.sql) : o.sql
      return .scalar(Operand(sql: "(\(seconds) + \(Self.referenceDateOffset))", kind: .attribute(.date), name: o.name))
    default:
      throw PredicateError(
        "CAST to '\(type)' of this operand is not supported (NSDate of a number; NSNumber of a number, string, url, date or bool; NSString of a value or attribute)",
        offset: offset)
    }
  }

  static func isNumeric(_ t: AttributeType) -> Bool { t.isInteger || t == .double || t == .float || t == .decimal || t == .bool }

  private mutating func arithmetic(_ op: String, _ args: [Expression], offset: Int) throws -> Compiled {
    guard args.count == 2 else { throw PredicateError("'\(op)' needs two operands", offset: offset) }
    let left = try arithmeticSide(args[0], op: op, offset: offset)
    let right = try arithmeticSide(args[1], op: op, offset: offset)
    let type: AttributeType
    if (left.type == .date) != (right.type == .date) && (op == "+" || op == "-") {
      type = .date
    } else if (left.type.isInteger || left.type == .bool) && (right.type.isInteger || right.type == .bool) && op != "/" {
      type = .int
    } else {
      type = .double
    }
    // Division is real division, as NSExpression's divide:by: is (NULL by 0).
    let sql = op == "/" ? dialect.divide(left.sql, right.sql) : "\(left.sql) \(op) \(right.sql)"
    return .scalar(Operand(sql: "(\(sql))", kind: .attribute(type), name: "expression"))
  }

  /// One side of `+ - * /`: a number, or a numeric or date attribute.
  private mutating func arithmeticSide(_ a: Expression, op: String, offset: Int) throws -> (sql: String, type: AttributeType) {
    let compiled = try operand(a)
    if case .value(.int(let i)) = compiled { return (bind(.integer(i)), .int) }
    if case .value(.double(let d)) = compiled { return (bind(.real(d)), .double) }
    if case .scalar(let o) = compiled, let t = o.type, Self.isNumeric(t) || t == .date {
      return (t == .decimal ? dialect.castToReal(o.sql) : o.sql, t)
    }
    throw PredicateError("'\(op)' needs numbers, dates or number attributes on both sides", offset: offset)
  }
}

extension JSONValue {
  var isNumber: Bool {
    switch self {
    case .int, .double: return true
    default: return false
    }
  }
}
