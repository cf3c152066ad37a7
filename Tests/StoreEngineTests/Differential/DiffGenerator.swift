import JSONCore

@testable import StoreEngine

/// Constructs of the full predicate language, used once the engine accepts them.
enum DFeature: String, CaseIterable {
  case any = "ANY", all = "ALL", none = "NONE", subquery = "SUBQUERY().@count"
  case sum = "@sum", avg = "@avg", min = "@min", max = "@max"
  case keyPaths = "key path vs key path", matches = "MATCHES"
}

/// Random predicates and sorts over the fixed model, with right sides drawn mostly from
/// the stored values (so comparisons hit), their case/diacritic variants, substrings
/// and wildcard patterns of them, and neighbours of numbers and dates.
struct DGenerator {
  var rng: DiffRandom
  let world: DWorld
  let features: Set<DFeature>
  /// False where the engine adds doubles in its own order (PostgreSQL: protocol.md, "PostgreSQL
  /// engine: what differs"), so a `@sum` or `@avg` of doubles may differ from the
  /// evaluator's in its last bits: no threshold is then drawn equal to one.
  var exactSumsOfDoubles = true

  // MARK: - Predicates

  mutating func predicate(_ entity: String) -> DPred { node(entity, depth: rng.weighted([35, 35, 20, 10])) }

  private mutating func node(_ entity: String, depth: Int) -> DPred {
    if depth == 0 { return leaf(entity) }
    switch rng.weighted([40, 35, 25]) {
    case 0: return .and((0..<rng.int(in: 2...3)).map { _ in node(entity, depth: depth - 1) })
    case 1: return .or((0..<rng.int(in: 2...3)).map { _ in node(entity, depth: depth - 1) })
    default: return .not(node(entity, depth: depth - 1))
    }
  }

  private mutating func leaf(_ entity: String) -> DPred {
    let quants = [DFeature.any, .all, .none].filter(features.contains)
    let aggs = [DFeature.sum, .avg, .min, .max].filter(features.contains)
    let weights = [
      70, 2, quants.isEmpty ? 0 : 10, features.contains(.subquery) ? 6 : 0, aggs.isEmpty ? 0 : 7,
      features.contains(.keyPaths) && !Self.keyPairs[entity]!.isEmpty ? 6 : 0, features.contains(.matches) ? 4 : 0,
    ]
    switch rng.weighted(weights) {
    case 0: return .cmp(comparison(entity, keys: DSchema.keys[entity]!))
    case 1: return .const(rng.chance(0.5))
    case 2: return quantified(entity, rng.pick(quants))
    case 3: return subquery(entity)
    case 4: return aggregate(entity, rng.pick(aggs))
    case 5: return keyPair(entity)
    default: return matches(entity)
    }
  }

  /// Attribute keys of an entity (no key paths), for members of to-manys.
  private static func attributeKeys(_ entity: String) -> [DKey] {
    DSchema.attributes[entity]!.map { DKey(path: [$0.name], kind: .attr($0.type)) }
  }

  static let toManyPaths: [String: [[String]]] = ["Book": [["tags"], ["author", "books"]], "Author": [["books"]], "Tag": [["books"]]]

  private mutating func quantified(_ entity: String, _ f: DFeature) -> DPred {
    let q: DQuant = f == .any ? .any : f == .all ? .all : .none
    // A to-one before the to-many only for ANY (nil link: no members, so false).
    let paths = Self.toManyPaths[entity]!.filter { q == .any || $0.count == 1 }
    let path = rng.pick(paths)
    let dest = DWorld.destination(entity, path)
    var member = comparison(dest, keys: Self.attributeKeys(dest))
    if case .one(let l) = member.rhs, l.val.isNull, !member.op.isString {  // `ANY x == nil`: keep to plain values
      member.op = .eq
      member.rhs = .one(literal(dest, member.key, .eq))
    }
    return .quant(q, path: path, member: member)
  }

  private mutating func subquery(_ entity: String) -> DPred {
    let path = rng.pick(Self.toManyPaths[entity]!.filter { $0.count == 1 })
    let dest = DWorld.destination(entity, path)
    let keys = Self.attributeKeys(dest)
    var inner: DPred = .cmp(comparison(dest, keys: keys))
    switch rng.int(4) {
    case 0: inner = .and([inner, .cmp(comparison(dest, keys: keys))])
    case 1: inner = .or([inner, .cmp(comparison(dest, keys: keys))])
    case 2: inner = .not(inner)
    default: break
    }
    let op = rng.pick([DOp.eq, .ne, .lt, .le, .gt, .ge])
    let n = Int64(rng.weighted([30, 35, 20, 15]))
    return .subquery(
      path: path, variable: rng.pick(["x", "m", "item"]), inner: inner, op: op, count: DLit(json: .int(n), val: .num(Double(n))))
  }

