import DatabaseKit
import JSONCore
import SchemaModel

/// Comparisons: which side is what (a value, a column, a to-many collection), the
/// quantifiers as correlated `EXISTS`, then the operator itself.
extension SQLBuilder {
  mutating func comparison(_ c0: Comparison) throws -> String {
    var c = c0
    // ANY/ALL/NONE compare inside a correlated subquery (an IN over a to-many path too,
    // counted in `compare` once the path is known).
    let weight = c.quantifier == nil ? 0 : PredicateLimits.subqueryWeight
    try nest(weight, at: c.offset)
    defer { unnest(weight) }
    var lhs = try operand(c.lhs)
    var rhs = try operand(c.rhs)
    // A value on the left: turn the comparison around so the key path is on the left.
    if case .value(let v) = lhs, !isValue(rhs) {
      switch c.op {
      case .in:
        // `'x' IN tags.name` is membership (below); `'x' IN name` is substring.
        if case .scalar(let r) = rhs, r.type == .string || r.type == .url {
          swap(&lhs, &rhs)
          c.op = .contains
        }
      case .contains:
        guard case .array = v else { throw PredicateError("CONTAINS needs the key path on the left", offset: c.offset) }
        swap(&lhs, &rhs)
        c.op = .in
      default:
        guard let mirrored = mirror(c.op) else {
          throw PredicateError("the key path must be on the left of \(c.op.rawValue)", offset: c.offset)
        }
        swap(&lhs, &rhs)
        c.op = mirrored
      }
    }
    // `tags CONTAINS %@` is `%@ IN tags`.
    if c.quantifier == nil, case .collection = lhs, c.op == .contains {
      swap(&lhs, &rhs)
      c.op = .in
    }
    if let q = c.quantifier {
      guard case .collection(let coll) = lhs else {
        throw PredicateError(
          "\(q.rawValue) needs a key path through a to-many relationship on its left\(describe(lhs).map { ", but \($0) is not one" } ?? "")",
          offset: c.offset)
      }
      let condition = try compare(.scalar(coll.element), rhs, c)
      switch q {
      case .any: return exists(coll, condition)
      case .none: return "NOT \(exists(coll, condition))"
      // Every element satisfies it: no element fails it (nil counts as failing).
      case .all: return "NOT \(exists(coll, "NOT \(dialect.falseWhenUnknown(condition))"))"
      }
    }
    if case .collection(let coll) = lhs {
      throw PredicateError(
        "'\(coll.element.name)' goes through a to-many relationship: say ANY, ALL or NONE, or compare its @count", offset: c.offset)
    }
    return try compare(lhs, rhs, c)
  }

  private func isValue(_ c: Compiled) -> Bool { if case .value = c { return true } else { return false } }

  private func describe(_ c: Compiled) -> String? {
    switch c {
    case .scalar(let o): return "'\(o.name)'"
    case .collection(let coll): return "'\(coll.element.name)'"
    case .value: return nil
    }
  }

  func mirror(_ op: Comparison.Operator) -> Comparison.Operator? {
    switch op {
    case .equal: return .equal
    case .notEqual: return .notEqual
    case .less: return .greater
    case .lessOrEqual: return .greaterOrEqual
    case .greater: return .less
    case .greaterOrEqual: return .lessOrEqual
    default: return nil
    }
  }

  /// One scalar (or value) against a value, a column, or the elements of a collection.
  private mutating func compare(_ lhs: Compiled, _ rhs: Compiled, _ c: Comparison) throws -> String {
    if case .collection(let coll) = rhs {
      guard c.op == .in else {
        throw PredicateError(
          "a to-many key path ('\(coll.element.name)') on the right works only with IN; put it on the left with ANY, ALL or NONE",
          offset: c.offset)
      }
      var member = c
      member.op = .equal
      try nest(PredicateLimits.subqueryWeight, at: c.offset)
      defer { unnest(PredicateLimits.subqueryWeight) }
      return exists(coll, try compare(.scalar(coll.element), lhs, member))
    }
    guard case .scalar(let l) = lhs else {
      throw PredicateError("a comparison needs a key path (or SELF) on one side", offset: c.offset)
    }
    switch rhs {
    case .value(let v): return try valueComparison(l, v, c)
    case .scalar(let r): return try columnComparison(l, r, c)
    case .collection: preconditionFailure("handled above")
    }
  }

  // MARK: - Against a value

