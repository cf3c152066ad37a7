import JSONCore

/// Format arguments: `%@ %K %d ...` take the next value of `args`, checked against the
/// specifier; in templates an unbound one stays a placeholder.
extension PredicateParser {
  mutating func bindFormat(_ f: String, offset: Int) throws -> Expression {
    let index = argIndex
    argIndex += 1
    guard index < args.count else {
      if template { return .placeholder(f, index: index, offset: offset) }
      throw PredicateError("format argument \(index + 1) (\(f)) has no value in 'args'", offset: offset)
    }
    return try Self.bind(f, args[index], index: index, offset: offset)
  }

  /// The expression `value` stands for as argument `index` of specifier `f`.
  static func bind(_ f: String, _ v: JSONValue, index: Int, offset: Int) throws -> Expression {
    switch f {
    case "%K":
      guard case .string(let s) = v, !s.isEmpty else {
        throw PredicateError("argument \(index + 1) for %K must be a key path string, got \(v.typeName)", offset: offset)
      }
      return try Expression.keyPath(text: s, offset: offset)
    case "%d", "%i", "%ld", "%li", "%lld", "%u", "%lu":
      guard case .int = v else {
        throw PredicateError("argument \(index + 1) for \(f) must be an integer, got \(v.typeName)", offset: offset)
      }
      return .constant(v)
    case "%f", "%lf", "%a", "%la":
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
