import JSONCore

// The generator's own predicate tree (independent of the engine's `Predicate`), and its
// rendering to an NSPredicate format string with `args` and `variables`.

enum DOp: String {
  case eq = "==", ne = "!=", lt = "<", le = "<=", gt = ">", ge = ">="
  case beginsWith = "BEGINSWITH", endsWith = "ENDSWITH", contains = "CONTAINS", like = "LIKE"
  case `in` = "IN", between = "BETWEEN"

  static let ordering: [DOp] = [.lt, .le, .gt, .ge]
  static let strings: [DOp] = [.beginsWith, .endsWith, .contains, .like]
  var isOrdering: Bool { DOp.ordering.contains(self) }
  var isString: Bool { DOp.strings.contains(self) }
  var mirrored: DOp? {
    switch self {
    case .eq: return .eq
    case .ne: return .ne
    case .lt: return .gt
    case .le: return .ge
    case .gt: return .lt
    case .ge: return .le
    default: return nil
    }
  }
}

/// A right-side value: what is sent, and what the evaluator compares (in the key's
/// domain: a date's seconds, an id's key, a decimal's canonical text, ...).
struct DLit {
  var json: JSONValue
  var val: DVal
  static let null = DLit(json: .null, val: .null)
}

enum DRhs {
  case one(DLit)
  case list([DLit])
  case range(DLit, DLit)
}

struct DCmp {
  var key: DKey
  var op: DOp
  var c = false
  var d = false
  var rhs: DRhs
}

enum DQuant: String { case any = "ANY", all = "ALL", none = "NONE" }
enum DAggFn: String { case sum, avg, min, max }

indirect enum DPred {
  case const(Bool)
  case not(DPred)
  case and([DPred])
  case or([DPred])
  case cmp(DCmp)
  /// `ANY path.attr op rhs`; `member.key` is relative to the members.
  case quant(DQuant, path: [String], member: DCmp)
  /// `SUBQUERY(path, $var, inner).@count op count`; inner keys are relative to the members.
  case subquery(path: [String], variable: String, inner: DPred, op: DOp, count: DLit)
  /// `path.@fn.attr op rhs`.
  case aggregate(path: [String], fn: DAggFn, attr: String, op: DOp, rhs: DLit)
  /// `lhs op rhs`, both key paths of the same type.
  case keys(lhs: DKey, op: DOp, c: Bool, d: Bool, rhs: DKey)
  /// `key MATCHES pattern`.
  case matches(DKey, pattern: DLit)

  /// The comparison-level parts, for narrowing a mismatch down.
  var leaves: [DPred] {
    switch self {
    case .not(let p): return p.leaves
    case .and(let ps), .or(let ps): return ps.flatMap(\.leaves)
    case .const: return []
    default: return [self]
    }
  }
}

/// A rendered predicate: the text and what its placeholders are bound to.
struct DRendered {
  var text = ""
  var args: [JSONValue] = []
  var variables = JSONObject()

  var summary: String {
    var s = "where: \(text)"
    if !args.isEmpty { s += "\n    args: \(JSONWriter.encodeString(.array(args)))" }
    if !variables.isEmpty { s += "\n    variables: \(JSONWriter.encodeString(.object(variables)))" }
    return s
  }
}

/// Renders with random but equivalent spellings: `%@`, `%d`/`%f`/`%s`, `$variables`,
/// inline literals (both quote styles, escapes, `\u`, hex), `%K` and `#key`, mirrored
/// comparisons, keyword and operator synonyms, redundant parentheses.
struct DRenderer {
  var rng: DiffRandom
  private var out = DRendered()

  init(rng: DiffRandom) { self.rng = rng }

  static func render(_ p: DPred, rng: DiffRandom) -> DRendered {
    var r = DRenderer(rng: rng)
    r.out.text = r.pred(p, prefix: nil)
    return r.out
  }

  private mutating func word(_ options: [String]) -> String { rng.pick(options) }

