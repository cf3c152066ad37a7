import JSONCore

/// A problem in a JSON-form predicate, at a node (`where.and[1].lhs`).
public struct PredicateJSONError: Error, Equatable, CustomStringConvertible {
  public var message: String
  public var path: ErrorPlace
  public init(_ message: String, path: ErrorPlace) {
    self.message = message
    self.path = path
  }
  public var description: String { "\(path): \(message)" }
}

/// Reads the JSON form (see `PredicateJSON`) into the tree, binding `placeholder` nodes
/// from `args` and `variable` nodes from `variables` as the string parser does.
///
/// JSON has no character offsets, so every node's `offset` is instead its number in
/// `locations`, which holds the node's place: errors found later, when the tree is
/// compiled against an entity, still name the place.
public struct PredicateJSONDecoder {
  public private(set) var locations: [ErrorPlace] = []
  private let args: [JSONValue]
  private let variables: JSONObject
  private let template: Bool
  private var scopes: [String] = []
  /// Nodes above the one being read: recursion stops at `PredicateLimits.maxNesting`.
  private var depth = 0

  public static func decode(
    _ value: JSONValue, path: ErrorPlace, args: [JSONValue] = [], variables: JSONObject = [:], template: Bool = false
  ) throws -> (predicate: Predicate, locations: [ErrorPlace]) {
    var d = PredicateJSONDecoder(args: args, variables: variables, template: template)
    let p = try d.predicate(value, path)
    return (p, d.locations)
  }

  private init(args: [JSONValue], variables: JSONObject, template: Bool) {
    self.args = args
    self.variables = variables
    self.template = template
  }

  private mutating func locate(_ path: ErrorPlace) -> Int {
    locations.append(path)
    return locations.count - 1
  }

  private static let predicateKeys = ["const", "and", "or", "not", "op"]
  private static let expressionKeys = [
    "keyPath", "value", "array", "variable", "placeholder", "self", "path", "aggregate", "subquery", "function",
  ]

  /// The object at `path` and the one member among `kinds` that says what it is.
  private func kind(of v: JSONValue, _ path: ErrorPlace, among kinds: [String], what: String) throws -> (JSONObject, String) {
    guard case .object(let o) = v else { throw PredicateJSONError("expected \(what) object, got \(v.typeName)", path: path) }
    var present = kinds.filter(o.contains)
    // An aggregate's `keyPath` member is the key it folds, not a second kind.
    if present.contains("aggregate") { present.removeAll { $0 == "keyPath" } }
    guard present.count == 1 else {
      let listed = kinds.map { "'\($0)'" }.joined(separator: ", ")
      throw PredicateJSONError(
        present.isEmpty ? "\(what) object needs one of \(listed)" : "\(what) object has both '\(present[0])' and '\(present[1])'",
        path: path)
    }
    return (o, present[0])
  }

  private func only(_ o: JSONObject, _ allowed: [String], _ path: ErrorPlace) throws {
    if let extra = o.keys.first(where: { !allowed.contains($0) }) {
      throw PredicateJSONError("unknown member '\(extra)' (expected \(allowed.map { "'\($0)'" }.joined(separator: ", ")))", path: path)
    }
  }

  private func member(_ o: JSONObject, _ key: String, _ path: ErrorPlace) throws -> JSONValue {
    guard let v = o[key] else { throw PredicateJSONError("missing", path: path.key(key)) }
    return v
  }

  private func string(_ o: JSONObject, _ key: String, _ path: ErrorPlace) throws -> String {
    let v = try member(o, key, path)
    guard case .string(let s) = v else { throw PredicateJSONError("expected a string, got \(v.typeName)", path: path.key(key)) }
    return s
  }

  private func array(_ o: JSONObject, _ key: String, _ path: ErrorPlace, nonEmpty: Bool = false) throws -> [JSONValue] {
    let v = try member(o, key, path)
    guard case .array(let a) = v else { throw PredicateJSONError("expected an array, got \(v.typeName)", path: path.key(key)) }
    if nonEmpty && a.isEmpty { throw PredicateJSONError("expected at least one element", path: path.key(key)) }
    return a
  }

