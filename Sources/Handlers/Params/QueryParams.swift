import JSONCore
import RPCCore
import StoreEngine

/// `query.fetch`: a fetch request with `sectionBy`.
struct QueryFetchParams: MethodParams {
  static let method = "query.fetch"
  static let effect = MethodEffect.reads
  static let shape = ParamShape(describing: Self.self)
  typealias Result = QueryFetchResult
  let request: FetchRequest
  init(_ r: ParamReader) throws { request = try Self.sectioned(r) }

  /// `query.fetch`'s and `query.observe`'s params.
  static func sectioned(_ r: ParamReader) throws -> FetchRequest {
    var request = try RequestParsing.fetchRequest(r, .all)
    request.sectionBy = try (r.read("sectionBy") as SectionKeyParam?)?.key
    return request
  }
}

/// `query.observe`: as `query.fetch`.
struct QueryObserveParams: MethodParams {
  static let method = "query.observe"
  static let effect = MethodEffect.reads
  static let shape = ParamShape(describing: Self.self)
  typealias Result = QueryObserveResult
  let request: FetchRequest
  init(_ r: ParamReader) throws { request = try QueryFetchParams.sectioned(r) }
}

/// `query.unobserve`.
struct QueryUnobserveParams: MethodParams {
  static let method = "query.unobserve"
  static let effect = MethodEffect.reads
  static let shape = ParamShape(describing: Self.self)
  typealias Result = NullResult
  let subscription: String
  init(_ r: ParamReader) throws { subscription = try r.require("subscription") }
}

/// `query.count`.
struct QueryCountParams: MethodParams {
  static let method = "query.count"
  static let effect = MethodEffect.reads
  static let shape = ParamShape(describing: Self.self)
  typealias Result = CountResult
  let request: FetchRequest
  init(_ r: ParamReader) throws { request = try RequestParsing.fetchRequest(r, []) }
}

/// `query.ids`: a fetch request without `select`, `include` and `toMany`.
struct QueryIdsParams: MethodParams {
  static let method = "query.ids"
  static let effect = MethodEffect.reads
  static let shape = ParamShape(describing: Self.self)
  typealias Result = IDsResult
  let request: FetchRequest
  init(_ r: ParamReader) throws { request = try RequestParsing.fetchRequest(r, .page) }
}

/// `query.parse`.
struct QueryParseParams: MethodParams {
  static let method = "query.parse"
  static let effect = MethodEffect.reads
  static let shape = ParamShape(describing: Self.self)
  typealias Result = QueryParseResult
  let predicate: Predicate?
  init(_ r: ParamReader) throws {
    r.declare("where", schema: JSONSchema.stringOrObject, required: true)
    try r.check(
      r.has("where"), RPCError.invalidParams("params.where: missing", ["path": "params.where", "expected": "string or object"]))
    let template: Bool = try r.read("template") ?? false
    predicate = try RequestParsing.condition(r, template: template)?.predicate
  }
}
