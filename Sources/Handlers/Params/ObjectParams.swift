import JSONCore
import RPCCore
import StoreEngine

/// `objects.insert`.
struct ObjectsInsertParams: MethodParams {
  static let method = "objects.insert"
  static let effect = MethodEffect.writes
  static let shape = ParamShape(describing: Self.self)
  typealias Result = WireObjectJSON
  let entity: String
  let values: JSONObject
  let toMany: ToManyMode
  init(_ r: ParamReader) throws {
    entity = try r.require("entity")
    values = try (r.read("values") as Values?)?.object ?? [:]
    toMany = try r.read("toMany") ?? .none
  }
}

/// `objects.update`.
struct ObjectsUpdateParams: MethodParams {
  static let method = "objects.update"
  static let effect = MethodEffect.writes
  static let shape = ParamShape(describing: Self.self)
  typealias Result = WireObjectJSON
  let id: String
  let values: JSONObject
  let ifVersion: Int64?
  let toMany: ToManyMode
  init(_ r: ParamReader) throws {
    id = try r.require("id")
    values = try (r.read("values") as Values?)?.object ?? [:]
    ifVersion = try r.int("ifVersion", min: 1)
    toMany = try r.read("toMany") ?? .none
  }
}

/// `objects.upsert`.
struct ObjectsUpsertParams: MethodParams {
  static let method = "objects.upsert"
  static let effect = MethodEffect.writes
  static let shape = ParamShape(describing: Self.self)
  typealias Result = ObjectsUpsertResult
  let entity: String
  let values: JSONObject
  let on: [String]?
  let toMany: ToManyMode
  init(_ r: ParamReader) throws {
    entity = try r.require("entity")
    values = try (r.read("values") as Values?)?.object ?? [:]
    on = try r.read("on")
    toMany = try r.read("toMany") ?? .none
  }
}

/// `objects.delete`.
struct ObjectsDeleteParams: MethodParams {
  static let method = "objects.delete"
  static let effect = MethodEffect.writes
  static let shape = ParamShape(describing: Self.self)
  typealias Result = DeletedIDsResult
  let id: String
  let dryRun: Bool
  init(_ r: ParamReader) throws {
    id = try r.require("id")
    dryRun = try r.read("dryRun") ?? false
  }
}

/// `objects.get`: exactly one of `id` and `ids`.
struct ObjectsGetParams: MethodParams {
  static let method = "objects.get"
  static let effect = MethodEffect.reads
  static let shape = ParamShape(describing: Self.self)
  typealias Result = ObjectsGetResult
  let include: [String]
  let withVersion: Bool
  let toMany: ToManyMode
  let ids: [String]?
  let id: String?
  init(_ r: ParamReader) throws {
    include = try r.read("include") ?? []
    withVersion = try r.read("withVersion") ?? false
    toMany = try r.read("toMany") ?? .none
    ids = try r.read("ids")
    try r.check(ids == nil || !r.has("id"), RPCError.invalidParams("give either 'id' or 'ids', not both", ["path": "params"]))
    id = ids == nil ? try r.read("id") : nil
  }
}

/// `objects.updateWhere`.
struct ObjectsUpdateWhereParams: MethodParams {
  static let method = "objects.updateWhere"
  static let effect = MethodEffect.writes
  static let shape = ParamShape(describing: Self.self)
  typealias Result = UpdatedWhereResult
  var request: FetchRequest
  let values: JSONObject
  init(_ r: ParamReader) throws {
    try r.check(r.has("values"), RPCError.invalidParams("params.values: missing", ["path": "params.values", "expected": "object"]))
    request = try RequestParsing.filteredRequest(r)
    request.includeSubentities = try r.read("includeSubentities") ?? true
    values = try (r.read("values", required: true) as Values?)?.object ?? [:]
  }
}

/// `objects.deleteWhere`.
struct ObjectsDeleteWhereParams: MethodParams {
  static let method = "objects.deleteWhere"
  static let effect = MethodEffect.writes
  static let shape = ParamShape(describing: Self.self)
  typealias Result = DeletedWhereResult
  var request: FetchRequest
  init(_ r: ParamReader) throws {
    request = try RequestParsing.filteredRequest(r)
    request.includeSubentities = try r.read("includeSubentities") ?? true
  }
}