  /// Reads one node a level deeper (every predicate and expression node is one);
  /// refuses past the limit, before recursing.
  private mutating func nested<T>(_ path: ErrorPlace, _ body: (inout Self) throws -> T) throws -> T {
    guard depth < PredicateLimits.maxNesting else { throw PredicateJSONError(PredicateLimits.tooDeep(), path: path) }
    depth += 1
    defer { depth -= 1 }
    return try body(&self)
  }

  // MARK: - Predicates

  mutating func predicate(_ v: JSONValue, _ path: ErrorPlace) throws -> Predicate {
    try nested(path) { try $0.predicateNode(v, path) }
  }

  private mutating func predicateNode(_ v0: JSONValue, _ path0: ErrorPlace) throws -> Predicate {
    // `{"not": {"not": P}}` is P: a run of nots is counted, not nested, as in the text form.
    var (v, path, negated) = (v0, path0, false)
    while case .object(let o) = v, o.count == 1, let inner = o["not"] {
      (v, path, negated) = (inner, path.key("not"), !negated)
    }
    if negated { return .not(try predicate(v, path)) }
    let (o, k) = try kind(of: v, path, among: Self.predicateKeys, what: "a predicate")
    switch k {
    case "const":
      try only(o, ["const"], path)
      guard case .bool(let b) = o["const"]! else {
        throw PredicateJSONError("expected true or false, got \(o["const"]!.typeName)", path: path.key("const"))
      }
      return .constant(b)
    case "not":
      try only(o, ["not"], path)
      preconditionFailure("read above")
    case "and", "or":
      try only(o, [k], path)
      var items: [Predicate] = []
      for (i, item) in try array(o, k, path, nonEmpty: true).enumerated() { items.append(try predicate(item, path.key(k).index(i))) }
      return k == "and" ? .and(items) : .or(items)
    default:
      return .comparison(try comparison(o, path))
    }
  }

  private mutating func comparison(_ o: JSONObject, _ path: ErrorPlace) throws -> Comparison {
    try only(o, ["op", "lhs", "rhs", "options", "quantifier"], path)
    let opText = try string(o, "op", path)
    guard let op = Comparison.Operator(rawValue: opText.uppercased()) else {
      throw PredicateJSONError(
        "unknown operator '\(opText)' (expected one of \(Comparison.Operator.allCases.map(\.rawValue).joined(separator: " ")))",
        path: path.key("op"))
    }
    let offset = locate(path)
    var c = Comparison(try expression(try member(o, "lhs", path), path.key("lhs")), op, .constant(.null), offset: offset)
    c.rhs = try expression(try member(o, "rhs", path), path.key("rhs"))
    if o.contains("options") {
      for letter in try string(o, "options", path) {
        switch letter {
        case "c": c.caseInsensitive = true
        case "d": c.diacriticInsensitive = true
        case "n": c.normalized = true
        default: throw PredicateJSONError("unknown option '\(letter)' (expected letters c, d, n)", path: path.key("options"))
        }
      }
    }
    if o.contains("quantifier") {
      let q = try string(o, "quantifier", path)
      guard let quantifier = Comparison.Quantifier(rawValue: q.uppercased()), q == q.lowercased() else {
        throw PredicateJSONError("unknown quantifier '\(q)' (expected any, all or none)", path: path.key("quantifier"))
      }
      c.quantifier = quantifier
    }
    return c
  }

  // MARK: - Expressions

  private mutating func expression(_ v: JSONValue, _ path: ErrorPlace) throws -> Expression {
    try nested(path) { try $0.expressionNode(v, path) }
  }