  private mutating func valueComparison(_ l0: Operand, _ rhs: JSONValue, _ c: Comparison) throws -> String {
    // The string operators see a uuid as its text; the other comparisons bind its bytes.
    _ = try foldFlags(l0, c)  // [c]/[d] as the operand's own type allows
    let l = Self.isTextual(c.op) || (c.op == .in && rhs.stringValue != nil) ? asText(l0) : l0
    let column = l.sql
    let name = l.name
    switch c.op {
    case .equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual:
      if case .null = rhs {
        switch c.op {
        case .equal: return "\(column) IS NULL"
        case .notEqual: return "\(column) IS NOT NULL"
        default: throw PredicateError("'\(name)' cannot be ordered against nil", offset: c.offset)
        }
      }
      if case .double(let d) = rhs, l.type?.isInteger == true { return integerAgainstReal(column, c.op, d) }
      let v = try encode(rhs, l, c)
      orderingDecimal = c.op != .equal && c.op != .notEqual
      defer { orderingDecimal = false }
      let (lf, rf) = try folded(column, v, l, c)
      // `!=` holds for a nil key, as in NSPredicate.
      if c.op == .notEqual { return dialect.isDistinct(lf, rf) }
      return "\(lf) \(c.op == .equal ? "=" : c.op.rawValue) \(rf)"
    case .beginsWith, .endsWith, .contains, .like, .matches:
      try requireText(l, c)
      // As NSPredicate: a nil pattern matches nothing (and `NOT` of it everything).
      if case .null = rhs { return answer(false, discarding: column) }
      guard case .string(let s) = rhs else {
        throw PredicateError("\(c.op.rawValue) needs a string on the right, got \(rhs.typeName)", offset: c.offset)
      }
      if c.op == .like {
        // NSPredicate LIKE: `*` any run, `?` one character, the rest literal.
        let (gl, gr) = try folded(column, .text(dialect.wildcardPattern(s)), l, c)
        return dialect.wildcardMatch(gl, gr)
      }
      if c.op == .matches { return try matches(column, pattern: .text(s), c, literal: s) }
      if c.op == .beginsWith, let range = prefixRange(column, s, l, c) { return range }
      let (lf, rf) = try folded(column, .text(s), l, c)
      return stringTest(c.op, lf, rf)
    case .in:
      if case .string(let text) = rhs, Self.isText(l) {
        // `key IN 'text'`: the text contains the key's value, as `'text' CONTAINS key`.
        let (lf, tf) = try folded(column, .text(text), l, c)
        return dialect.stringTest(.contains, tf, lf)
      }
      guard case .array(let items) = rhs else {
        throw PredicateError(
          "IN needs an array on the right ({a, b} or an array argument)\(Self.isText(l) ? " or a string" : ""), got \(rhs.typeName)",
          offset: c.offset)
      }
      if items.isEmpty { return answer(false, discarding: column) }
      if items.count > Self.inlineMembers, let sql = try boundMembership(column, items, l, c) { return sql }
      var placeholders: [String] = []
      var includesNil = false
      for item in items {
        if case .null = item {
          includesNil = true
          continue
        }
        if case .double(let d) = item, l.type?.isInteger == true {
          // Compared exactly: a number that is no integer is no member's value.
          if let i = Self.exactInteger(d) { placeholders.append(bind(.integer(i))) }
          continue
        }
        placeholders.append(try folded(column, try encode(item, l, c), l, c).1)
      }
      let lf = try folded(column, .null, l, c).0
      let membership = placeholders.isEmpty ? answer(false, discarding: lf) : "\(lf) IN (\(placeholders.joined(separator: ", ")))"
      return includesNil ? "(\(membership) OR \(column) IS NULL)" : membership
    case .between:
      guard case .array(let bounds) = rhs, bounds.count == 2 else {
        throw PredicateError("BETWEEN needs {low, high}", offset: c.offset)
      }
      if bounds.contains(.null) { throw PredicateError("BETWEEN bounds cannot be nil", offset: c.offset) }
      if l.type?.isInteger == true, bounds.contains(where: { if case .double = $0 { return true } else { return false } }) {
        // Each end compared exactly (`integerAgainstReal`).
        var ends: [String] = []
        for (op, bound) in [(Comparison.Operator.greaterOrEqual, bounds[0]), (.lessOrEqual, bounds[1])] {
          if case .double(let d) = bound {
            ends.append(integerAgainstReal(column, op, d))
          } else {
            ends.append("\(column) \(op.rawValue) \(bind(try encode(bound, l, c)))")
          }
        }
        return "(\(ends[0]) AND \(ends[1]))"
      }
      orderingDecimal = true
      defer { orderingDecimal = false }
      let lo = try encode(bounds[0], l, c)
      let hi = try encode(bounds[1], l, c)
      let (lf, a) = try folded(column, lo, l, c)
      let b = try folded(column, hi, l, c).1
      return "\(lf) BETWEEN \(a) AND \(b)"
    }
  }

