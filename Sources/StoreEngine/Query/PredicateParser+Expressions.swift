import JSONCore

/// Expressions: the operands of comparisons.
///
///     expr    := term (("+" | "-") term)*
///     term    := power (("*" | "/") power)*
///     power   := unary ("**" unary)*
///     unary   := "-" unary | postfix
///     postfix := value ("." key | "." "@" operator | "[" (FIRST | LAST | SIZE | expr) "]")*
///     value   := literal | format | "$" NAME | "{" [expr ("," expr)*] "}" | "(" expr ")" | "SELF"
///              | "SUBQUERY" "(" expr "," "$" NAME "," predicate ")" | NAME "(" [expr ("," expr)*] ")" | key
///     key     := identifier | "#" identifier | %K
///
/// Arithmetic, subscripts and calls become `.function` nodes named as NSExpression's
/// operators (`+ - * / **`, `INDEX FIRST LAST SIZE`, the called name; `CAST` upper-cased).
extension PredicateParser {
  mutating func expression() throws -> Expression {
    var lhs = try term()
    var chain = 0
    while true {
      let t = current
      if isOp(t, "+") || isOp(t, "-") {
        try count(&chain, at: t.offset)
        advance()
        lhs = .function(isOp(t, "+") ? "+" : "-", [lhs, try term()], offset: t.offset)
      } else if let sign = t.sign {
        // `x -1`: the lexer read the sign as the number's; split it back into an operator.
        var magnitude = t
        magnitude.sign = nil
        magnitude.offset += 1
        if sign == "-" {
          if case .integer(let v) = t.kind { magnitude.kind = .integer(-v) }
          if case .double(let v) = t.kind { magnitude.kind = .double(-v) }
        }
        tokens[pos] = PredicateToken(kind: .op(sign), offset: t.offset)
        tokens.insert(magnitude, at: pos + 1)
      } else {
        return lhs
      }
    }
  }

  private mutating func term() throws -> Expression {
    var lhs = try power()
    var chain = 0
    while isOp(current, "*") || isOp(current, "/") {
      let t = current
      try count(&chain, at: t.offset)
      advance()
      lhs = .function(isOp(t, "*") ? "*" : "/", [lhs, try power()], offset: t.offset)
    }
    return lhs
  }

  private mutating func power() throws -> Expression {
    var lhs = try unary()
    var chain = 0
    while isOp(current, "**") {
      let t = current
      try count(&chain, at: t.offset)
      advance()
      lhs = .function("**", [lhs, try unary()], offset: t.offset)
    }
    return lhs
  }

  /// Each operator of a chain makes the tree one level deeper (`((a + b) + c) + d`).
  private func count(_ chain: inout Int, at offset: Int) throws {
    chain += 1
    if chain > PredicateLimits.maxChain {
      throw PredicateError(
        "more than \(PredicateLimits.maxChain) operators in a row (each nests the expression one level deeper)", offset: offset)
    }
  }

  /// `- - x` is `x`: a run of minus signs is counted, not nested (the first one's offset
  /// names the negation that remains).
  private mutating func unary() throws -> Expression {
    var first: Int?
    var negated = false
    while isOp(current, "-") {
      first = first ?? current.offset
      advance()
      negated.toggle()
    }
    let e = try postfix()
    guard negated, let first else { return e }
    return .function("-", [.constant(.int(0)), e], offset: first)
  }

  /// A value followed by key-path steps and subscripts.
  private mutating func postfix() throws -> Expression {
    let start = current.offset
    var e = try value()
    var segments: [Expression]? = isPathSegment(e) ? [e] : nil
    while true {
      if isOp(current, ".") {
        advance()
        if case .at(let name) = current.kind {
          let at = current.offset
          if segments == nil && !isSubquery(e) {
            throw PredicateError("@\(name) needs a to-many key path or SUBQUERY(...) before it", offset: at)
          }
          advance()
          var keys: [String] = []
          while isOp(current, ".") {
            advance()
            keys.append(contentsOf: try plainKeys())
          }
          let collection = segments.map { Expression.joining($0, offset: start) } ?? e
          e = try Expression.aggregate(over: collection, operator: "@" + name, keys: keys, offset: at)
          segments = nil
          continue
        }
        guard segments != nil else {
          throw PredicateError(
            "a key path cannot continue after this value (only after a key, SELF, $variable or %K)", offset: current.offset)
        }
        segments!.append(try keySegment())
        e = Expression.joining(segments!, offset: start)
      } else if isOp(current, "[") {
        let open = current.offset
        try enter(at: open)
        defer { depth -= 1 }
        advance()
        switch keyword(current) {
        case "FIRST", "LAST", "SIZE":
          e = .function(keyword(current)!, [e], offset: open)
          advance()
        default:
          e = .function("INDEX", [e, try expression()], offset: open)
        }
        try expect("]")
        advance()
        segments = nil
      } else {
        return e
      }
    }
  }

