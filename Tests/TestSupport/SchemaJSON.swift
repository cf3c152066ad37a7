import JSONCore

// Builders for schema JSON, shared by the test targets, so a test reads like the schema
// it describes: `schema(entity("Task", [attr("title", "string")]))`.

public func attr(
  _ name: String, _ type: String, optional: Bool? = nil, default def: JSONValue? = nil, unique: Bool? = nil,
  indexed: Bool? = nil, transient: Bool? = nil, originalName: String? = nil
) -> JSONValue {
  var o: JSONObject = ["name": .string(name), "type": .string(type)]
  if let optional { o.append("optional", .bool(optional)) }
  if let def { o.append("default", def) }
  if let unique { o.append("unique", .bool(unique)) }
  if let indexed { o.append("indexed", .bool(indexed)) }
  if let transient { o.append("transient", .bool(transient)) }
  if let originalName { o.append("originalName", .string(originalName)) }
  return .object(o)
}

public func rel(
  _ name: String, _ destination: String, inverse: String? = nil, toMany: Bool? = nil, optional: Bool? = nil,
  ordered: Bool? = nil, deleteRule: String? = nil, min: Int? = nil, max: Int? = nil, originalName: String? = nil
) -> JSONValue {
  var o: JSONObject = ["name": .string(name), "destination": .string(destination)]
  if let inverse { o.append("inverse", .string(inverse)) }
  if let toMany { o.append("toMany", .bool(toMany)) }
  if let optional { o.append("optional", .bool(optional)) }
  if let ordered { o.append("ordered", .bool(ordered)) }
  if let deleteRule { o.append("deleteRule", .string(deleteRule)) }
  if let min { o.append("min", .int(Int64(min))) }
  if let max { o.append("max", .int(Int64(max))) }
  if let originalName { o.append("originalName", .string(originalName)) }
  return .object(o)
}

public func entity(
  _ name: String, parent: String? = nil, abstract: Bool? = nil, _ attributes: [JSONValue] = [],
  relationships: [JSONValue] = [], indexes: [[String]]? = nil, uniqueness: [[String]]? = nil, originalName: String? = nil
) -> JSONValue {
  var o: JSONObject = ["name": .string(name)]
  if let originalName { o.append("originalName", .string(originalName)) }
  if let parent { o.append("parent", .string(parent)) }
  if let abstract { o.append("abstract", .bool(abstract)) }
  o.append("attributes", .array(attributes))
  if !relationships.isEmpty { o.append("relationships", .array(relationships)) }
  if let indexes { o.append("indexes", .array(indexes.map { .array($0.map { .string($0) }) })) }
  if let uniqueness { o.append("uniqueness", .array(uniqueness.map { .array($0.map { .string($0) }) })) }
  return .object(o)
}

public func schema(_ entities: JSONValue..., version: String = "1") -> JSONValue {
  .object(["version": .string(version), "entities": .array(entities)])
}
