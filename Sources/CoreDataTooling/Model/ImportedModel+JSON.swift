import JSONCore
import SchemaModel

/// The JSON form of an import, as `model.importXcdatamodel` and `modelstore xcdatamodel`
/// return it (protocol.md, "model.importXcdatamodel").
extension ImportedModel {
  public var json: JSONValue {
    var o: JSONObject = [:]
    if !path.isEmpty { o.append("path", .string(path)) }
    o.append("kind", .string(kind.rawValue))
    o.append("current", current.map { .string($0.name) } ?? .null)
    o.append("ok", .bool(ok))
    o.append("schema", current?.schema?.json ?? .null)
    o.append("versions", .array(versions.map(\.json)))
    o.append("order", order.json)
    o.append("warnings", .array(issues.filter { $0.severity == .warning }.map(\.json)))
    o.append("errors", .array(issues.filter { $0.severity == .error }.map(\.json)))
    return .object(o)
  }
}

extension ImportedModelVersion {
  public var json: JSONValue {
    var o: JSONObject = ["name": .string(name), "file": .string(file), "current": .bool(isCurrent)]
    if let id = details.versionIdentifier { o.append("versionIdentifier", .string(id)) }
    o.append("usedWithCloudKit", .bool(details.usedWithCloudKit))
    if let unsupportedReason { o.append("unsupported", .string(unsupportedReason)) }
    o.append("schema", schema?.json ?? .null)
    o.append("warnings", .array(warnings.map(\.json)))
    o.append("errors", .array(errors.map(\.json)))
    return .object(o)
  }
}
