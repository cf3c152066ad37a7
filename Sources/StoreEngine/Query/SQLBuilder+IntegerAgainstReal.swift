import DatabaseKit
import JSONCore

/// An integer key path compared with a number that is not an integer (`n <= 2.5`,
/// `n == 9007199254740992.0`): compared exactly, as SQLite compares an integer with a real.
/// The engine turns the comparison into one of integers before any database sees it
/// (`n <= 2.5` is `n <= 2`, `n == 2.5` is false, `n < 1e300` holds for every n), so every
/// engine gives the same answer: PostgreSQL would compare a bigint with a double precision
/// as two doubles, and `-9223372036854775807 <= -9223372036854775808.0` would hold there.
extension SQLBuilder {
  /// 2^63: the first double beyond the integers; -2^63 is the lowest integer and a double.
  private static let beyondIntegers = 9_223_372_036_854_775_808.0

  /// The integer `d` is, when it is one that an integer attribute can hold.
  static func exactInteger(_ d: Double) -> Int64? {
    guard d.rounded(.towardZero) == d, d >= -beyondIntegers, d < beyondIntegers else { return nil }
    return Int64(d)
  }

  /// `column op d` for an integer column, in integers: a bound integer, or a constant
  /// answer (`IS NOT NULL` where every value holds it, as a nil key holds no ordering).
  mutating func integerAgainstReal(_ column: String, _ op: Comparison.Operator, _ d: Double) -> String {
    let every = "\(column) IS NOT NULL"
    let none = answer(false, discarding: column)
    switch op {
    case .equal:
      return Self.exactInteger(d).map { "\(column) = \(bind(.integer($0)))" } ?? none
    case .notEqual:
      // `!=` holds for a nil key, as in NSPredicate.
      return Self.exactInteger(d).map { dialect.isDistinct(column, bind(.integer($0))) } ?? answer(true, discarding: column)
    case .less, .greaterOrEqual:
      // n < d is n < ceil(d); n >= d is n >= ceil(d).
      let bound = d.rounded(.up)
      if bound >= Self.beyondIntegers { return op == .less ? every : none }
      if bound <= -Self.beyondIntegers { return op == .less ? none : every }
      return "\(column) \(op.rawValue) \(bind(.integer(Int64(bound))))"
    case .lessOrEqual, .greater:
      // n <= d is n <= floor(d); n > d is n > floor(d).
      let bound = d.rounded(.down)
      if bound >= Self.beyondIntegers { return op == .lessOrEqual ? every : none }
      if bound < -Self.beyondIntegers { return op == .lessOrEqual ? none : every }
      return "\(column) \(op.rawValue) \(bind(.integer(Int64(bound))))"
    default:
      preconditionFailure("integerAgainstReal: \(op.rawValue) is not an ordering")
    }
  }

  /// Two key paths (or expressions), one of integers (or bools), the other of reals
  /// (doubles, floats, dates): exactly, where the engine's own comparison is not
  /// (`SQLDialect.exactComparison`; PostgreSQL would compare two doubles, so `n - 0.5 <= n`
  /// failed for n = 2^63 - 1). Nil otherwise, for the ordinary comparison.
  func integerAgainstRealColumn(_ l: Operand, _ r: Operand, _ c: Comparison) throws -> String? {
    func isInteger(_ o: Operand) -> Bool { o.type.map { $0.isInteger || $0 == .bool } ?? false }
    func isReal(_ o: Operand) -> Bool { o.type == .double || o.type == .float || o.type == .date }
    let (integer, real, op): (Operand, Operand, Comparison.Operator)
    if isInteger(l) && isReal(r) {
      (integer, real, op) = (l, r, c.op)
    } else if isReal(l) && isInteger(r), let mirrored = mirror(c.op) {
      (integer, real, op) = (r, l, mirrored)
    } else {
      return nil
    }
    let sqlOp: String
    switch op {
    case .equal, .notEqual: sqlOp = "="
    case .less, .lessOrEqual, .greater, .greaterOrEqual: sqlOp = op.rawValue
    default: return nil
    }
    guard let compared = dialect.exactComparison(integer: integer.sql, sqlOp, real: real.sql) else { return nil }
    guard op == .equal || op == .notEqual else { return compared }
    // Two key paths that are both nil are equal, as in NSPredicate; never unknown.
    let equal = "((\(integer.sql) IS NULL AND \(real.sql) IS NULL) OR \(dialect.falseWhenUnknown(compared)))"
    return op == .equal ? equal : "NOT \(equal)"
  }
}
