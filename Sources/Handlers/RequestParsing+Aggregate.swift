import JSONCore
import RPCCore
import StoreEngine

/// Param readers for grouping: `sectionBy` (`query.fetch`) and `query.aggregate`.
extension RequestParsing {
  /// A key path string, or `{keyPath, bucket?, timeZone?}` (plus `as` in `groupBy`).
  static func groupingKey(_ v: JSONValue, path: String, allowAlias: Bool) throws -> GroupingKey {
    if case .string(let keyPath) = v { return GroupingKey(keyPath: keyPath) }
    guard case .object = v else {
      throw JSONReadError(path: path, expected: "key path string or {keyPath, bucket, timeZone}", actual: v.typeName)
    }
    let k = try JSONReader(v, path: path)
    try k.rejectUnknown(allowAlias ? ["keyPath", "bucket", "timeZone", "as"] : ["keyPath", "bucket", "timeZone"])
    var key = GroupingKey(keyPath: try k.requireString("keyPath"), alias: try k.string("as"))
    if let b = try k.string("bucket") {
      guard let bucket = DateBucket(rawValue: b) else {
        throw JSONReadError(
          path: k.child("bucket"), expected: "one of day, week, month, year", actual: "'\(b)'",
          message: "\(k.child("bucket")): expected one of day, week, month, year, got '\(b)'")
      }
      key.bucket = bucket
    }
    if let zone = try k.string("timeZone") {
      guard key.bucket != nil else {
        throw RPCError.invalidParams(
          "\(k.child("timeZone")): a time zone applies only with a date bucket", ["path": .string(k.child("timeZone"))])
      }
      key.timeZone = zone
    }
    return key
  }

  /// `query.fetch` takes `sectionBy`; `query.ids` and `query.count` do not.
  static let sectionedFetchKeys = fetchKeys + ["sectionBy"]

  static let aggregateKeys = [
    "entity", "where", "args", "variables", "groupBy", "aggregates", "having", "sort", "limit", "offset", "includeSubentities",
  ]

  static func aggregateRequest(_ p: JSONReader) throws -> AggregateRequest {
    var r = AggregateRequest(entity: try p.requireString("entity"), predicate: try predicate(p))
    r.groupBy = try (p.array("groupBy") ?? []).enumerated().map { i, v in
      try groupingKey(v, path: "params.groupBy[\(i)]", allowAlias: true)
    }
    r.aggregates = try p.requireArray("aggregates").enumerated().map { i, v in
      let a = try JSONReader(v, arrayPath: "params.aggregates", index: i)
      try a.rejectUnknown(["fn", "key", "distinct", "as"])
      let name = try a.requireString("fn")
      guard let fn = Aggregate.Function(rawValue: name) else {
        throw JSONReadError(
          path: a.child("fn"), expected: "one of count, sum, avg, min, max", actual: "'\(name)'",
          message: "\(a.child("fn")): expected one of count, sum, avg, min, max, got '\(name)'")
      }
      return Aggregate(fn, try a.string("key"), distinct: try a.bool("distinct") ?? false, as: try a.requireString("as"))
    }
    if let text = try p.string("having") {
      do {
        r.having = try PredicateParser.parse(text)
      } catch let e as PredicateError {
        throw StoreError.predicate(e, at: ErrorPlace(.having))
      }
    }
    r.sort = try (p.array("sort") ?? []).enumerated().map { i, v in
      if case .string(let key) = v { return AggregateSortKey(key: key) }
      let k = try JSONReader(v, arrayPath: "params.sort", index: i)
      try k.rejectUnknown(["key", "ascending"])
      return AggregateSortKey(key: try k.requireString("key"), ascending: try k.bool("ascending") ?? true)
    }
    r.limit = try p.int("limit", min: 0).map(Int.init)
    r.offset = try p.int("offset", min: 0).map(Int.init)
    r.includeSubentities = try p.bool("includeSubentities") ?? true
    return r
  }

  /// `{groups: [{key: {name: value}, values: {alias: value}}]}`.
  static func aggregateResult(_ groups: [AggregateGroup]) -> JSONValue {
    .object(["groups": .array(groups.map { .object(["key": .object($0.key), "values": .object($0.values)]) })])
  }
}
