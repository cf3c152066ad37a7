import JSONCore

/// The JSON form of a schema, as `model.get` returns it: every member spelled out, so a
/// client never has to know the defaults.
extension Schema {
  public var json: JSONValue {
    .object(["version": .string(version), "entities": .array(entities.map(\.json))])
  }
}

extension Entity {
  public var json: JSONValue {
    var o: JSONObject = ["name": .string(name)]
    if let parent { o.append("parent", .string(parent)) }
    o.append("abstract", .bool(abstract))
    if let originalName { o.append("originalName", .string(originalName)) }
    if let renamingIdentifier { o.append("renamingIdentifier", .string(renamingIdentifier)) }
    o.append("attributes", .array(attributes.map(\.json)))
    o.append("relationships", .array(relationships.map(\.json)))
    o.append("indexes", .array(indexes.map { .array($0.map { .string($0) }) }))
    o.append("uniqueness", .array(uniqueness.map { .array($0.map { .string($0) }) }))
    return .object(o)
  }
}

extension Attribute {
  public var json: JSONValue {
    var o: JSONObject = ["name": .string(name), "type": .string(type.rawValue), "optional": .bool(optional)]
    switch defaultValue {
    case .literal(let v)?: o.append("default", v)
    case .generate(let g)?: o.append("default", .object(["generate": .string(g.rawValue)]))
    case nil: break
    }
    o.append("unique", .bool(unique))
    o.append("indexed", .bool(indexed))
    o.append("transient", .bool(transient))
    if let originalName { o.append("originalName", .string(originalName)) }
    if let renamingIdentifier { o.append("renamingIdentifier", .string(renamingIdentifier)) }
    return .object(o)
  }
}

extension Relationship {
  public var json: JSONValue {
    var o: JSONObject = ["name": .string(name), "destination": .string(destination)]
    if let inverse { o.append("inverse", .string(inverse)) }
    o.append("toMany", .bool(toMany))
    o.append("optional", .bool(optional))
    o.append("ordered", .bool(ordered))
    o.append("deleteRule", .string(deleteRule.rawValue))
    if let minCount { o.append("min", .int(Int64(minCount))) }
    if let maxCount { o.append("max", .int(Int64(maxCount))) }
    if let originalName { o.append("originalName", .string(originalName)) }
    if let renamingIdentifier { o.append("renamingIdentifier", .string(renamingIdentifier)) }
    return .object(o)
  }
}

extension SchemaIssue {
  public var json: JSONValue {
    var o: JSONObject = ["severity": .string(severity.rawValue), "code": .string(code), "message": .string(message), "path": .string(path)]
    if let entity { o.append("entity", .string(entity)) }
    if let property { o.append("property", .string(property)) }
    return .object(o)
  }
}
