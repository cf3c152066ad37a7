import JSONCore

@testable import StoreEngine

/// A straightforward in-memory evaluator of protocol.md's "Predicates" semantics, over the
/// snapshot in `DWorld`. Logic is two-valued, as NSPredicate's in-memory evaluation:
/// every comparison is true or false, `NOT` is plain negation, so `NOT (key == v)` and
/// `key != v` agree.
///
/// - `key == nil` / `key != nil` test for nil.
/// - A nil key: `!=` (against a value) is true; `==`, orderings, `BETWEEN`, the string
///   operators and `IN` without a nil element are false (so true under `NOT`).
/// - `IN {}` matches nothing; `IN` with a nil element is true for a nil key.
/// - `key IN 'text'`: the text contains the key's value (`'text' CONTAINS key`).
/// - `BEGINSWITH`, `ENDSWITH`, `CONTAINS` with an empty right side (after folding) match
///   nothing; any string operator with `nil` on the right matches nothing.
/// - Through a nil to-one everything reads nil, `@count` included.
/// - `[c]`/`[d]` fold both sides with `TextFolding.fold`; strings otherwise compare by
///   their UTF-8 bytes (binary order), never by Swift's canonical equivalence.
/// - Decimals: `==`, `!=`, `IN` and the string operators use the canonical text;
///   orderings and `BETWEEN` the numeric value.
/// - `LIKE`: `*` any run of scalars, `?` one scalar, everything else literal.
///
/// The full-language constructs (used only when the engine accepts them):
/// - `ANY`: some member's comparison is true; `ALL`: every member's is (true when there
///   are none); `NONE`: no member's is.
/// - `SUBQUERY(c, $v, p).@count`: the number of members for which `p` is true.
/// - `@sum` over the non-nil values (0 when none); `@avg`/`@min`/`@max` of no values is
///   nil, then compared by the rules above.
/// - Key path against key path: `==` holds when both are nil or both equal, `!=` is its
///   negation; orderings and string operators are false when either side is nil.
/// - `MATCHES`: the whole value matches the regular expression (scalar semantics); false
///   for a nil value or a nil pattern.
struct DEvaluator {
  let world: DWorld

  func matches(_ p: DPred, _ obj: DObj) -> Bool {
    switch p {
    case .const(let b): return b
    case .not(let inner): return !matches(inner, obj)
    case .and(let items): return items.allSatisfy { matches($0, obj) }
    case .or(let items): return items.contains { matches($0, obj) }
    case .cmp(let c): return compare(world.value(obj, c.key.path), c)
    case .quant(let q, let path, let member):
      let results = world.members(obj, path).map { compare(world.value($0, member.key.path), member) }
      switch q {
      case .any: return results.contains(true)
      case .all: return results.allSatisfy { $0 }
      case .none: return !results.contains(true)
      }
    case .subquery(let path, _, let inner, let op, let count):
      let n = world.members(obj, path).filter { matches(inner, $0) }.count
      return compare(.num(Double(n)), DCmp(key: DKey(path: [], kind: .count), op: op, rhs: .one(count)))
    case .aggregate(let path, let fn, let attr, let op, let rhs):
      let values: [Double] = world.members(obj, path).compactMap {
        if case .num(let d) = $0.attrs[attr] ?? .null { return d }
        return nil
      }
      let v: DVal
      switch fn {
      case .sum: v = .num(values.reduce(0, +))
      case .avg: v = values.isEmpty ? .null : .num(values.reduce(0, +) / Double(values.count))
      case .min: v = values.min().map(DVal.num) ?? .null
      case .max: v = values.max().map(DVal.num) ?? .null
      }
      return compare(v, DCmp(key: DKey(path: [], kind: .attr(.double)), op: op, rhs: .one(rhs)))
    case .keys(let lk, let op, let c, let d, let rk):
      let a = fold(world.value(obj, lk.path), c, d), b = fold(world.value(obj, rk.path), c, d)
      switch op {
      case .eq, .ne:
        let same = a.isNull && b.isNull || (!a.isNull && !b.isNull && equal(a, b))
        return op == .eq ? same : !same
      default:
        if a.isNull || b.isNull { return false }
        if op.isString { return stringOp(op, text(a), text(b)) }
        return ordered(a, op, b)
      }
    case .matches(let k, let pattern):
      guard case .text(let s) = world.value(obj, k.path), case .string(let pat) = pattern.json else { return false }
      return DRegex.wholeMatch(s, pat)
    }
  }

  /// `lhs op rhs` for a key's value against the comparison's right side.
  func compare(_ lhs0: DVal, _ c: DCmp) -> Bool {
    let lhs = fold(lhs0, c.c, c.d)
    switch (c.op, c.rhs) {
    case (.eq, .one(let l)) where l.val.isNull: return lhs.isNull
    case (.ne, .one(let l)) where l.val.isNull: return !lhs.isNull
    case (.eq, .one(let l)): return !lhs.isNull && equal(lhs, fold(l.val, c.c, c.d))
    case (.ne, .one(let l)): return lhs.isNull || !equal(lhs, fold(l.val, c.c, c.d))
    case (let op, .one(let l)) where op.isOrdering: return !lhs.isNull && ordered(lhs, op, fold(l.val, c.c, c.d))
    case (let op, .one(let l)) where op.isString:
      guard case .text(let pattern) = fold(l.val, c.c, c.d), !lhs.isNull else { return false }
      return stringOp(op, text(lhs), pattern)
    case (.in, .one(let l)):
      // `key IN 'text'`: the text contains the key's value.
      guard case .text(let t) = fold(l.val, c.c, c.d), !lhs.isNull else { return false }
      return stringOp(.contains, t, text(lhs))
    case (.in, .list(let items)):
      if lhs.isNull { return items.contains { $0.val.isNull } }
      return items.contains { !$0.val.isNull && equal(lhs, fold($0.val, c.c, c.d)) }
    case (.between, .range(let lo, let hi)):
      return !lhs.isNull && ordered(fold(lo.val, c.c, c.d), .le, lhs) && ordered(lhs, .le, fold(hi.val, c.c, c.d))
    default:
      preconditionFailure("malformed comparison \(c)")
    }
  }

