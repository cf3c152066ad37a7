import JSONCore

/// `objects.upsert`.
struct ObjectsUpsertResult: ResultObject {
  let object: WireObjectJSON
  let inserted: Bool
  static var members: [ResultMember<Self>] { [.init("object", \.object), .init("inserted", \.inserted)] }
}

/// `objects.delete`: the ids deleted (the object and its cascade); with `dryRun`, also
/// the objects that would stay with relationships changed.
struct DeletedIDsResult: ResultObject {
  let deleted: [String]
  var updated: [String]? = nil
  static var members: [ResultMember<Self>] { [.init("deleted", \.deleted), .init(ifPresent: "updated", \.updated)] }
}

/// `objects.get`: one object for `id`, `{objects}` for `ids`.
enum ObjectsGetResult: ResultValue {
  case one(JSONObject)
  case many([JSONObject])

  struct Many: ResultObject {
    let objects: [WireObjectJSON]
    static var members: [ResultMember<Self>] { [.init("objects", \.objects)] }
  }

  static var resultSchema: JSONValue { JSONSchema.oneOf(WireObjectJSON.resultSchema, Many.resultSchema) }
  var resultJSON: JSONValue {
    switch self {
    case .one(let o): .object(o)
    case .many(let list): Many(objects: list.map(WireObjectJSON.init)).resultJSON
    }
  }
}

/// `objects.updateWhere`.
struct UpdatedWhereResult: ResultObject {
  let updated: [String]
  var count: Int { updated.count }
  static var members: [ResultMember<Self>] { [.init("updated", \.updated), .init("count", \.count)] }
}

/// `objects.deleteWhere`.
struct DeletedWhereResult: ResultObject {
  let deleted: [String]
  var count: Int { deleted.count }
  static var members: [ResultMember<Self>] { [.init("deleted", \.deleted), .init("count", \.count)] }
}
