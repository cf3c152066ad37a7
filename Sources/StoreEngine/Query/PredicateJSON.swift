import JSONCore

/// The JSON form of a predicate: the same tree as the string form, one JSON object per
/// node (protocol.md, "The JSON form"). `PredicateJSONDecoder` reads it back.
public enum PredicateJSON {
  public static func encode(_ p: Predicate) -> JSONValue {
    switch p {
    case .constant(let b): return ["const": .bool(b)]
    case .not(let inner): return ["not": encode(inner)]
    case .and(let items): return ["and": .array(items.map(encode))]
    case .or(let items): return ["or": .array(items.map(encode))]
    case .comparison(let c):
      var o: JSONObject = ["op": .string(c.op.rawValue), "lhs": encode(c.lhs), "rhs": encode(c.rhs)]
      let options = (c.caseInsensitive ? "c" : "") + (c.diacriticInsensitive ? "d" : "") + (c.normalized ? "n" : "")
      if !options.isEmpty { o.append("options", .string(options)) }
      if let q = c.quantifier { o.append("quantifier", .string(q.rawValue.lowercased())) }
      return .object(o)
    }
  }

  public static func encode(_ e: Expression) -> JSONValue {
    switch e {
    case .keyPath(let parts, _): return ["keyPath": .string(parts.joined(separator: "."))]
    case .constant(let v): return ["value": v]
    case .array(let items): return ["array": .array(items.map(encode))]
    case .variable(let name, _): return ["variable": .string(name)]
    case .placeholder(let f, let index, _): return ["placeholder": .string(f), "index": .int(Int64(index))]
    case .evaluatedObject: return ["self": true]
    case .path(let segments, _): return ["path": .array(segments.map(encode))]
    case .aggregate(let op, let collection, let keys, _):
      var o: JSONObject = ["aggregate": .string(op.rawValue), "collection": encode(collection)]
      if !keys.isEmpty { o.append("keyPath", .string(keys.joined(separator: "."))) }
      return .object(o)
    case .subquery(let s):
      return [
        "subquery": ["collection": encode(s.collection), "variable": .string(s.variable), "predicate": encode(s.predicate)]
      ]
    case .function(let name, let args, _): return ["function": .string(name), "arguments": .array(args.map(encode))]
    }
  }
}
