import JSONCore

/// Tokens of the NSPredicate format-string language.
struct PredicateToken: Equatable {
  enum Kind: Equatable {
    case identifier(String)  // also keywords; compared case-insensitively by the parser
    case escapedIdentifier(String)  // `#name`: always a key, never a keyword or literal
    case string(String)
    case integer(Int64)
    case double(Double)
    case op(String)  // == != < <= > >= && || ! ( ) { } , . [ ] + - * / **
    case format(String)  // %@ %K %d ...
    case variable(String)  // $NAME
    case at(String)  // @count ...
    case end
  }
  var kind: Kind
  var offset: Int
  /// The `+`/`-` written before a number: after a value it is really a binary operator
  /// (`x -1` is `x - 1`), which only the parser can tell.
  var sign: String?
}

/// The error every predicate problem becomes: what, and the character offset where.
public struct PredicateError: Error, Equatable, CustomStringConvertible {
  public var message: String
  public var offset: Int
  public init(_ message: String, offset: Int) {
    self.message = message
    self.offset = offset
  }
  public var description: String { "\(message) (at character \(offset))" }
}

/// Splits a predicate string into tokens; offsets count Unicode scalars from 0.
struct PredicateLexer {
  let scalars: [Unicode.Scalar]
  var i = 0

  init(_ text: String) { scalars = Array(text.unicodeScalars) }

  mutating func tokens() throws -> [PredicateToken] {
    var out: [PredicateToken] = []
    while true {
      let t = try next()
      out.append(t)
      if t.kind == .end { return out }
    }
  }

  private func peek(_ k: Int = 0) -> Unicode.Scalar? { i + k < scalars.count ? scalars[i + k] : nil }