  private mutating func pred(_ p: DPred, prefix: String?) -> String {
    switch p {
    case .const(let b): return b ? word(["TRUEPREDICATE", "truepredicate"]) : word(["FALSEPREDICATE", "FalsePredicate"])
    case .not(let inner):
      let s = pred(inner, prefix: prefix)
      let needsParens: Bool
      switch inner {
      case .and, .or: needsParens = true
      default: needsParens = rng.chance(0.3)
      }
      return word(["NOT ", "not ", "!", "! "]) + (needsParens ? "(\(s))" : s)
    case .and(let items):
      return items.map { item -> String in
        let s = pred(item, prefix: prefix)
        if case .or = item { return "(\(s))" }
        return rng.chance(0.1) ? "(\(s))" : s
      }.joined(separator: " " + word(["AND", "and", "&&"]) + " ")
    case .or(let items):
      return items.map { item -> String in
        let s = pred(item, prefix: prefix)
        return rng.chance(0.1) ? "(\(s))" : s
      }.joined(separator: " " + word(["OR", "or", "||"]) + " ")
    case .cmp(let c): return comparison(c, prefix: prefix, quantifier: nil, path: [])
    case .quant(let q, let path, let member):
      let qw = q == .any ? word(["ANY", "SOME", "any"]) : q == .all ? word(["ALL", "all"]) : word(["NONE", "none"])
      return comparison(member, prefix: prefix, quantifier: qw, path: path)
    case .subquery(let path, let variable, let inner, let op, let count):
      let collection = (prefix.map { [$0] } ?? []) + path
      let body = pred(inner, prefix: "$" + variable)
      return "SUBQUERY(\(collection.joined(separator: ".")), $\(variable), \(body)).@count \(opText(op)) \(lit(count, kind: .count))"
    case .aggregate(let path, let fn, let attr, let op, let rhs):
      let k = ((prefix.map { [$0] } ?? []) + path + ["@" + fn.rawValue, attr]).joined(separator: ".")
      return "\(k) \(opText(op)) \(lit(rhs, kind: .attr(.double)))"
    case .keys(let lhs, let op, let c, let d, let rhs):
      let l = key(lhs, prefix: prefix)
      let o = opText(op) + flags(c, d, string: lhs.isString)
      return "\(l) \(o) \(key(rhs, prefix: prefix, allowFormat: false))"
    case .matches(let k, let pattern):
      return "\(key(k, prefix: prefix)) \(word(["MATCHES", "matches"])) \(lit(pattern, kind: .attr(.string)))"
    }
  }

  private mutating func opText(_ op: DOp) -> String {
    switch op {
    case .eq: return word(["==", "=", "=="])
    case .ne: return word(["!=", "<>"])
    case .le: return word(["<=", "=<"])
    case .ge: return word([">=", "=>"])
    case .lt, .gt: return op.rawValue
    default:
      let w = op.rawValue
      switch rng.int(4) {
      case 0: return w.lowercased()
      case 1: return w.prefix(1) + w.dropFirst().lowercased()
      default: return w
      }
    }
  }

  private mutating func flags(_ c: Bool, _ d: Bool, string: Bool) -> String {
    var letters: [String] = []
    if c { letters.append(rng.chance(0.2) ? "C" : "c") }
    if d { letters.append(rng.chance(0.2) ? "D" : "d") }
    if string && rng.chance(0.08) { letters.append(rng.pick(["n", "l"])) }
    if letters.isEmpty { return "" }
    if rng.chance(0.5) { letters.reverse() }
    return "[" + letters.joined() + "]"
  }

  private mutating func key(_ k: DKey, prefix: String?, allowFormat: Bool = true) -> String {
    if let prefix { return prefix + "." + k.text }
    let r = rng.int(100)
    if allowFormat && r < 8 {
      out.args.append(.string(k.text))
      return "%K"
    }
    if r < 14 { return "#" + k.text }
    return k.text
  }

