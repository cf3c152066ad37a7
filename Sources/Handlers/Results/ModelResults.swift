import CodeGeneration
import CoreDataTooling
import Diagrams
import JSONCore
import SchemaModel

/// An entity's name and version hash.
struct EntityHashResult: ResultObject {
  let name: String
  let versionHash: String
  static var members: [ResultMember<Self>] { [.init("name", \.name), .init("versionHash", \.versionHash)] }
}

/// `model.define`: the schema with its version and hashes, whether it changed, the steps run.
struct ModelDefineResult: ResultObject {
  let schema: SchemaDocumentJSON
  let version: String
  let hash: String
  let entities: [EntityHashResult]
  let changed: Bool
  let steps: [String]
  static var members: [ResultMember<Self>] {
    [
      .init("schema", \.schema), .init("version", \.version), .init("hash", \.hash), .init("entities", \.entities),
      .init("changed", \.changed), .init("steps", \.steps),
    ]
  }
}

/// `model.get`: nulls and no entities before any define; the history after one.
struct ModelGetResult: ResultObject {
  let schema: SchemaDocumentJSON?
  let version: String?
  let hash: String?
  let entities: [EntityHashResult]
  let history: [SchemaHistoryEntry]?
  static var members: [ResultMember<Self>] {
    [
      .init("schema", \.schema), .init("version", \.version), .init("hash", \.hash), .init("entities", \.entities),
      .init(ifPresent: "history", \.history),
    ]
  }
}

extension Schema {
  var entityHashes: [EntityHashResult] { entities.map { EntityHashResult(name: $0.name, versionHash: $0.versionHash) } }
}

/// `model.diff`.
struct ModelDiffResult: ResultObject {
  let from: String
  let to: String
  let identical: Bool
  let lightweight: Bool
  let changes: [SchemaChangeJSON]
  let ambiguous: [String]
  static var members: [ResultMember<Self>] {
    [
      .init("from", \.from), .init("to", \.to), .init("identical", \.identical), .init("lightweight", \.lightweight),
      .init("changes", \.changes), .init("ambiguous", \.ambiguous),
    ]
  }
}

/// A schema validation issue (`SchemaIssue.json`).
struct SchemaIssueJSON: OpenJSON {
  let json: JSONValue
  init(_ json: JSONValue) { self.json = json }
  static var openSchema: JSONValue {
    JSONSchema.described(
      JSONSchema.object([
        "severity": JSONSchema.enumeration(["error", "warning"]), "code": JSONSchema.string, "message": JSONSchema.string,
        "path": JSONSchema.string,
      ]), "then the entity, attribute or relationship it is about, where there is one (open-ended)")
  }
}

/// `model.validate`: the hash only for a valid schema.
struct ModelValidateResult: ResultObject {
  let valid: Bool
  let issues: [SchemaIssueJSON]
  let hash: String?
  static var members: [ResultMember<Self>] { [.init("valid", \.valid), .init("issues", \.issues), .init(ifPresent: "hash", \.hash)] }
}

/// `model.importXcdatamodel`: the import as `ImportedModel.json` writes it (CoreDataTooling,
/// shared with `modelstore xcdatamodel`).
struct ImportedModelJSON: OpenJSON {
  let json: JSONValue
  init(_ json: JSONValue) { self.json = json }
  static var openSchema: JSONValue {
    JSONSchema.describedClosed(
      JSONSchema.object(
        [
          "path": JSONSchema.string, "kind": JSONSchema.string, "current": JSONSchema.oneOf(JSONSchema.string, JSONSchema.null),
          "ok": JSONSchema.boolean, "schema": JSONSchema.oneOf(SchemaDocumentJSON.resultSchema, JSONSchema.null),
          "versions": JSONSchema.array(OpenObjectJSON.resultSchema),
          "order": JSONSchema.object([
            "rule": JSONSchema.enumeration(["given", "names"]), "confidence": JSONSchema.enumeration(["high", "medium", "low"]),
            "reason": JSONSchema.string,
          ]),
          "warnings": JSONSchema.array(OpenObjectJSON.resultSchema), "errors": JSONSchema.array(OpenObjectJSON.resultSchema),
        ], optional: ["path"]),
      "built by CoreDataTooling (ImportedModel.json); each version, warning and error is an object as protocol.md describes (open-ended)")
  }
}

/// `model.audit`: the audit's members as `ModelAudit.json` writes them (CoreDataTooling,
/// shared with `modelstore xcdatamodel --audit`), then `current` and, with `compareWith`,
/// `coexistence`.
struct ModelAuditResult: ResultValue {
  let audit: JSONObject
  let current: String?
  let coexistence: JSONValue?
  static var resultSchema: JSONValue {
    JSONSchema.describedClosed(
      JSONSchema.object(
        [
          "cloudKit": JSONSchema.boolean, "summary": OpenObjectJSON.resultSchema,
          "supported": JSONSchema.array(OpenObjectJSON.resultSchema),
          "needsAttention": JSONSchema.array(OpenObjectJSON.resultSchema), "unsupported": JSONSchema.array(OpenObjectJSON.resultSchema),
          "current": String?.resultSchema,
          "coexistence": JSONSchema.oneOf(
            JSONSchema.object(["compatible": JSONSchema.boolean, "differences": JSONSchema.array(OpenObjectJSON.resultSchema)]),
            JSONSchema.null),
        ], optional: ["coexistence"]),
      "the audit (ModelAudit.json: counts, the properties that carry over, each finding with its code, message and action, open-ended), the current version, and with compareWith the coexistence check"
    )
  }
  var resultJSON: JSONValue {
    var o = audit
    o.append("current", current.resultJSON)
    if let coexistence { o.append("coexistence", coexistence) }
    return .object(o)
  }
}

extension CodeGenerator.Target: ResultWord {}

/// `model.generate`.
struct ModelGenerateResult: ResultObject {
  struct File: ResultObject {
    let name: String
    let text: String
    static var members: [ResultMember<Self>] { [.init("name", \.name), .init("text", \.text)] }
  }
  struct Skipped: ResultObject {
    let name: String
    let reason: String
    static var members: [ResultMember<Self>] { [.init("name", \.name), .init("reason", \.reason)] }
  }
  let target: CodeGenerator.Target
  let files: [File]
  let skippedVersions: [Skipped]?
  init(target: CodeGenerator.Target, files: [CodeGenerator.File], skipped: [ImportedModel.SkippedVersion]) {
    self.target = target
    self.files = files.map { File(name: $0.name, text: $0.text) }
    skippedVersions = skipped.isEmpty ? nil : skipped.map { Skipped(name: $0.name, reason: $0.reason) }
  }
  static var members: [ResultMember<Self>] {
    [.init("target", \.target), .init("files", \.files), .init(ifPresent: "skippedVersions", \.skippedVersions)]
  }
}

extension ModelDiagrams.Kind: ResultWord {}

/// `model.diagram`: the text (Mermaid, DOT or SVG) and what it draws.
struct ModelDiagramResult: ResultObject {
  /// The formats the protocol answers in (`png` only from the command line).
  enum Format: String, ResultWord { case mermaid, dot, svg }
  let format: Format
  let kind: ModelDiagrams.Kind
  let version: String?
  let from: String?
  let to: String?
  let text: String
  let dataLoss: [MigrationPlaceJSON]?
  static var members: [ResultMember<Self>] {
    [
      .init("format", \.format), .init("kind", \.kind), .init(ifPresent: "version", \.version), .init(ifPresent: "from", \.from),
      .init(ifPresent: "to", \.to), .init("text", \.text), .init(ifPresent: "dataLoss", \.dataLoss),
    ]
  }
}
