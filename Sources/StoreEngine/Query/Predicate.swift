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
  /// `category.name`, from the evaluated object; `offset` is where it starts in the source text.
  case keyPath([String], offset: Int)
  case constant(JSONValue)
  /// `{a, b}` array literal.
  case array([Expression])
  /// `$NAME`: a SUBQUERY's element, or (in templates) a variable not yet bound.
  case variable(String, offset: Int)
  /// `%@` etc. not yet bound (templates); `index` counts format arguments from 0.
  case placeholder(String, index: Int, offset: Int)
  /// `SELF`
  case evaluatedObject
  /// A key path that does not start at the evaluated object or has keys not known yet:
  /// `$x.name` inside SUBQUERY, or in templates `%K.name`, `tags.%K`. Segments are
  /// `.variable`, `.placeholder` and relative `.keyPath`s, never two key paths in a row
  /// (see `Expression.joining(_:offset:)`, which both parsers use to build one).
  case path([Expression], offset: Int)
  /// `collection.@count`, `items.@sum.price`: a collection operator over a to-many key
  /// path (or a SUBQUERY), then the key path of the value it folds (empty for @count).
  case aggregate(CollectionOperator, Expression, keyPath: [String], offset: Int)
  /// `SUBQUERY(collection, $variable, predicate)`: the collection's elements for which
  /// the predicate holds, `$variable` standing for each.
  case subquery(Subquery)
  /// `name(arguments)`: arithmetic (`+ - * / **`), `CAST(value, 'Type')`, subscripts
  /// (`INDEX`, `FIRST`, `LAST`, `SIZE`) and other NSExpression functions.
  case function(String, [Expression], offset: Int)
}

/// The collection operators the language knows.
public enum CollectionOperator: String, Sendable, CaseIterable {
  case count = "@count", sum = "@sum", avg = "@avg", min = "@min", max = "@max"
}

/// The body of `SUBQUERY(collection, $variable, predicate)`.
public struct Subquery: Equatable, Sendable {
  public var collection: Expression
  public var variable: String
  public var predicate: Predicate
  /// Where `SUBQUERY` starts in the source text.
  public var offset: Int

  public init(collection: Expression, variable: String, predicate: Predicate, offset: Int = 0) {
    self.collection = collection
    self.variable = variable
    self.predicate = predicate
    self.offset = offset
  }
}
