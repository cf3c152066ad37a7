import JSONCore

/// Recursive-descent parser for NSPredicate format strings.
///
///     predicate  := or
///     or         := and (("OR" | "||") and)*
///     and        := not (("AND" | "&&") not)*
///     not        := ("NOT" | "!") not | primary
///     primary    := "(" predicate ")" | "TRUEPREDICATE" | "FALSEPREDICATE" | comparison
///     comparison := [ANY | SOME | ALL | NONE] expr operator ["[" flags "]"] expr
///
/// Expressions (arithmetic, key paths, SUBQUERY, functions) are in
/// `PredicateParser+Expressions.swift`, format arguments in `PredicateParser+Formats.swift`.
///
/// Format arguments (`%@ %K %d %i %ld %f %lf %s`) are bound from `args` in order and
/// `$NAME` from `variables`; with `template: true` unbound ones stay placeholders.
public struct PredicateParser {
  var tokens: [PredicateToken]
  var pos = 0
  let args: [JSONValue]
  var argIndex = 0
  let variables: JSONObject
  let template: Bool
  /// Variables of the SUBQUERYs being parsed, innermost last: `$x` there is the element,
  /// never a value from `variables`.
  var scopes: [String] = []
  /// Brackets open around the current token: recursion stops at `PredicateLimits.maxNesting`.
  var depth = 0

  public static func parse(_ text: String, args: [JSONValue] = [], variables: JSONObject = [:], template: Bool = false) throws -> Predicate
  {
    var lexer = PredicateLexer(text)
    var p = PredicateParser(tokens: try lexer.tokens(), args: args, variables: variables, template: template)
    let result = try p.orExpr()
    guard case .end = p.current.kind else {
      throw PredicateError("unexpected \(p.describe(p.current)) after the end of the predicate", offset: p.current.offset)
    }
    if !template && p.argIndex < args.count {
      throw PredicateError("\(args.count) argument\(args.count == 1 ? "" : "s") given but the format uses \(p.argIndex)", offset: 0)
    }
    try PredicateDepth.check(result)
    return result
  }

  private init(tokens: [PredicateToken], args: [JSONValue], variables: JSONObject, template: Bool) {
    self.tokens = tokens
    self.args = args
    self.variables = variables
    self.template = template
  }

  var current: PredicateToken { tokens[pos] }
  mutating func advance() { if pos < tokens.count - 1 { pos += 1 } }

  func keyword(_ t: PredicateToken) -> String? {
    if case .identifier(let s) = t.kind { return s.uppercased() }
    return nil
  }

  func isOp(_ t: PredicateToken, _ s: String) -> Bool { t.kind == .op(s) }

  func expect(_ op: String) throws {
    guard isOp(current, op) else { throw PredicateError("expected '\(op)' but found \(describe(current))", offset: current.offset) }
  }

  /// Opens one more bracket level (pair with `depth -= 1`); refuses past the limit.
  mutating func enter(at offset: Int) throws {
    guard depth < PredicateLimits.maxNesting else { throw PredicateError(PredicateLimits.tooDeep(), offset: offset) }
    depth += 1
  }

  func describe(_ t: PredicateToken) -> String {
    switch t.kind {
    case .identifier(let s): return "'\(s)'"
    case .escapedIdentifier(let s): return "'#\(s)'"
    case .string(let s): return "string \"\(s)\""
    case .integer(let v): return "number \(v)"
    case .double(let v): return "number \(v)"
    case .op(let s): return "'\(s)'"
    case .format(let s): return "'\(s)'"
    case .variable(let s): return "'$\(s)'"
    case .at(let s): return "'@\(s)'"
    case .end: return "end of input"
    }
  }

  mutating func orExpr() throws -> Predicate {
    var items = [try andExpr()]
    while keyword(current) == "OR" || isOp(current, "||") {
      advance()
      items.append(try andExpr())
    }
    return items.count == 1 ? items[0] : .or(items)
  }

  private mutating func andExpr() throws -> Predicate {
    var items = [try notExpr()]
    while keyword(current) == "AND" || isOp(current, "&&") {
      advance()
      items.append(try notExpr())
    }
    return items.count == 1 ? items[0] : .and(items)
  }

