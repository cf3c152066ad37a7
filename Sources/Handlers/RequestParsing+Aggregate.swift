import JSONCore
import RPCCore
import StoreEngine

/// Grouping keys: `sectionBy` (`query.fetch`) and `query.aggregate`'s `groupBy`.
extension RequestParsing {
  /// A key path string, or `{keyPath, bucket?, timeZone?}` (plus `as` in `groupBy`).
  static func groupingKey(_ r: ParamReader, allowAlias: Bool) throws -> GroupingKey {
    var key = GroupingKey(keyPath: try r.require("keyPath"), alias: allowAlias ? try r.read("as") : nil)
    key.bucket = try r.read("bucket")
    if let zone: String = try r.read("timeZone") {
      guard key.bucket != nil else {
        throw RPCError.invalidParams(
          "\(r.child("timeZone")): a time zone applies only with a date bucket", ["path": .string(r.child("timeZone"))])
      }
      key.timeZone = zone
    }
    return key
  }
}

/// The object form of a grouping key (`SectionKeyFields`, `GroupByKeyFields`).
protocol GroupingKeyFields: ParamObject {
  var key: GroupingKey { get }
}

/// A grouping key: a key path string, or its object form `Fields`.
struct GroupingKeyParam<Fields: GroupingKeyFields>: ParamValue {
  let key: GroupingKey
  static var schema: JSONValue { JSONSchema.oneOf(JSONSchema.string, Fields.schema) }
  static var expected: String { "key path string or {keyPath, bucket, timeZone}" }
  static var placeholder: GroupingKeyParam { GroupingKeyParam(key: GroupingKey(keyPath: "")) }
  init(key: GroupingKey) { self.key = key }
  init(param v: JSONValue, path: @autoclosure () -> String) throws {
    switch v {
    case .string(let keyPath): key = GroupingKey(keyPath: keyPath)
    case .object: key = try Fields(param: v, path: path()).key
    default: throw JSONReadError(path: path(), expected: Self.expected, actual: v.typeName)
    }
  }
}

/// `sectionBy`: a key path, or `{keyPath, bucket?, timeZone?}`.
typealias SectionKeyParam = GroupingKeyParam<SectionKeyFields>
struct SectionKeyFields: GroupingKeyFields {
  static let shape = ParamShape(describing: Self.self)
  let key: GroupingKey
  init(_ r: ParamReader) throws { key = try RequestParsing.groupingKey(r, allowAlias: false) }
}

/// An element of `groupBy`: a key path, or `{keyPath, bucket?, timeZone?, as?}`.
typealias GroupKeyParam = GroupingKeyParam<GroupByKeyFields>
struct GroupByKeyFields: GroupingKeyFields {
  static let shape = ParamShape(describing: Self.self)
  let key: GroupingKey
  init(_ r: ParamReader) throws { key = try RequestParsing.groupingKey(r, allowAlias: true) }
}

extension DateBucket: ParamValue {
  static var schema: JSONValue { JSONSchema.enumeration(["day", "week", "month", "year"]) }
  static var expected: String { "string" }
  static var placeholder: DateBucket { .day }
  init(param v: JSONValue, path: @autoclosure () -> String) throws {
    let b = try String(param: v, path: path())
    guard let bucket = DateBucket(rawValue: b) else {
      let at = path()
      throw JSONReadError(
        path: at, expected: "one of day, week, month, year", actual: "'\(b)'",
        message: "\(at): expected one of day, week, month, year, got '\(b)'")
    }
    self = bucket
  }
}

extension Aggregate.Function: ParamValue {
  static var schema: JSONValue { JSONSchema.enumeration(["count", "sum", "avg", "min", "max"]) }
  static var expected: String { "string" }
  static var placeholder: Aggregate.Function { .count }
  init(param v: JSONValue, path: @autoclosure () -> String) throws {
    let name = try String(param: v, path: path())
    guard let fn = Aggregate.Function(rawValue: name) else {
      let at = path()
      throw JSONReadError(
        path: at, expected: "one of count, sum, avg, min, max", actual: "'\(name)'",
        message: "\(at): expected one of count, sum, avg, min, max, got '\(name)'")
    }
    self = fn
  }
}

/// An element of `aggregates`: `{fn, key?, distinct?, as}`.
struct AggregateParam: ParamObject {
  static let shape = ParamShape(describing: Self.self)
  let aggregate: Aggregate
  init(_ r: ParamReader) throws {
    let fn: Aggregate.Function = try r.require("fn")
    aggregate = Aggregate(fn, try r.read("key"), distinct: try r.read("distinct") ?? false, as: try r.require("as"))
  }
}

/// An element of `query.aggregate`'s `sort`: an output name, or `{key, ascending?}`.
struct AggregateSortParam: ParamValue {
  let key: AggregateSortKey
  static var schema: JSONValue { JSONSchema.oneOf(JSONSchema.string, Fields.schema) }
  static var expected: String { "object" }
  static var placeholder: AggregateSortParam { AggregateSortParam(key: AggregateSortKey(key: "")) }
  init(key: AggregateSortKey) { self.key = key }
  init(param v: JSONValue, path: @autoclosure () -> String) throws {
    if case .string(let name) = v {
      key = AggregateSortKey(key: name)
    } else {
      key = try Fields(param: v, path: path()).key
    }
  }
  struct Fields: ParamObject {
    static let shape = ParamShape(describing: Self.self)
    let key: AggregateSortKey
    init(_ r: ParamReader) throws { key = AggregateSortKey(key: try r.require("key"), ascending: try r.read("ascending") ?? true) }
  }
}

/// `query.aggregate`.
struct QueryAggregateParams: MethodParams {
  static let method = "query.aggregate"
  static let effect = MethodEffect.reads
  static let shape = ParamShape(describing: Self.self)
  typealias Result = QueryAggregateResult
  var request: AggregateRequest

  init(_ r: ParamReader) throws {
    request = AggregateRequest(entity: try r.require("entity"), predicate: try RequestParsing.condition(r)?.predicate)
    request.groupBy = try (r.read("groupBy") as [GroupKeyParam]?)?.map(\.key) ?? []
    request.aggregates = try (r.require("aggregates") as [AggregateParam]).map(\.aggregate)
    if let text: String = try r.read("having") {
      do {
        request.having = try PredicateParser.parse(text)
      } catch let e as PredicateError {
        throw StoreError.predicate(e, at: ErrorPlace(.having))
      }
    }
    request.sort = try (r.read("sort") as [AggregateSortParam]?)?.map(\.key) ?? []
    request.limit = try r.int("limit", min: 0).map(Int.init)
    request.offset = try r.int("offset", min: 0).map(Int.init)
    request.includeSubentities = try r.read("includeSubentities") ?? true
  }
}
