import JSONCore
import RPCCore
import StoreEngine

/// `context.save`: `changes` is read one element at a time by the handler
/// (`RequestContext.elements`), each as a `ChangeParam`.
struct ContextSaveParams: MethodParams {
  static let method = "context.save"
  static let effect = MethodEffect.writes
  static let shape = ParamShape(describing: Self.self)
  typealias Result = ContextSaveResult
  let author: String?
  /// The params as they came: `changes` is read from them (or from the message text when
  /// the server streamed it) by `RequestContext.elements`.
  let json: JSONReader
  init(_ r: ParamReader) throws {
    json = r.json
    r.declare("changes", schema: JSONSchema.array(ChangeParam.schema), required: true, streamed: true)
    author = try r.read("author")
  }
}

/// One element of `context.save`'s `changes`: `{op: "insert", entity, ref?, values?}`,
/// `{op: "update", id, values?}` or `{op: "delete", id}`.
enum ChangeParam {
  static var schema: JSONValue { JSONSchema.oneOf(Insert.schema, Update.schema, Delete.schema) }

  /// Element `index` of `params.changes` (its path is built only for an error).
  static func read(_ v: JSONValue, index: Int) throws -> Change {
    let json = try JSONReader(v, arrayPath: "params.changes", index: index)
    let op = try json.requireString("op")
    switch op {
    case "insert":
      try Insert.shape.rejectUnknown(json)
      let c = try Insert(ParamReader(json))
      return .insert(entity: c.entity, ref: c.ref, values: c.values)
    case "update":
      try Update.shape.rejectUnknown(json)
      let c = try Update(ParamReader(json))
      return .update(id: c.id, values: c.values)
    case "delete":
      try Delete.shape.rejectUnknown(json)
      return .delete(id: try Delete(ParamReader(json)).id)
    default:
      throw RPCError.invalidParams("\(json.path).op: expected insert, update or delete, got '\(op)'", ["path": .string("\(json.path).op")])
    }
  }

  struct Insert: ParamObject {
    static let shape = ParamShape(describing: Self.self)
    let entity: String
    let ref: String?
    let values: JSONObject
    init(_ r: ParamReader) throws {
      r.declare("op", schema: JSONSchema.constant("insert"), required: true)
      entity = try r.require("entity")
      ref = try r.read("ref")
      values = try ChangeParam.values(r)
    }
  }

  struct Update: ParamObject {
    static let shape = ParamShape(describing: Self.self)
    let id: String
    let values: JSONObject
    init(_ r: ParamReader) throws {
      r.declare("op", schema: JSONSchema.constant("update"), required: true)
      id = try r.require("id")
      values = try ChangeParam.values(r)
    }
  }

  struct Delete: ParamObject {
    static let shape = ParamShape(describing: Self.self)
    let id: String
    init(_ r: ParamReader) throws {
      r.declare("op", schema: JSONSchema.constant("delete"), required: true)
      id = try r.require("id")
    }
  }

  /// A change's `values`; its error names the change (`params.changes[3].values`).
  private static func values(_ r: ParamReader) throws -> JSONObject {
    guard let v = r.value("values", schema: JSONSchema.object) else { return [:] }
    guard case .object(let o) = v else {
      throw RPCError.invalidParams("\(r.path).values: expected an object, got \(v.typeName)", ["path": .string("\(r.path).values")])
    }
    return o
  }
}

/// `transaction.begin`.
struct TransactionBeginParams: NoParams {
  static let method = "transaction.begin"
  static let effect = MethodEffect.writes
  static let shape = ParamShape(describing: Self.self)
  typealias Result = DepthResult
}

/// `transaction.commit`.
struct TransactionCommitParams: NoParams {
  static let method = "transaction.commit"
  static let effect = MethodEffect.writes
  static let shape = ParamShape(describing: Self.self)
  typealias Result = DepthResult
}

/// `transaction.rollback`.
struct TransactionRollbackParams: NoParams {
  static let method = "transaction.rollback"
  static let effect = MethodEffect.writes
  static let shape = ParamShape(describing: Self.self)
  typealias Result = DepthResult
}
