import JSONCore

/// Recursive-descent parser for NSPredicate format strings.
///
///     predicate  := or
///     or         := and (("OR" | "||") and)*
///     and        := not (("AND" | "&&") not)*
///     not        := ("NOT" | "!") not | primary
///     primary    := "(" predicate ")" | "TRUEPREDICATE" | "FALSEPREDICATE" | comparison
///     comparison := [ANY | SOME | ALL | NONE] expr operator ["[" flags "]"] expr
///     expr       := keypath | literal | "%@" | "%K" | "$" name | "{" expr, ... "}" | "SELF"
///
/// Format arguments (`%@ %K %d %i %ld %f %lf %s`) are bound from `args` in order and
/// `$NAME` from `variables`; with `template: true` unbound ones stay placeholders.
public struct PredicateParser {
  private var tokens: [PredicateToken]
  private var pos = 0
  private let args: [JSONValue]
  private var argIndex = 0
  private let variables: JSONObject
  private let template: Bool

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
    return result
  }

  private init(tokens: [PredicateToken], args: [JSONValue], variables: JSONObject, template: Bool) {
    self.tokens = tokens
    self.args = args
    self.variables = variables
    self.template = template
  }

  private var current: PredicateToken { tokens[pos] }
  private mutating func advance() { if pos < tokens.count - 1 { pos += 1 } }

  private func keyword(_ t: PredicateToken) -> String? {
    if case .identifier(let s) = t.kind { return s.uppercased() }
    return nil
  }

  private func isOp(_ t: PredicateToken, _ s: String) -> Bool { t.kind == .op(s) }

  private func describe(_ t: PredicateToken) -> String {
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

  private mutating func orExpr() throws -> Predicate {
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

  private mutating func notExpr() throws -> Predicate {
    if keyword(current) == "NOT" || isOp(current, "!") {
      advance()
      return .not(try notExpr())
    }
    return try primary()
  }

  private mutating func primary() throws -> Predicate {
    if isOp(current, "(") {
      advance()
      let p = try orExpr()
      guard isOp(current, ")") else { throw PredicateError("expected ')' but found \(describe(current))", offset: current.offset) }
      advance()
      return p
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
      guard isOp(current, "]") else { throw PredicateError("expected ']' but found \(describe(current))", offset: current.offset) }
      advance()
    }
    c.rhs = try expression()
    if op == .between {
      guard case .array(let bounds) = c.rhs, bounds.count == 2 else {
        if case .constant(.array(let b)) = c.rhs, b.count == 2 { return .comparison(c) }
        if case .placeholder = c.rhs { return .comparison(c) }
        throw PredicateError("BETWEEN needs two bounds: x BETWEEN {low, high}", offset: opToken.offset)
      }
    }
    return .comparison(c)
  }

  private mutating func expression() throws -> Expression {
    let t = current
    switch t.kind {
    case .string(let s):
      advance()
      return .constant(.string(s))
    case .integer(let v):
      advance()
      return .constant(.int(v))
    case .double(let v):
      advance()
      return .constant(.double(v))
    case .format(let f):
      advance()
      return try bindFormat(f, offset: t.offset)
    case .variable(let name):
      advance()
      if let v = variables[name] { return .constant(v) }
      if template { return .variable(name, offset: t.offset) }
      throw PredicateError("variable $\(name) has no value in 'variables'", offset: t.offset)
    case .op("{"):
      advance()
      var items: [Expression] = []
      if !isOp(current, "}") {
        items.append(try expression())
        while isOp(current, ",") {
          advance()
          items.append(try expression())
        }
      }
      guard isOp(current, "}") else { throw PredicateError("expected '}' but found \(describe(current))", offset: current.offset) }
      advance()
      return .array(items)
    case .identifier(let s):
      switch s.uppercased() {
      case "YES", "TRUE":
        advance()
        return .constant(.bool(true))
      case "NO", "FALSE":
        advance()
        return .constant(.bool(false))
      case "NIL", "NULL":
        advance()
        return .constant(.null)
      case "SELF":
        advance()
        return .evaluatedObject
      case "AND", "OR", "NOT", "IN", "BETWEEN", "LIKE", "MATCHES", "CONTAINS", "BEGINSWITH", "ENDSWITH", "ANY", "ALL",
        "NONE", "SOME", "TRUEPREDICATE", "FALSEPREDICATE":
        throw PredicateError("expected a value or key path but found the keyword '\(s)' (write #\(s) for a key named so)", offset: t.offset)
      default:
        return try keyPath()
      }
    case .at, .escapedIdentifier:
      return try keyPath()
    default:
      throw PredicateError("expected a value or key path but found \(describe(t))", offset: t.offset)
    }
  }

  private mutating func keyPath() throws -> Expression {
    let start = current.offset
    var parts: [String] = []
    while true {
      switch current.kind {
      case .identifier(let s), .escapedIdentifier(let s): parts.append(s)
      case .at(let s): parts.append("@" + s)
      case .format("%K"):
        guard case .keyPath(let sub, _) = try bindFormat("%K", offset: current.offset) else {
          throw PredicateError("%K must be bound to a key path string", offset: current.offset)
        }
        parts.append(contentsOf: sub)
      default: throw PredicateError("expected a key name but found \(describe(current))", offset: current.offset)
      }
      advance()
      guard isOp(current, ".") else { break }
      advance()
    }
    return .keyPath(parts, offset: start)
  }

  private mutating func bindFormat(_ f: String, offset: Int) throws -> Expression {
    let index = argIndex
    argIndex += 1
    guard index < args.count else {
      if template { return .placeholder(f, index: index, offset: offset) }
      throw PredicateError("format argument \(index + 1) (\(f)) has no value in 'args'", offset: offset)
    }
    let v = args[index]
    switch f {
    case "%K":
      guard case .string(let s) = v, !s.isEmpty else {
        throw PredicateError("argument \(index + 1) for %K must be a key path string, got \(v.typeName)", offset: offset)
      }
      return .keyPath(s.split(separator: ".", omittingEmptySubsequences: false).map(String.init), offset: offset)
    case "%d", "%i", "%ld", "%li", "%lld", "%u", "%lu":
      guard case .int = v else {
        throw PredicateError("argument \(index + 1) for \(f) must be an integer, got \(v.typeName)", offset: offset)
      }
      return .constant(v)
    case "%f", "%lf":
      switch v {
      case .int(let i): return .constant(.double(Double(i)))
      case .double: return .constant(v)
      default: throw PredicateError("argument \(index + 1) for \(f) must be a number, got \(v.typeName)", offset: offset)
      }
    case "%s":
      guard case .string = v else {
        throw PredicateError("argument \(index + 1) for %s must be a string, got \(v.typeName)", offset: offset)
      }
      return .constant(v)
    default:
      return .constant(v)
    }
  }
}
