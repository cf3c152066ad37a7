/// The one way key paths are assembled, shared by the string parser and the JSON decoder
/// so that both produce the same tree for the same path.
extension Expression {
  /// Joins path segments: adjacent key paths merge, a leading `SELF` is dropped
  /// (`SELF.name` is `name`), and a path of one segment is that segment.
  static func joining(_ segments: [Expression], offset: Int) -> Expression {
    var out: [Expression] = []
    for s in segments {
      switch s {
      case .evaluatedObject where out.isEmpty: continue
      case .keyPath(let parts, let o):
        if case .keyPath(let previous, let po)? = out.last {
          out[out.count - 1] = .keyPath(previous + parts, offset: po)
        } else {
          out.append(.keyPath(parts, offset: o))
        }
      case .path(let inner, _): out.append(contentsOf: inner)
      default: out.append(s)
      }
    }
    switch out.count {
    case 0: return .evaluatedObject
    case 1:
      if case .keyPath(let parts, _) = out[0] { return .keyPath(parts, offset: offset) }
      return out[0]
    default: return .path(out, offset: offset)
    }
  }

  /// A key path written as one string (`%K`'s argument, the JSON form's `keyPath`):
  /// `items.@sum.price` becomes an aggregate over `items`.
  static func keyPath(text: String, offset: Int) throws -> Expression {
    let parts = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    if let empty = parts.firstIndex(of: "") {
      throw PredicateError("key path '\(text)' has an empty key at position \(empty + 1)", offset: offset)
    }
    guard let at = parts.firstIndex(where: { $0.hasPrefix("@") }) else { return .keyPath(parts, offset: offset) }
    return try aggregate(
      over: .keyPath(Array(parts[..<at]), offset: offset), operator: parts[at], keys: Array(parts[(at + 1)...]), offset: offset)
  }

  /// `collection.@op.keys`, checked: a known operator, a collection before it, plain
  /// keys after it, and none after @count.
  static func aggregate(over collection: Expression, operator name: String, keys: [String], offset: Int) throws -> Expression {
    guard let op = CollectionOperator(rawValue: name.lowercased()) else {
      throw PredicateError(
        "unknown collection operator '\(name)' (expected \(CollectionOperator.allCases.map(\.rawValue).joined(separator: ", ")))",
        offset: offset)
    }
    if case .keyPath(let parts, _) = collection, parts.isEmpty {
      throw PredicateError("\(op.rawValue) needs a to-many key path before it, as in 'items.\(op.rawValue)'", offset: offset)
    }
    if let bad = keys.first(where: { $0.hasPrefix("@") }) {
      throw PredicateError("only one collection operator may appear in a key path, found '\(bad)' after \(op.rawValue)", offset: offset)
    }
    if op == .count, !keys.isEmpty {
      throw PredicateError("@count ends a key path; found '.\(keys.joined(separator: "."))' after it", offset: offset)
    }
    return .aggregate(op, collection, keyPath: keys, offset: offset)
  }
}
