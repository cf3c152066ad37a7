import DatabaseKit
import JSONCore
import SchemaModel

/// Converting stored values when an attribute changes type in a migration. A widening
/// keeps every value exactly; any other change converts each value that has an exact
/// form in the new type and reports the rest, so nothing is narrowed silently.
public enum ValueConversion {
  /// What to do with a value that has no exact form in the new type (a custom stage's
  /// `convert` transform names one; lightweight stages always use `fail`).
  public enum Rule: String, CaseIterable, Sendable {
    /// Refuse the migration, naming the objects.
    case fail
    /// Store null instead (the attribute must be optional).
    case null
    /// Store the attribute's default instead (it must have one).
    case `default`
    /// Numbers: round to the nearest integer, then clamp into the type's range.
    case round
    /// Numbers: drop the fraction, then clamp into the type's range.
    case truncate
    /// Numbers: clamp into the type's range (fractions round).
    case clamp
  }

  /// The stored form in `to` of a value stored as `from`, or nil when it has none.
  public static func convert(_ stored: SQLValue, from: AttributeType, to: AttributeType) -> SQLValue? {
    if case .null = stored { return .null }
    let value = from.decode(stored)
    if from == to { return stored }
    switch to {
    case .string:
      if case .string(let s) = value { return .text(s) }
      return .text(JSONWriter.encodeString(value))
    case .json:
      return .text(JSONWriter.encodeString(value))
    case .int, .int16, .int32, .int64:
      guard let i = exactInteger(value) else { return nil }
      return try? to.encode(.int(i))
    case .double, .float:
      switch value {
      case .string(let s): return Double(s).flatMap { try? to.encode(.double($0)) }
      case .bool(let b): return .real(b ? 1 : 0)
      default:
        // Converting a double to a float must keep its value exactly.
        guard let v = try? to.encode(value) else { return nil }
        if to == .float, case .double(let d) = value, case .real(let f) = v, f != d { return nil }
        return v
      }
    case .bool:
      switch value {
      case .int(0), .string("false"): return .integer(0)
      case .int(1), .string("true"): return .integer(1)
      default: return nil
      }
    case .decimal:
      switch value {
      case .double(let d):
        guard d.isFinite else { return nil }
        return DecimalText.canonical(JSONWriter.encodeString(.double(d))).map { .text($0) }
      default: return try? to.encode(value)
      }
    case .date, .uuid, .url, .data:
      return try? to.encode(value)
    }
  }

  /// `convert`, and for a value without an exact form, what `rule` gives (`defaultValue`
  /// for `.default`); nil when neither gives a value.
  public static func convert(_ stored: SQLValue, from: AttributeType, to: AttributeType, rule: Rule, defaultValue: SQLValue?) -> SQLValue? {
    convert(stored, from: from, to: to) ?? fallback(stored, from: from, to: to, rule: rule, defaultValue: defaultValue)
  }

  /// Applies `rule` to a value `convert` could not convert; nil when the rule gives none.
  static func fallback(_ stored: SQLValue, from: AttributeType, to: AttributeType, rule: Rule, defaultValue: SQLValue?) -> SQLValue? {
    switch rule {
    case .fail: return nil
    case .null: return .null
    case .default: return defaultValue
    case .round, .truncate, .clamp:
      guard let range = to.integerRange ?? (to == .bool ? 0...1 : nil) else {
        if to == .float, case .double(let d) = from.decode(stored) {
          return .real(Double(Float(max(min(d, Double(Float.greatestFiniteMagnitude)), -Double(Float.greatestFiniteMagnitude)))))
        }
        return nil
      }
      let number: Double
      switch from.decode(stored) {
      case .int(let i): return .integer(min(max(i, range.lowerBound), range.upperBound))
      case .double(let d): number = d
      case .string(let s):
        guard let d = Double(s) else { return nil }
        number = d
      default: return nil
      }
      guard !number.isNaN else { return nil }
      let whole = rule == .truncate ? number.rounded(.towardZero) : number.rounded(.toNearestOrAwayFromZero)
      if whole <= Double(range.lowerBound) { return .integer(range.lowerBound) }
      if whole >= Double(range.upperBound) { return .integer(range.upperBound) }
      return .integer(Int64(whole))
    }
  }

  private static func exactInteger(_ value: JSONValue) -> Int64? {
    switch value {
    case .int(let i): return i
    case .bool(let b): return b ? 1 : 0
    case .double(let d):
      guard d.rounded() == d, d >= -9.223_372_036_854_775_808e18, d < 9.223_372_036_854_775_808e18 else { return nil }
      return Int64(d)
    case .string(let s):
      if let i = Int64(s) { return i }
      return DecimalText.canonical(s).flatMap { Int64($0) }
    default: return nil
    }
  }
}