  static let aggregateTargets: [String: [(path: [String], attr: String)]] = [
    "Author": [(["books"], "pages"), (["books"], "stock"), (["books"], "rating")],
    "Tag": [(["books"], "pages"), (["books"], "rating")],
    "Book": [(["tags"], "weight")],
  ]

  private mutating func aggregate(_ entity: String, _ f: DFeature) -> DPred {
    let fn: DAggFn = f == .sum ? .sum : f == .avg ? .avg : f == .min ? .min : .max
    let (path, attr) = rng.pick(Self.aggregateTargets[entity]!)
    // A value near the aggregate of a random object, so comparisons go both ways.
    let o = rng.pick(world.all(entity))
    let values = world.members(o, path).compactMap { v -> Double? in
      if case .num(let d) = v.attrs[attr] ?? .null { return d }
      return nil
    }
    var x =
      values.isEmpty
      ? 0
      : fn == .sum
        ? values.reduce(0, +) : fn == .avg ? values.reduce(0, +) / Double(values.count) : fn == .min ? values.min()! : values.max()!
    x += rng.pick([0, 0, 0, 1, -1, 0.5])
    let summed = DSchema.attributes[DWorld.destination(entity, path)]?.first { $0.name == attr }?.type
    if !exactSumsOfDoubles, fn == .sum || fn == .avg, summed == .double {
      // Far beyond the last bits in which the engines' sums differ.
      x += max(abs(x), 1) * 1e-9 * (rng.chance(0.5) ? 1 : -1)
    }
    let json: JSONValue = x == x.rounded() && abs(x) < 1e15 && rng.chance(0.6) ? .int(Int64(x)) : .double(x)
    return .aggregate(path: path, fn: fn, attr: attr, op: rng.pick([DOp.eq, .ne, .lt, .le, .gt, .ge]), rhs: DLit(json: json, val: .num(x)))
  }

  static let keyPairs: [String: [(String, String)]] = [
    "Book": [
      ("pages", "stock"), ("title", "subtitle"), ("title", "author.name"), ("subtitle", "author.nick"), ("rating", "author.rating"),
      ("released", "author.born"), ("author", "author.mentor"),
    ],
    "Author": [("name", "nick"), ("name", "mentor.name"), ("rating", "mentor.rating"), ("born", "mentor.born")],
    "Tag": [],
  ]

  private func key(_ entity: String, _ text: String) -> DKey { DSchema.keys[entity]!.first { $0.text == text }! }

  private mutating func keyPair(_ entity: String) -> DPred {
    var (a, b) = rng.pick(Self.keyPairs[entity]!)
    if rng.chance(0.3) { swap(&a, &b) }
    let l = key(entity, a), r = key(entity, b)
    var ops: [DOp] = [.eq, .ne, .lt, .le, .gt, .ge]
    if l.isString { ops += DOp.strings.filter { $0 != .like } }
    let op = rng.pick(ops)
    let fold = l.isString && rng.chance(0.4)
    return .keys(lhs: l, op: op, c: fold && rng.chance(0.7), d: fold && rng.chance(0.6), rhs: r)
  }

  private mutating func matches(_ entity: String) -> DPred {
    let k = rng.pick(DSchema.keys[entity]!.filter(\.isString))
    let base = Array(stringBase(entity, k).unicodeScalars.prefix(10))
    var p = rng.chance(0.2) ? ".*" : ""
    for u in base {
      if rng.chance(0.15) {
        p += "."
      } else if "\\^$.|?*+()[]{}-/#&~\"'".unicodeScalars.contains(u) || u == " " {
        p += "\\" + String(u)
      } else if u == "\n" {
        p += "\\n"
      } else if u == "\t" {
        p += "\\t"
      } else {
        p.unicodeScalars.append(u)
      }
      if rng.chance(0.05) { p += rng.pick(["*", "+", "?"]) }
    }
    if rng.chance(0.3) { p += ".*" }
    if rng.chance(0.1) { p = "(" + p + ")|[a-c]+" }
    if !DRegex.valid(p) { p = ".*" }
    if rng.chance(0.05) { return .matches(k, pattern: .null) }
    return .matches(k, pattern: DLit(json: .string(p), val: .text(p)))
  }

  // MARK: - Comparisons