  /// `NOT NOT p` is `p` (as in NSPredicate's two-valued logic): a run of NOTs is counted, not
  /// nested, so any number of them parses without recursion.
  private mutating func notExpr() throws -> Predicate {
    var negated = false
    while keyword(current) == "NOT" || isOp(current, "!") {
      advance()
      negated.toggle()
    }
    let p = try primary()
    return negated ? .not(p) : p
  }

  private mutating func primary() throws -> Predicate {
    if isOp(current, "(") {
      // `(` opens either a predicate or an expression (`(a + 1) * 2 > 3`): try the
      // predicate first, then the comparison, and report whichever got further.
      let saved = (pos, argIndex)
      var first: PredicateError
      do {
        try enter(at: current.offset)
        defer { depth -= 1 }
        advance()
        let p = try orExpr()
        try expect(")")
        advance()
        if !startsComparisonTail(current) { return p }
        first = PredicateError("expected the end of the predicate", offset: current.offset)
      } catch let e as PredicateError {
        first = e
      }
      let afterFirst = (pos, argIndex)
      (pos, argIndex) = saved
      do {
        return try comparison()
      } catch let second as PredicateError {
        if second.offset > first.offset { throw second }
        (pos, argIndex) = afterFirst
        throw first
      }
    }
    switch keyword(current) {
    case "TRUEPREDICATE":
      advance()
      return .constant(true)
    case "FALSEPREDICATE":
      advance()
      return .constant(false)
    default: return try comparison()
    }
  }

  /// True where a parenthesized predicate cannot end: an operator follows it.
  private func startsComparisonTail(_ t: PredicateToken) -> Bool {
    switch t.kind {
    case .op(let s): return ["==", "!=", "<", "<=", ">", ">=", "+", "-", "*", "/", "**", "[", "."].contains(s)
    case .identifier(let s): return Comparison.Operator(rawValue: s.uppercased()) != nil
    default: return false
    }
  }

  private mutating func comparison() throws -> Predicate {
    var quantifier: Comparison.Quantifier?
    switch keyword(current) {
    case "ANY", "SOME":
      quantifier = .any
      advance()
    case "ALL":
      quantifier = .all
      advance()
    case "NONE":
      quantifier = Comparison.Quantifier.none
      advance()
    default: break
    }
    let lhs = try expression()
    let opToken = current
    let op: Comparison.Operator
    switch opToken.kind {
    case .op("=="): op = .equal
    case .op("!="): op = .notEqual
    case .op("<"): op = .less
    case .op("<="): op = .lessOrEqual
    case .op(">"): op = .greater
    case .op(">="): op = .greaterOrEqual
    case .identifier(let s):
      guard let o = Comparison.Operator(rawValue: s.uppercased()), o.rawValue.first!.isLetter else {
        throw PredicateError("expected a comparison operator but found \(describe(opToken))", offset: opToken.offset)
      }
      op = o
    default:
      throw PredicateError("expected a comparison operator but found \(describe(opToken))", offset: opToken.offset)
    }
    advance()
    var c = Comparison(lhs, op, .constant(.null), offset: opToken.offset)
    c.quantifier = quantifier
    if isOp(current, "[") {
      advance()
      guard case .identifier(let flags) = current.kind else {
        throw PredicateError("expected option letters c, d or n inside [ ]", offset: current.offset)
      }
      for f in flags.lowercased() {
        switch f {
        case "c": c.caseInsensitive = true
        case "d": c.diacriticInsensitive = true
        case "n": c.normalized = true
        case "l": break  // locale-sensitive: accepted, folding is already locale-independent
        default: throw PredicateError("unknown comparison option '\(f)' (expected c, d or n)", offset: current.offset)
        }
      }
      advance()
      try expect("]")
      advance()
    }
    c.rhs = try expression()
    if op == .between {
      guard case .array(let bounds) = c.rhs, bounds.count == 2 else {
        if case .constant(.array(let b)) = c.rhs, b.count == 2 { return .comparison(c) }
        switch c.rhs {
        case .placeholder, .variable, .keyPath, .path: return .comparison(c)
        default: throw PredicateError("BETWEEN needs two bounds: x BETWEEN {low, high}", offset: opToken.offset)
        }
      }
    }
    return .comparison(c)
  }
}