  /// Binds `value` in the stored form of the operand's type.
  /// `IN` lists longer than this are bound as one value (`boundMembership`).
  static let inlineMembers = 500

  /// A long `IN` list bound as one JSON array and read back as a table
  /// (`SQLDialect.jsonArrayElements`, SQLite's `json_each`): one bound value however many
  /// members (a statement binds at most 32,766), and SQLite builds one lookup table for
  /// it. A uuid's members travel as their text, turned back into the stored form by
  /// `uuidFromText`. Nil when a member has no JSON form (a data blob, a non-finite real):
  /// then each member gets its own placeholder.
  private mutating func boundMembership(_ column: String, _ items: [JSONValue], _ l: Operand, _ c: Comparison) throws -> String? {
    var members: [JSONValue] = []
    var includesNil = false
    var (integers, reals) = (false, false)
    for item in items {
      switch try encode(item, l, c) {
      case .null: includesNil = true
      case .integer(let i):
        members.append(.int(i))
        integers = true
      case .real(let d) where d.isFinite:
        members.append(.double(d))
        reals = true
      case .text(let t): members.append(.string(t))
      case .blob(let b) where l.type == .uuid: members.append(.string(UUIDText.text(b)))
      default: return nil
      }
    }
    let element: ListElement = integers ? (reals ? .number : .integer) : reals ? .real : .text
    let value = dialect.jsonArrayValue(element)
    let flags = try foldFlags(l, c)
    let (lf, member): (String, String)
    if flags != 0 {
      (lf, member) = (dialect.fold(column, flags: flags), dialect.fold(value, flags: flags))
    } else if l.type == .uuid {
      (lf, member) = (column, dialect.uuidFromText(value))
    } else if l.type == .decimal && orderingDecimal {
      (lf, member) = (dialect.castToReal(column), dialect.castToReal(value))
    } else {
      (lf, member) = (column, value)
    }
    let membership: String
    if members.isEmpty {
      membership = answer(false, discarding: lf)
    } else {
      let list = dialect.jsonArrayElements(bindUntyped(.text(JSONWriter.encodeString(.array(members)))))
      membership = "\(lf) IN (SELECT \(member) FROM \(list))"
    }
    return includesNil ? "(\(membership) OR \(column) IS NULL)" : membership
  }

  private func encode(_ value: JSONValue, _ l: Operand, _ c: Comparison) throws -> SQLValue {
    if case .null = value { return .null }
    let name = l.name
    guard case .attribute(let type) = l.kind else {
      guard case .object(let entity) = l.kind else { preconditionFailure() }
      guard case .string(let s) = value, let id = ObjectID(s), let target = catalog.plans[id.entity], entity.includes(target.model) else {
        throw PredicateError(
          "'\(name)' is \(name == "SELF" ? "the object" : "a relationship to \(entity.name)"); compare it with an id such as \"\(entity.name)/1\" or nil",
          offset: c.offset)
      }
      return .integer(id.pk)
    }
    switch (type, value) {
    case (_, .int(let i)) where type.isInteger || type == .bool: return .integer(i)
    case (_, .double(let d)) where type.isInteger: return .real(d)
    case (.bool, .bool(let b)): return .integer(b ? 1 : 0)
    case (.date, .int(let i)): return .real(Double(i))
    case (.date, .double(let d)): return .real(d)
    case (.json, _):
      throw PredicateError("json attribute '\(name)' cannot be compared in a predicate (its stored form is opaque)", offset: c.offset)
    default:
      do { return try type.encode(value) } catch let e as ValueError {
        throw PredicateError("'\(name)': \(e.message)", offset: c.offset)
      }
    }
  }

  /// The two sides of a comparison, folded with `ms_fold` under [c]/[d].
  private mutating func folded(_ column: String, _ v: SQLValue, _ l: Operand, _ c: Comparison) throws -> (String, String) {
    let flags = try foldFlags(l, c)
    if flags != 0 {
      if case .null = v { return (dialect.fold(column, flags: flags), "") }
      return (dialect.fold(column, flags: flags), dialect.fold(bind(v), flags: flags))
    }
    if case .null = v { return (column, "") }
    let p = bind(v)
    if l.type == .decimal && orderingDecimal { return (dialect.castToReal(column), dialect.castToReal(p)) }
    return (column, p)
  }