  private mutating func comparison(_ c: DCmp, prefix: String?, quantifier: String?, path: [String]) -> String {
    let string = c.key.isString
    if quantifier == nil, prefix == nil, case .one(let l) = c.rhs, let m = c.op.mirrored, rng.chance(0.12) {
      // `value op' key`
      let v = lit(l, kind: c.key.kind)
      return "\(v) \(opText(m))\(flags(c.c, c.d, string: string)) \(key(c.key, prefix: nil))"
    }
    if quantifier == nil, prefix == nil, string, c.op == .contains, case .one(let l) = c.rhs, rng.chance(0.2) {
      // `value IN key` is `key CONTAINS value`.
      return "\(lit(l, kind: c.key.kind)) \(opText(.in))\(flags(c.c, c.d, string: true)) \(key(c.key, prefix: nil))"
    }
    var lhs: String
    if let quantifier {
      lhs = quantifier + " " + ((prefix.map { [$0] } ?? []) + path + c.key.path).joined(separator: ".")
    } else {
      lhs = key(c.key, prefix: prefix)
    }
    let o = opText(c.op) + flags(c.c, c.d, string: string || c.op.isString)
    let space = o.first!.isLetter || rng.chance(0.8) ? " " : ""
    lhs += space + o + space
    switch c.rhs {
    case .one(let l): return lhs + lit(l, kind: c.key.kind)
    case .list(let items):
      if rng.chance(0.5) {
        out.args.append(.array(items.map(\.json)))
        return lhs + "%@"
      }
      return lhs + "{" + items.map { lit($0, kind: c.key.kind) }.joined(separator: rng.chance(0.5) ? ", " : ",") + "}"
    case .range(let lo, let hi):
      if rng.chance(0.5) {
        out.args.append(.array([lo.json, hi.json]))
        return lhs + "%@"
      }
      return lhs + "{\(lit(lo, kind: c.key.kind)), \(lit(hi, kind: c.key.kind))}"
    }
  }

  /// One value: a format argument, a variable, or an inline literal.
  private mutating func lit(_ l: DLit, kind: DKind) -> String {
    let r = rng.int(100)
    if r < 45 {
      out.args.append(l.json)
      return "%@"
    }
    if r < 50, !l.json.isNull {
      let name = "v\(out.variables.count)"
      out.variables.append(name, l.json)
      return "$" + name
    }
    if r < 60 {
      switch l.json {
      case .int:
        out.args.append(l.json)
        return rng.pick(["%d", "%i", "%ld", "%lld", "%u"])
      case .double where [.attr(.int), .attr(.double), .attr(.date), .count].contains(kind):
        out.args.append(l.json)
        return rng.pick(["%f", "%lf"])
      case .string:
        out.args.append(l.json)
        return "%s"
      default: break
      }
    }
    return inline(l.json)
  }

  private mutating func inline(_ v: JSONValue) -> String {
    switch v {
    case .null: return word(["nil", "NIL", "NULL", "null"])
    case .bool(let b): return b ? word(["YES", "TRUE", "true", "yes"]) : word(["NO", "FALSE", "false"])
    case .int(let i): return i >= 0 && rng.chance(0.15) ? "0x" + String(i, radix: 16) : String(i)
    case .double(let d): return "\(d)"
    case .string(let s):
      let q: Character = rng.chance(0.5) ? "'" : "\""
      var t = String(q)
      for u in s.unicodeScalars {
        switch u {
        case "\\": t += "\\\\"
        case "\n": t += "\\n"
        case "\t": t += "\\t"
        case "\r": t += "\\r"
        default:
          if Character(u) == q {
            t += "\\" + String(q)
          } else if u.value > 127 && u.value <= 0xFFFF && rng.chance(0.1) {
            let h = String(u.value, radix: 16)
            t += "\\u" + String(repeating: "0", count: 4 - h.count) + h
          } else {
            t.unicodeScalars.append(u)
          }
        }
      }
      return t + String(q)
    case .array(let items): return "{" + items.map { inline($0) }.joined(separator: ", ") + "}"
    case .object, .encoded: return "{}"
    }
  }
}
