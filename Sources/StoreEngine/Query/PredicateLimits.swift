/// How deep a predicate may nest (protocol.md, Predicates, "Limits"). The parsers count
/// nesting as they recurse and stop at the limit, so no input can exhaust the stack;
/// `PredicateDepth` then bounds the finished tree, which is what every later recursion
/// (the SQL compiler, the JSON encoder) walks.
public enum PredicateLimits {
  /// Levels of brackets (`(`, `{`, calls, subscripts, SUBQUERY), and the depth of the
  /// tree: a node under more than this many others is refused.
  public static let maxNesting = 100
  /// Operators in one chain of `+ -`, `* /` or `**`: each makes the tree one deeper, so
  /// the longest chain fits under a comparison with its first operand.
  public static let maxChain = maxNesting - 2
  /// What SQLite's parser can take (a stack of 100 entries in SQLite 3.40): the SQL of a
  /// predicate nests at most this many levels, where a group (`AND`, `OR`, `NOT`,
  /// arithmetic) counts 1 and a correlated subquery (SUBQUERY, ANY/ALL/NONE, a to-many
  /// `IN`, a collection operator) counts `subqueryWeight`.
  public static let maxSQLNesting = 24
  public static let subqueryWeight = 4
  static func tooDeep() -> String { "the predicate nests deeper than \(maxNesting) levels" }
}

/// The depth of a parsed tree, measured without recursion.
enum PredicateDepth {
  private enum Node {
    case predicate(Predicate)
    case expression(Expression)
  }

  /// Throws at the first node deeper than `PredicateLimits.maxNesting`, naming the
  /// offset of the nearest node above it that has one.
  static func check(_ root: Predicate) throws {
    var stack: [(node: Node, depth: Int, offset: Int)] = [(.predicate(root), 1, 0)]
    while let (node, depth, inherited) = stack.popLast() {
      var offset = inherited
      var children: [Node] = []
      switch node {
      case .predicate(let p):
        switch p {
        case .constant: break
        case .not(let inner): children = [.predicate(inner)]
        case .and(let items), .or(let items): children = items.map { .predicate($0) }
        case .comparison(let c):
          offset = c.offset
          children = [.expression(c.lhs), .expression(c.rhs)]
        }
      case .expression(let e):
        switch e {
        case .keyPath(_, let o), .variable(_, let o), .placeholder(_, _, let o): offset = o
        case .constant, .evaluatedObject: break
        case .array(let items): children = items.map { .expression($0) }
        case .path(let segments, let o):
          offset = o
          children = segments.map { .expression($0) }
        case .aggregate(_, let collection, _, let o):
          offset = o
          children = [.expression(collection)]
        case .subquery(let s):
          offset = s.offset
          children = [.expression(s.collection), .predicate(s.predicate)]
        case .function(_, let args, let o):
          offset = o
          children = args.map { .expression($0) }
        }
      }
      if depth > PredicateLimits.maxNesting { throw PredicateError(PredicateLimits.tooDeep(), offset: offset) }
      for child in children { stack.append((child, depth + 1, offset)) }
    }
  }
}