  /// `ms_fold`'s flags for [c]/[d] (0 without them), which apply to strings, and to
  /// whatever the string operators accept (uuids and decimals compare as text there).
  private func foldFlags(_ l: Operand, _ c: Comparison) throws -> Int {
    guard c.caseInsensitive || c.diacriticInsensitive else { return 0 }
    let textual = Self.isTextual(c.op) && (l.type == .uuid || l.type == .decimal)
    guard l.type == .string || l.type == .url || textual else {
      throw PredicateError(
        "[c]/[d] options apply to strings, but '\(l.name)' is \(l.type?.rawValue ?? "a relationship")", offset: c.offset)
    }
    return (c.caseInsensitive ? 1 : 0) | (c.diacriticInsensitive ? 2 : 0)
  }

  /// What the string operators accept: strings, urls, and uuids and decimals as their text.
  private static func isText(_ l: Operand) -> Bool { l.type == .string || l.type == .url || l.type == .uuid || l.type == .decimal }

  /// The string operators (`IN` a string is one too, decided by its right side).
  private static func isTextual(_ op: Comparison.Operator) -> Bool { [.beginsWith, .endsWith, .contains, .like, .matches].contains(op) }

  /// A uuid operand as its canonical text (a string to the operators); others unchanged.
  private func asText(_ o: Operand) -> Operand {
    guard o.type == .uuid else { return o }
    return Operand(sql: dialect.uuidText(o.sql), kind: .attribute(.string), name: o.name)
  }

  private func requireText(_ l: Operand, _ c: Comparison) throws {
    guard Self.isText(l) else {
      throw PredicateError(
        "\(c.op.rawValue) needs a string attribute, but '\(l.name)' is \(l.type?.rawValue ?? "a relationship")", offset: c.offset)
    }
  }

  /// `l BEGINSWITH/ENDSWITH/CONTAINS r`. An empty `r` (also one that folding empties)
  /// matches nothing, as Foundation's `hasPrefix("")`, `hasSuffix("")` and
  /// `range(of: "")`; a nil side makes it unknown, which counts as false (see `negation`).
  private func stringTest(_ op: Comparison.Operator, _ l: String, _ r: String) -> String {
    switch op {
    case .beginsWith: return dialect.stringTest(.beginsWith, l, r)
    case .endsWith: return dialect.stringTest(.endsWith, l, r)
    default: return dialect.stringTest(.contains, l, r)
    }
  }

  /// `BEGINSWITH` without folding as the range `col >= prefix AND col < successor`, which
  /// an index on the column serves (the substr form is opaque to the planner). Strings
  /// compare by UTF-8 bytes, which order like code points, so the successor (the last
  /// code point plus one) bounds exactly the strings with the prefix.
  private mutating func prefixRange(_ column: String, _ prefix: String, _ l: Operand, _ c: Comparison) -> String? {
    guard !c.caseInsensitive, !c.diacriticInsensitive, l.type == .string || l.type == .url, !prefix.isEmpty else { return nil }
    var scalars = Array(prefix.unicodeScalars)
    let last = scalars.removeLast().value
    guard last < 0x10FFFF else { return nil }
    scalars.append(Unicode.Scalar(last + 1 == 0xD800 ? 0xE000 : last + 1)!)
    var successor = String.UnicodeScalarView()
    successor.append(contentsOf: scalars)
    return "(\(column) >= \(bind(.text(prefix))) AND \(column) < \(bind(.text(String(successor)))))"
  }

  /// `MATCHES`: the whole text against an ICU-style regular expression (SQLite: in Swift,
  /// `ms_regexp`, see RegexMatching.swift). A constant pattern is checked here, so a bad
  /// one is a predicate error at its place rather than a failing statement.
  private mutating func matches(_ column: String, pattern: SQLValue, _ c: Comparison, literal: String?) throws -> String {
    if let literal {
      do { _ = try RegexMatching.compile(literal, flags: 0) } catch {
        throw PredicateError("\(error)", offset: c.offset)
      }
    }
    let flags = (c.caseInsensitive ? 1 : 0) | (c.diacriticInsensitive ? 2 : 0)
    let p = bind(pattern)
    return dialect.regexMatch(pattern: p, text: column, flags: flags, place: regexPlace(c))
  }