  private func fold(_ v: DVal, _ c: Bool, _ d: Bool) -> DVal {
    guard c || d, case .text(let s) = v else { return v }
    return .text(TextFolding.fold(s, caseInsensitive: c, diacriticInsensitive: d))
  }

  private func text(_ v: DVal) -> String {
    switch v {
    case .text(let s), .dec(let s): return s
    default: preconditionFailure("string operator on \(v)")
    }
  }

  func equal(_ a: DVal, _ b: DVal) -> Bool {
    switch (a, b) {
    case (.num(let x), .num(let y)): return x == y
    case (.text(let x), .text(let y)), (.dec(let x), .dec(let y)): return x.utf8.elementsEqual(y.utf8)
    default: preconditionFailure("comparing \(a) with \(b)")
    }
  }

  func ordered(_ a: DVal, _ op: DOp, _ b: DVal) -> Bool {
    let c = DEvaluator.order(a, b)
    switch op {
    case .lt: return c < 0
    case .le: return c <= 0
    case .gt: return c > 0
    case .ge: return c >= 0
    default: preconditionFailure()
    }
  }

  /// nil first; numbers numerically; decimals by value; text by UTF-8 bytes.
  static func order(_ a: DVal, _ b: DVal) -> Int {
    switch (a, b) {
    case (.null, .null): return 0
    case (.null, _): return -1
    case (_, .null): return 1
    case (.num(let x), .num(let y)): return x < y ? -1 : x > y ? 1 : 0
    case (.dec(let x), .dec(let y)):
      let (p, q) = (DDecimal.value(x), DDecimal.value(y))
      return p < q ? -1 : p > q ? 1 : 0
    case (.text(let x), .text(let y)):
      return x.utf8.lexicographicallyPrecedes(y.utf8) ? -1 : y.utf8.lexicographicallyPrecedes(x.utf8) ? 1 : 0
    default: preconditionFailure("ordering \(a) against \(b)")
    }
  }

  /// An empty pattern matches nothing for BEGINSWITH, ENDSWITH, CONTAINS (Foundation's
  /// `hasPrefix("")`, `hasSuffix("")`, `range(of: "")`); LIKE '' matches only ''.
  private func stringOp(_ op: DOp, _ s: String, _ p: String) -> Bool {
    let a = Array(s.unicodeScalars), b = Array(p.unicodeScalars)
    if b.isEmpty && op != .like { return false }
    switch op {
    case .beginsWith: return a.starts(with: b)
    case .endsWith: return a.reversed().starts(with: b.reversed())
    case .contains: return a.count >= b.count && (0...a.count - b.count).contains { Array(a[$0..<$0 + b.count]) == b }
    case .like: return DEvaluator.like(a[...], b[...])
    default: preconditionFailure()
    }
  }

  /// `*` any run, `?` exactly one scalar, anything else itself.
  static func like(_ s: ArraySlice<Unicode.Scalar>, _ p: ArraySlice<Unicode.Scalar>) -> Bool {
    var si = s.startIndex, pi = p.startIndex
    var star: Int? = nil, mark = 0
    while si < s.endIndex {
      if pi < p.endIndex && (p[pi] == "?" || (p[pi] != "*" && p[pi] == s[si])) {
        si += 1
        pi += 1
      } else if pi < p.endIndex && p[pi] == "*" {
        star = pi
        mark = si
        pi += 1
      } else if let st = star {
        pi = st + 1
        mark += 1
        si = mark
      } else {
        return false
      }
    }
    while pi < p.endIndex && p[pi] == "*" { pi += 1 }
    return pi == p.endIndex
  }

  // MARK: - Sorting

  /// protocol.md: each key in turn (nil first ascending, last descending; decimals by
  /// value; strings by bytes, or `ms_fold(x, 3)` when caseInsensitive), then the key.
  func sorted(_ objs: [DObj], by keys: [SortKey]) -> [DObj] {
    let paths = keys.map { $0.keyPath.split(separator: ".").map(String.init) }
    let decorated = objs.map { o -> (DObj, [DVal]) in
      (
        o,
        zip(keys, paths).map { k, p in
          var v = world.value(o, p)
          if k.caseInsensitive, case .text(let s) = v { v = .text(TextFolding.fold(s, caseInsensitive: true, diacriticInsensitive: true)) }
          return v
        }
      )
    }
    return decorated.sorted { a, b in
      for (i, k) in keys.enumerated() {
        let c = DEvaluator.order(a.1[i], b.1[i])
        if c != 0 { return k.ascending ? c < 0 : c > 0 }
      }
      return a.0.pk < b.0.pk
    }.map(\.0)
  }
}

/// Regular expressions for `MATCHES`: the whole string, matched scalar by scalar.
enum DRegex {
  static func wholeMatch(_ s: String, _ pattern: String) -> Bool {
    guard let r = try? Regex(pattern).matchingSemantics(.unicodeScalar) else { return false }
    return (try? r.wholeMatch(in: s)) != nil
  }

  static func valid(_ pattern: String) -> Bool { (try? Regex(pattern)) != nil }
}