  private func isSubquery(_ e: Expression) -> Bool { if case .subquery = e { return true } else { return false } }

  private func isPathSegment(_ e: Expression) -> Bool {
    switch e {
    case .keyPath, .variable, .evaluatedObject, .path: return true
    case .placeholder(let f, _, _): return f == "%K"
    default: return false
    }
  }

  /// One key after a `.`: a name, `#name`, or `%K` (bound: its keys; template: a placeholder).
  private mutating func keySegment() throws -> Expression {
    let t = current
    switch t.kind {
    case .identifier(let s), .escapedIdentifier(let s):
      advance()
      return .keyPath([s], offset: t.offset)
    case .format("%K"):
      advance()
      return try bindFormat("%K", offset: t.offset)
    default: throw PredicateError("expected a key name but found \(describe(t))", offset: t.offset)
    }
  }

  /// Keys after a collection operator: names only (a `%K` must be bound to plain keys).
  private mutating func plainKeys() throws -> [String] {
    let t = current
    switch try keySegment() {
    case .keyPath(let parts, _): return parts
    default: throw PredicateError("the key after a collection operator must be known when parsing (not an unbound %K)", offset: t.offset)
    }
  }

  private mutating func value() throws -> Expression {
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
      if scopes.contains(name) { return .variable(name, offset: t.offset) }
      if let v = variables[name] { return .constant(v) }
      if template { return .variable(name, offset: t.offset) }
      throw PredicateError("variable $\(name) has no value in 'variables'", offset: t.offset)
    case .op("{"):
      try enter(at: t.offset)
      defer { depth -= 1 }
      advance()
      let items = try list(closing: "}")
      return .array(items)
    case .op("("):
      try enter(at: t.offset)
      defer { depth -= 1 }
      advance()
      let e = try expression()
      try expect(")")
      advance()
      return e
    case .identifier(let s):
      if case .op("(") = tokens[pos + 1].kind { return try call(s) }
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
        advance()
        return .keyPath([s], offset: t.offset)
      }
    case .escapedIdentifier(let s):
      advance()
      return .keyPath([s], offset: t.offset)
    case .at(let s):
      throw PredicateError("@\(s) needs a to-many key path before it, as in 'items.@\(s)'", offset: t.offset)
    default:
      throw PredicateError("expected a value or key path but found \(describe(t))", offset: t.offset)
    }
  }

  /// Comma-separated expressions up to `closing`, which is consumed.
  private mutating func list(closing: String) throws -> [Expression] {
    var items: [Expression] = []
    if !isOp(current, closing) {
      items.append(try expression())
      while isOp(current, ",") {
        advance()
        items.append(try expression())
      }
    }
    try expect(closing)
    advance()
    return items
  }

  /// `NAME(...)`: SUBQUERY, or a function call.
  private mutating func call(_ name: String) throws -> Expression {
    let start = current.offset
    try enter(at: start)
    defer { depth -= 1 }
    advance()
    advance()
    guard name.uppercased() == "SUBQUERY" else {
      let args = try list(closing: ")")
      return .function(name.uppercased() == "CAST" ? "CAST" : name, args, offset: start)
    }
    let collection = try expression()
    try expect(",")
    advance()
    guard case .variable(let variable) = current.kind else {
      throw PredicateError("SUBQUERY needs a $variable as its second argument, found \(describe(current))", offset: current.offset)
    }
    advance()
    try expect(",")
    advance()
    scopes.append(variable)
    defer { scopes.removeLast() }
    let predicate = try orExpr()
    try expect(")")
    advance()
    return .subquery(Subquery(collection: collection, variable: variable, predicate: predicate, offset: start))
  }
}