  private static func isIdentStart(_ c: Unicode.Scalar) -> Bool {
    (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || c == "_" || c.value > 127 && c.properties.isAlphabetic
  }
  private static func isIdentPart(_ c: Unicode.Scalar) -> Bool { isIdentStart(c) || (c >= "0" && c <= "9") }

  mutating func next() throws -> PredicateToken {
    while let c = peek(), c.properties.isWhitespace { i += 1 }
    let start = i
    guard let c = peek() else { return PredicateToken(kind: .end, offset: i) }
    func tok(_ k: PredicateToken.Kind) -> PredicateToken { PredicateToken(kind: k, offset: start) }
    if Self.isIdentStart(c) || c == "#" {
      // `#name` escapes a reserved word as a key.
      let escaped = c == "#"
      if escaped { i += 1 }
      let s = i
      while let d = peek(), Self.isIdentPart(d) { i += 1 }
      if s == i { throw PredicateError("expected a name after '#'", offset: start) }
      let name = String(String.UnicodeScalarView(scalars[s..<i]))
      return tok(escaped ? .escapedIdentifier(name) : .identifier(name))
    }
    if c >= "0" && c <= "9" || (c == "." && (peek(1).map { $0 >= "0" && $0 <= "9" } ?? false)) {
      return tok(try number())
    }
    if c == "-" || c == "+", let d = peek(1), d >= "0" && d <= "9", previousAllowsSign {
      i += 1
      var n = try number()
      if c == "-" {
        switch n {
        case .integer(let v): n = .integer(-v)
        case .double(let v): n = .double(-v)
        default: break
        }
      }
      return PredicateToken(kind: n, offset: start, sign: String(c))
    }
    if c == "\"" || c == "'" { return tok(.string(try quoted(c))) }
    if c == "%" {
      i += 1
      let s = i
      if let f = peek(), "@Kdifsa".unicodeScalars.contains(f) {
        i += 1
      } else if peek() == "l", let d = peek(1), d == "d" || d == "f" || d == "i" || d == "u" || d == "a" {
        i += 2
      } else if peek() == "l", peek(1) == "l", peek(2) == "d" {
        i += 3
      } else if peek() == "u" {
        i += 1
      } else {
        throw PredicateError("unknown format specifier '%\(peek().map { String($0) } ?? "")'", offset: start)
      }
      return tok(.format("%" + String(String.UnicodeScalarView(scalars[s..<i]))))
    }
    if c == "$" || c == "@" {
      i += 1
      let s = i
      while let d = peek(), Self.isIdentPart(d) { i += 1 }
      if s == i { throw PredicateError("expected a name after '\(c)'", offset: start) }
      let name = String(String.UnicodeScalarView(scalars[s..<i]))
      return tok(c == "$" ? .variable(name) : .at(name))
    }
    let two = peek(1).map { String(c) + String($0) } ?? String(c)
    for op in ["==", "!=", "<>", "<=", ">=", "=<", "=>", "&&", "||", "**"] where two == op {
      i += 2
      let canonical = ["<>": "!=", "=<": "<=", "=>": ">="][op] ?? op
      return tok(.op(canonical))
    }
    if "=<>!(){},.[]+-*/".unicodeScalars.contains(c) {
      i += 1
      return tok(.op(c == "=" ? "==" : String(c)))
    }
    throw PredicateError("unexpected character '\(c)'", offset: start)
  }

  /// A sign belongs to a number only where a value may start (after an operator).
  private var previousAllowsSign: Bool {
    var k = i - 1
    while k >= 0, scalars[k].properties.isWhitespace { k -= 1 }
    guard k >= 0 else { return true }
    let p = scalars[k]
    return "=<>!(,{[+-*/".unicodeScalars.contains(p) || p == "]" || p.properties.isAlphabetic
  }

  private mutating func number() throws -> PredicateToken.Kind {
    let s = i
    if peek() == "0", let x = peek(1), x == "x" || x == "X" {
      i += 2
      let h = i
      while let d = peek(), d.properties.isASCIIHexDigit { i += 1 }
      guard h < i, let v = Int64(String(String.UnicodeScalarView(scalars[h..<i])), radix: 16) else {
        throw PredicateError("bad hexadecimal number", offset: s)
      }
      return .integer(v)
    }
    var isDouble = false
    while let d = peek(), d >= "0" && d <= "9" { i += 1 }
    if peek() == ".", let d = peek(1), d >= "0" && d <= "9" {
      isDouble = true
      i += 1
      while let d = peek(), d >= "0" && d <= "9" { i += 1 }
    }
    if let e = peek(), e == "e" || e == "E" {
      var k = 1
      if let sgn = peek(1), sgn == "+" || sgn == "-" { k = 2 }
      if let d = peek(k), d >= "0" && d <= "9" {
        isDouble = true
        i += k
        while let d = peek(), d >= "0" && d <= "9" { i += 1 }
      }
    }
    let text = String(String.UnicodeScalarView(scalars[s..<i]))
    if !isDouble, let v = Int64(text) { return .integer(v) }
    guard let v = Double(text) else { throw PredicateError("bad number '\(text)'", offset: s) }
    return .double(v)
  }

  private mutating func quoted(_ q: Unicode.Scalar) throws -> String {
    let start = i
    i += 1
    var out = String.UnicodeScalarView()
    while let c = peek() {
      i += 1
      if c == q { return String(out) }
      if c == "\\" {
        guard let e = peek() else { break }
        i += 1
        switch e {
        case "n": out.append("\n")
        case "t": out.append("\t")
        case "r": out.append("\r")
        case "0": out.append("\0")
        case "u":
          guard i + 4 <= scalars.count, let v = UInt32(String(String.UnicodeScalarView(scalars[i..<i + 4])), radix: 16),
            let u = Unicode.Scalar(v)
          else { throw PredicateError("bad \\u escape", offset: i - 2) }
          out.append(u)
          i += 4
        default: out.append(e)
        }
      } else {
        out.append(c)
      }
    }
    throw PredicateError("unterminated string", offset: start)
  }
}