  private mutating func expressionNode(_ v: JSONValue, _ path: ErrorPlace) throws -> Expression {
    let (o, k) = try kind(of: v, path, among: Self.expressionKeys, what: "an expression")
    let offset = locate(path)
    do {
      switch k {
      case "keyPath":
        try only(o, ["keyPath"], path)
        return try Expression.keyPath(text: try string(o, "keyPath", path), offset: offset)
      case "value":
        try only(o, ["value"], path)
        return .constant(o["value"]!)
      case "array":
        try only(o, ["array"], path)
        var items: [Expression] = []
        for (i, item) in try array(o, "array", path).enumerated() { items.append(try expression(item, path.key("array").index(i))) }
        return .array(items)
      case "variable":
        try only(o, ["variable"], path)
        let name = try string(o, "variable", path)
        if scopes.contains(name) { return .variable(name, offset: offset) }
        if let value = variables[name] { return .constant(value) }
        if template { return .variable(name, offset: offset) }
        throw PredicateJSONError("variable $\(name) has no value in 'variables'", path: path)
      case "placeholder": return try placeholder(o, path, offset: offset)
      case "self":
        try only(o, ["self"], path)
        guard o["self"] == .bool(true) else { throw PredicateJSONError("expected true", path: path.key("self")) }
        return .evaluatedObject
      case "path":
        try only(o, ["path"], path)
        var segments: [Expression] = []
        for (i, item) in try array(o, "path", path, nonEmpty: true).enumerated() {
          let segment = try expression(item, path.key("path").index(i))
          switch segment {
          case .keyPath, .variable, .evaluatedObject, .path: break
          case .placeholder(let f, _, _) where f == "%K": break
          default:
            throw PredicateJSONError("a path segment is a keyPath, variable, self or %K placeholder", path: path.key("path").index(i))
          }
          segments.append(segment)
        }
        return Expression.joining(segments, offset: offset)
      case "aggregate":
        try only(o, ["aggregate", "collection", "keyPath"], path)
        let collection = try expression(try member(o, "collection", path), path.key("collection"))
        let keys =
          o.contains("keyPath")
          ? try string(o, "keyPath", path).split(separator: ".", omittingEmptySubsequences: false).map(String.init) : []
        if keys.contains("") { throw PredicateJSONError("empty key", path: path.key("keyPath")) }
        return try Expression.aggregate(over: collection, operator: try string(o, "aggregate", path), keys: keys, offset: offset)
      case "subquery":
        try only(o, ["subquery"], path)
        guard case .object(let s) = o["subquery"]! else {
          throw PredicateJSONError("expected an object {collection, variable, predicate}", path: path.key("subquery"))
        }
        let sp = path.key("subquery")
        try only(s, ["collection", "variable", "predicate"], sp)
        let collection = try expression(try member(s, "collection", sp), sp.key("collection"))
        let variable = try string(s, "variable", sp)
        scopes.append(variable)
        defer { scopes.removeLast() }
        let p = try predicate(try member(s, "predicate", sp), sp.key("predicate"))
        return .subquery(Subquery(collection: collection, variable: variable, predicate: p, offset: offset))
      default:
        try only(o, ["function", "arguments"], path)
        var items: [Expression] = []
        for (i, item) in try array(o, "arguments", path).enumerated() { items.append(try expression(item, path.key("arguments").index(i))) }
        return .function(try string(o, "function", path), items, offset: offset)
      }
    } catch let e as PredicateError {
      throw PredicateJSONError(e.message, path: path)
    }
  }

  private static let specifiers: Set<String> = ["%@", "%K", "%d", "%i", "%ld", "%li", "%lld", "%u", "%lu", "%f", "%lf", "%a", "%la", "%s"]

  private func placeholder(_ o: JSONObject, _ path: ErrorPlace, offset: Int) throws -> Expression {
    try only(o, ["placeholder", "index"], path)
    let f = try string(o, "placeholder", path)
    guard Self.specifiers.contains(f) else {
      throw PredicateJSONError("unknown format specifier '\(f)'", path: path.key("placeholder"))
    }
    guard case .int(let i)? = o["index"], i >= 0, i < Int64(Int32.max) else {
      throw PredicateJSONError("expected the argument's index, an integer ≥ 0", path: path.key("index"))
    }
    let index = Int(i)
    guard index < args.count else {
      if template { return .placeholder(f, index: index, offset: offset) }
      throw PredicateJSONError("placeholder \(f) (index \(index)) has no value in 'args'", path: path)
    }
    return try PredicateParser.bind(f, args[index], index: index, offset: offset)
  }
}
