import JSONCore
import XCTest

@testable import StoreEngine

/// The tree without source positions: the string and JSON forms number nodes
/// differently (characters vs JSON nodes), so structure is compared without them.
func stripped(_ p: Predicate) -> Predicate {
  switch p {
  case .constant: return p
  case .not(let inner): return .not(stripped(inner))
  case .and(let items): return .and(items.map(stripped))
  case .or(let items): return .or(items.map(stripped))
  case .comparison(var c):
    c.offset = 0
    c.lhs = stripped(c.lhs)
    c.rhs = stripped(c.rhs)
    return .comparison(c)
  }
}

func stripped(_ e: Expression) -> Expression {
  switch e {
  case .keyPath(let parts, _): return .keyPath(parts, offset: 0)
  case .constant, .evaluatedObject: return e
  case .array(let items): return .array(items.map(stripped))
  case .variable(let n, _): return .variable(n, offset: 0)
  case .placeholder(let f, let i, _): return .placeholder(f, index: i, offset: 0)
  case .path(let segments, _): return .path(segments.map(stripped), offset: 0)
  case .aggregate(let op, let c, let keys, _): return .aggregate(op, stripped(c), keyPath: keys, offset: 0)
  case .subquery(var s):
    s.offset = 0
    s.collection = stripped(s.collection)
    s.predicate = stripped(s.predicate)
    return .subquery(s)
  case .function(let name, let args, _): return .function(name, args.map(stripped), offset: 0)
  }
}

/// The error parsing `text` fails with (a test failure when it parses).
func refusal(_ text: String, _ args: [JSONValue] = [], file: StaticString = #filePath, line: UInt = #line) -> PredicateError? {
  expectError(PredicateError.self, { try PredicateParser.parse(text, args: args) }, file: file, line: line)
}
