import JSONCore

/// A parsed predicate: the NSPredicate language as a tree. The string and JSON forms
/// both become this, and only this is compiled to SQL.
public indirect enum Predicate: Equatable, Sendable {
  case constant(Bool)
  case not(Predicate)
  case and([Predicate])
  case or([Predicate])
  case comparison(Comparison)
}

/// `lhs op rhs`, with string options and an ANY/ALL/NONE quantifier.
public struct Comparison: Equatable, Sendable {
  public enum Operator: String, Sendable, CaseIterable {
    case equal = "==", notEqual = "!=", less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="
    case beginsWith = "BEGINSWITH", endsWith = "ENDSWITH", contains = "CONTAINS", like = "LIKE", matches = "MATCHES"
    case `in` = "IN", between = "BETWEEN"
  }
  public enum Quantifier: String, Sendable { case any = "ANY", all = "ALL", none = "NONE" }

  public var lhs: Expression
  public var op: Operator
  public var rhs: Expression
  /// `[c]` case-insensitive, `[d]` diacritic-insensitive, `[n]` normalized.
  public var caseInsensitive = false
  public var diacriticInsensitive = false
  public var normalized = false
  public var quantifier: Quantifier?
  /// Character offset of the operator in the source text, for error messages.
  public var offset: Int = 0

  public init(_ lhs: Expression, _ op: Operator, _ rhs: Expression, offset: Int = 0) {
    self.lhs = lhs
    self.op = op
    self.rhs = rhs
    self.offset = offset
  }
}

/// An operand: a key path, a constant, or something substituted later.
public indirect enum Expression: Equatable, Sendable {
  /// `category.name`; `offset` is where it starts in the source text.
  case keyPath([String], offset: Int)
  case constant(JSONValue)
  /// `{a, b}` array literal.
  case array([Expression])
  /// `$NAME`, bound from `variables`.
  case variable(String, offset: Int)
  /// `%@` etc. not yet bound (templates); `index` counts format arguments from 0.
  case placeholder(String, index: Int, offset: Int)
  /// `SELF`
  case evaluatedObject
}