  private static func ops(for kind: DKind) -> [(DOp, Int)] {
    let order: [(DOp, Int)] = DOp.ordering.map { ($0, 6) }
    switch kind {
    case .attr(.string): return [(.eq, 18), (.ne, 10), (.in, 8), (.between, 5)] + order + DOp.strings.map { ($0, 8) }
    case .attr(.decimal): return [(.eq, 16), (.ne, 10), (.in, 8), (.between, 6)] + order + DOp.strings.map { ($0, 3) }
    case .attr(.bool): return [(.eq, 20), (.ne, 12), (.in, 6), (.lt, 3), (.gt, 3)]
    case .toOne: return [(.eq, 20), (.ne, 12), (.in, 8), (.lt, 3), (.ge, 3)]
    default: return [(.eq, 14), (.ne, 10), (.in, 8), (.between, 8)] + order
    }
  }

  mutating func comparison(_ entity: String, keys: [DKey]) -> DCmp {
    // Prefer the entity's own attributes; key paths and counts the rest of the time.
    let own = keys.filter { $0.path.count == 1 }
    let k = rng.chance(0.55) && !own.isEmpty ? rng.pick(own) : rng.pick(keys)
    let choices = Self.ops(for: k.kind)
    let op = choices[rng.weighted(choices.map(\.1))].0
    var c = DCmp(key: k, op: op, rhs: .one(.null))
    if k.isString && rng.chance(0.4) || k.kind == .attr(.decimal) && op.isString && rng.chance(0.3) {
      c.c = rng.chance(0.7)
      c.d = !c.c || rng.chance(0.5)
    }
    switch op {
    case .eq, .ne: c.rhs = .one(rng.chance(0.1) ? .null : literal(entity, k, op))
    case .in where k.isString && rng.chance(0.25):
      // `key IN 'text'`: substring containment; texts around stored values, or empty.
      var t = rng.chance(0.1) ? "" : stringBase(entity, k)
      if rng.chance(0.5) { t = rng.pick(["", "x", "Émile ", "ab"]) + t + rng.pick(["", "z", " Zola", "abc"]) }
      c.rhs = .one(DLit(json: .string(t), val: .text(t)))
    case .in:
      var items = (0..<rng.weighted([5, 35, 30, 20, 10])).map { _ in literal(entity, k, .eq) }
      if rng.chance(0.15) { items.insert(.null, at: rng.int(items.count + 1)) }
      c.rhs = .list(items)
    case .between: c.rhs = .range(literal(entity, k, .lt), literal(entity, k, .gt))
    // A nil pattern: a string operator with nil on the right matches nothing.
    case _ where op.isString && rng.chance(0.05): c.rhs = .one(.null)
    default: c.rhs = .one(literal(entity, k, op))
    }
    return c
  }

  /// The stored values of a key path's attribute (found on the entity it ends at).
  private func pool(_ entity: String, _ k: DKey) -> [DVal] {
    var e = entity
    for part in k.path.dropLast() { e = DSchema.toOne[e]![part] ?? e }
    return world.values[e]?[k.path.last!] ?? []
  }

  private mutating func stringBase(_ entity: String, _ k: DKey) -> String {
    let stored = pool(entity, k).compactMap { v -> String? in if case .text(let s) = v { return s } else { return nil } }
    switch rng.int(100) {
    case ..<50 where !stored.isEmpty: return rng.pick(stored)
    case ..<70: return rng.pick(DPools.titles + DPools.names + DPools.labels)
    case ..<88:
      let s = stored.isEmpty ? rng.pick(DPools.titles) : rng.pick(stored)
      switch rng.int(4) {
      case 0: return s.uppercased()
      case 1: return s.lowercased()
      case 2: return TextFolding.fold(s, caseInsensitive: false, diacriticInsensitive: true)
      default: return TextFolding.fold(s, caseInsensitive: true, diacriticInsensitive: true)
      }
    default:
      let alphabet = Array("aAbeéÉE\u{301}sSßzΩω".unicodeScalars)
      var t = String.UnicodeScalarView()
      for _ in 0..<rng.int(in: 0...4) { t.append(rng.pick(alphabet)) }
      return String(t)
    }
  }

  /// A piece of `s` fitting a string operator: a prefix, suffix, infix or wildcard pattern.
  private mutating func stringOperand(_ s: String, _ op: DOp) -> String {
    let u = Array(s.unicodeScalars)
    if rng.chance(0.08) { return "" }
    let n = u.count
    let a = rng.int(n + 1), b = rng.int(n + 1)
    let piece: [Unicode.Scalar]
    switch op {
    case .beginsWith: piece = Array(u[0..<a])
    case .endsWith: piece = Array(u[a...])
    case .contains: piece = Array(u[min(a, b)..<max(a, b)])
    case .like:
      var p = String.UnicodeScalarView()
      if rng.chance(0.2) { p.append("*") }
      for ch in u {
        switch rng.int(100) {
        case ..<12: p.append("?")
        case ..<20: p.append("*")
        case ..<24:
          p.append("*")
          p.append(ch)
        default: p.append(ch)
        }
      }
      if rng.chance(0.2) { p.append("*") }
      return String(p)
    default: piece = u
    }
    return String(String.UnicodeScalarView(piece))
  }