  /// `regexMatch`'s place: three values: where the comparison is, for errors raised while
  /// the statement runs: its offset and the place of the predicate, or of its node when
  /// the predicate came in the JSON form (`ErrorPlace.encoded`).
  private mutating func regexPlace(_ c: Comparison) -> String {
    let node = locations.flatMap { c.offset < $0.count ? $0[c.offset] : nil }
    return "\(bind(.integer(Int64(c.offset)))), \(bind(.text((node ?? predicatePlace).encoded))), \(bind(.integer(node == nil ? 0 : 1)))"
  }

  // MARK: - Against another key path

  private mutating func columnComparison(_ l0: Operand, _ r0: Operand, _ c: Comparison) throws -> String {
    try requireComparable(l0, r0, c)
    // Two uuids compare their bytes (in text order); a uuid against a string, or under a
    // string operator, compares its text.
    let bytes = l0.type == .uuid && r0.type == .uuid && !Self.isTextual(c.op) && c.op != .in
    let (l, r) = bytes ? (l0, r0) : (asText(l0), asText(r0))
    let flags = try foldFlags(l0, c)
    _ = try foldFlags(r0, c)
    func side(_ o: Operand, ordering: Bool) -> String {
      if flags != 0 { return dialect.fold(o.sql, flags: flags) }
      return o.type == .decimal && ordering ? dialect.castToReal(o.sql) : o.sql
    }
    if let exact = try integerAgainstRealColumn(l, r, c) { return exact }
    switch c.op {
    case .equal, .notEqual:
      // Two key paths that are both nil are equal, as in NSPredicate.
      let (a, b) = (side(l, ordering: false), side(r, ordering: false))
      return c.op == .equal ? dialect.isNotDistinct(a, b) : dialect.isDistinct(a, b)
    case .less, .lessOrEqual, .greater, .greaterOrEqual:
      return "\(side(l, ordering: true)) \(c.op.rawValue) \(side(r, ordering: true))"
    case .beginsWith, .endsWith, .contains, .like:
      try requireText(l, c)
      try requireText(r, c)
      let lf = side(l, ordering: false)
      let rf = side(r, ordering: false)
      if c.op == .like { return dialect.wildcardMatch(lf, dialect.wildcardPatternSQL(rf)) }
      return stringTest(c.op, lf, rf)
    case .matches:
      try requireText(l, c)
      try requireText(r, c)
      let flags = (c.caseInsensitive ? 1 : 0) | (c.diacriticInsensitive ? 2 : 0)
      return dialect.regexMatch(pattern: r.sql, text: l.sql, flags: flags, place: regexPlace(c))
    case .in:
      // `a IN b` with b a string: b contains a (so an empty a matches nothing).
      try requireText(l, c)
      try requireText(r, c)
      return stringTest(.contains, side(r, ordering: false), side(l, ordering: false))
    case .between:
      throw PredicateError("BETWEEN needs {low, high} on the right, not the key path '\(r.name)'", offset: c.offset)
    }
  }

  /// Two key paths can be compared when their stored forms are: numbers (and dates and
  /// bools) with each other, strings with strings, objects with objects of one hierarchy.
  private func requireComparable(_ l: Operand, _ r: Operand, _ c: Comparison) throws {
    func family(_ o: Operand) -> String {
      switch o.kind {
      case .object(let e): return "object:" + e.root.name
      case .attribute(let t):
        if t == .json { return "json" }
        if Self.isNumeric(t) && t != .decimal || t == .date { return "number" }
        if t == .string || t == .url || t == .uuid { return "text" }
        return t.rawValue
      }
    }
    let (a, b) = (family(l), family(r))
    if a == "json" || b == "json" {
      throw PredicateError("json attributes cannot be compared in a predicate (their stored form is opaque)", offset: c.offset)
    }
    guard a == b else {
      func what(_ o: Operand) -> String {
        switch o.kind {
        case .object(let e): return "an object of \(e.name)"
        case .attribute(let t): return t.rawValue
        }
      }
      throw PredicateError("cannot compare '\(l.name)' (\(what(l))) with '\(r.name)' (\(what(r)))", offset: c.offset)
    }
  }
}

extension SQLBuilder {
  /// A comparison whose answer does not depend on its operand (an empty `IN` list, a nil
  /// pattern, an integer against a number beyond the integers) still names the operand:
  /// the values the operand bound (`n + 1`: the 1) stay used. SQLite leaves a numbered
  /// parameter the statement does not name unused; PostgreSQL refuses the statement (it
  /// types every parameter by where it is used).
  func answer(_ value: Bool, discarding operand: String) -> String {
    let b = dialect.boolean(value)
    return "(CASE WHEN (\(operand)) IS NULL THEN \(b) ELSE \(b) END)"
  }
}
