import JSONCore
import SchemaModel

/// The migration assessment of a Core Data model for SwiftData: what carries over as is,
/// what needs attention (with what to do), and what SwiftData cannot do at all. Each
/// finding has a stable `code` and names its entity and property.
public struct ModelAudit: Sendable {
  public enum Category: String, Sendable { case needsAttention, unsupported }

  public struct Finding: Equatable, Sendable {
    public var category: Category
    public var code: String
    public var message: String
    /// What to do about it.
    public var action: String
    public var entity: String?
    public var property: String?
    /// Where the import found it (findings that come from the model file).
    public var file: String?
    public var line: Int?

    public var json: JSONValue {
      var o: JSONObject = ["code": .string(code), "message": .string(message), "action": .string(action)]
      if let entity { o.append("entity", .string(entity)) }
      if let property { o.append("property", .string(property)) }
      if let file { o.append("file", .string(file)) }
      if let line { o.append("line", .int(Int64(line))) }
      return .object(o)
    }
  }

  public var findings: [Finding] = []
  /// Every entity with the properties that carry over to SwiftData without a finding.
  public var supported: [(entity: String, properties: [String])] = []
  public var cloudKit: Bool

  /// Audits `schema` (the model as read, even when ModelStore found errors in it) with the
  /// findings of its import. `cloudKit` adds the checks CloudKit sync imposes.
  public init(schema: Schema, importIssues: [ModelImportIssue] = [], details: ModelDetails = ModelDetails(), cloudKit: Bool) {
    self.cloudKit = cloudKit
    var run = ModelAuditRun(schema: schema, details: details, cloudKit: cloudKit)
    for issue in importIssues { run.importFinding(issue) }
    for entity in schema.entities { run.check(entity) }
    findings = run.findings
    for entity in schema.entities {
      let flagged = Set(findings.filter { $0.entity == entity.name }.compactMap(\.property))
      let names = entity.attributes.map(\.name) + entity.relationships.map(\.name)
      supported.append((entity.name, names.filter { !flagged.contains($0) }))
    }
  }

  public var json: JSONValue {
    let attention = findings.filter { $0.category == .needsAttention }
    let unsupported = findings.filter { $0.category == .unsupported }
    return .object([
      "cloudKit": .bool(cloudKit),
      "summary": .object([
        "entities": .int(Int64(supported.count)),
        "supportedProperties": .int(Int64(supported.reduce(0) { $0 + $1.properties.count })),
        "needsAttention": .int(Int64(attention.count)), "unsupported": .int(Int64(unsupported.count)),
      ]),
      "supported": .array(
        supported.map { .object(["entity": .string($0.entity), "properties": .array($0.properties.map { .string($0) })]) }),
      "needsAttention": .array(attention.map(\.json)),
      "unsupported": .array(unsupported.map(\.json)),
    ])
  }
}