  /// A right-side value for `k op ...`.
  mutating func literal(_ entity: String, _ k: DKey, _ op: DOp) -> DLit {
    let stored = pool(entity, k)
    switch k.kind {
    case .attr(.string):
      var s = stringBase(entity, k)
      if op.isString { s = stringOperand(s, op) }
      return DLit(json: .string(s), val: .text(s))
    case .attr(.decimal):
      var texts = stored.compactMap { v -> String? in if case .dec(let s) = v { return s } else { return nil } }
      texts += ["0", "10", "-1", "99.99", "1000000", "12.5"]
      let c = rng.pick(texts)
      if op.isString {
        let s = stringOperand(c, op)
        return DLit(json: .string(s), val: .text(s))
      }
      var json: JSONValue = .string(c)
      switch rng.int(6) {
      case 0 where !c.hasPrefix("-"): json = .string("00" + c)
      case 1: json = .string(c.contains(".") ? c + "00" : c + ".0")
      case 2 where !c.hasPrefix("-"): json = .string("+" + c)
      case 3 where !c.contains(".") && c.count < 15: json = .int(Int64(c)!)
      default: break
      }
      return DLit(json: json, val: .dec(DDecimal.canonical(c)))
    case .attr(.int), .count:
      let nums = stored.compactMap { v -> Double? in if case .num(let d) = v { return d } else { return nil } }
      var x = k.kind == .count || nums.isEmpty || rng.chance(0.1) ? Double(rng.int(in: 0...5)) : rng.pick(nums)
      x += rng.pick([0, 0, 0, 1, -1])
      if rng.chance(0.12) { return DLit(json: .double(x + 0.5), val: .num(x + 0.5)) }
      return DLit(json: .int(Int64(x)), val: .num(x))
    case .attr(.double):
      let nums = stored.compactMap { v -> Double? in if case .num(let d) = v { return d } else { return nil } }
      let x = nums.isEmpty || rng.chance(0.2) ? rng.pick(DPools.ratings + [2, 3.5, -0.5]) : rng.pick(nums)
      if x == x.rounded() && abs(x) < 1e15 && rng.chance(0.3) { return DLit(json: .int(Int64(x)), val: .num(x)) }
      return DLit(json: .double(x), val: .num(x))
    case .attr(.date):
      let secs = stored.compactMap { v -> Double? in if case .num(let d) = v { return d } else { return nil } }
      let base = secs.isEmpty ? 0 : Int64((rng.pick(secs) * 1000).rounded())
      let ms = base + rng.pick([0, 0, 0, 1, -1, 86_400_000, -1000] as [Int64])
      let val = DVal.num(Double(ms) / 1000)
      // Years outside 1000...9999 have no four-digit ISO form: send those as numbers.
      let safe = ms > -30_000_000_000_000 && ms < 253_000_000_000_000
      switch safe ? rng.int(5) : 2 {
      case 0: return DLit(json: .string(DDate.iso(millis: ms, offsetMinutes: rng.pick([60, -300, 330, -59]))), val: val)
      case 1 where ms % 86_400_000 == 0: return DLit(json: .string(DDate.iso(millis: ms, dateOnly: true)), val: val)
      case 2: return DLit(json: ms % 1000 == 0 ? .int(ms / 1000) : .double(Double(ms) / 1000), val: val)
      default: return DLit(json: .string(DDate.iso(millis: ms)), val: val)
      }
    case .attr(.bool):
      let options: [(JSONValue, Double)] = [(.bool(true), 1), (.bool(false), 0), (.int(0), 0), (.int(1), 1), (.int(2), 2), (.int(-1), -1)]
      let (j, v) = options[rng.weighted([30, 30, 10, 10, 5, 5])]
      return DLit(json: j, val: .num(v))
    case .toOne(let dest):
      let pk = rng.chance(0.9) ? rng.pick(world.pks[dest]!) : 999
      return DLit(json: .string("\(dest)/\(pk)"), val: .num(Double(pk)))
    }
  }

  // MARK: - Sorts

  mutating func sort(_ entity: String) -> [SortKey] {
    var keys = DSchema.keys[entity]!
    var out: [SortKey] = []
    for _ in 0..<rng.weighted([10, 40, 30, 20]) {
      let k = keys.remove(at: rng.int(keys.count))
      out.append(SortKey(keyPath: k.text, ascending: rng.chance(0.5), caseInsensitive: k.isString && rng.chance(0.4)))
    }
    return out
  }
}
