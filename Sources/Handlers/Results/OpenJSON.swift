import JSONCore

/// Open-ended JSON built elsewhere (the engine's wire objects, a schema document, a change
/// record): the type says what the description can say of it, in a schema whose
/// `description` says that the rest is open, and writes the JSON as it was built.
protocol OpenJSON: ResultValue {
  var json: JSONValue { get }
  init(_ json: JSONValue)
  /// What the description says of it.
  static var openSchema: JSONValue { get }
  /// The name of its shared definition in the description, or nil.
  static var component: String? { get }
}

extension OpenJSON {
  static var component: String? { nil }
  static var resultSchema: JSONValue { component.map(JSONSchema.ref) ?? openSchema }
  var resultJSON: JSONValue { json }
}

extension JSONSchema {
  /// `described`, of an object whose members it lists all: no other may appear.
  static func describedClosed(_ schema: JSONValue, _ text: String) -> JSONValue {
    guard case .object(var o) = described(schema, text) else { return schema }
    o.append("additionalProperties", false)
    return .object(o)
  }

  /// `schema` with a `description` (what the open part of it holds).
  static func described(_ schema: JSONValue, _ text: String) -> JSONValue {
    guard case .object(var o) = schema else { return schema }
    o.append("description", .string(text))
    return .object(o)
  }
}

/// An object as the engine writes it (`WireObject`): `_id`, `_entity`, `_version` when
/// asked for, then its values by the schema's names. Held as a tree or as text already
/// written (`.encoded`, the insert's fast path), never rebuilt.
struct WireObjectJSON: OpenJSON {
  let json: JSONValue
  init(_ json: JSONValue) { self.json = json }
  init(_ object: JSONObject) { json = .object(object) }
  static let component: String? = "Object"
  static var openSchema: JSONValue {
    JSONSchema.described(
      JSONSchema.object(
        ["_id": JSONSchema.string, "_entity": JSONSchema.string, "_version": JSONSchema.integer], optional: ["_version"]),
      "an object: _id, _entity, _version when asked for, then one member per attribute and relationship of its entity (open-ended: the schema names them)"
    )
  }
}

/// A schema document, as `model.define` takes it (protocol.md, "Schema").
struct SchemaDocumentJSON: OpenJSON {
  let json: JSONValue
  init(_ json: JSONValue) { self.json = json }
  static let component: String? = "Schema"
  static var openSchema: JSONValue {
    JSONSchema.described(
      JSONSchema.object(["version": JSONSchema.string, "entities": JSONSchema.array(JSONSchema.object)], optional: ["version"]),
      "a schema document (protocol.md, Schema): its entities with their attributes, relationships, indexes and constraints")
  }
}

/// One change between two schema versions (`SchemaChange.json`).
struct SchemaChangeJSON: OpenJSON {
  let json: JSONValue
  init(_ json: JSONValue) { self.json = json }
  static let component: String? = "SchemaChange"
  static var openSchema: JSONValue {
    JSONSchema.described(
      JSONSchema.object, "one change between two schema versions: its kind, what it names, and what it needs (open-ended)")
  }
}

/// An open-ended JSON object the description does not detail further.
struct OpenObjectJSON: OpenJSON {
  let json: JSONValue
  init(_ json: JSONValue) { self.json = json }
  init(_ object: JSONObject) { json = .object(object) }
  static var openSchema: JSONValue { JSONSchema.described(JSONSchema.object, "an object (open-ended)") }
}

/// Any JSON value (a migration's data-loss entry, a warning, as the engine reports it).
struct AnyJSON: OpenJSON {
  let json: JSONValue
  init(_ json: JSONValue) { self.json = json }
  static var openSchema: JSONValue { JSONSchema.described(JSONSchema.any, "any JSON value (open-ended)") }
}
