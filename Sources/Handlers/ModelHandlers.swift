import JSONCore
import RPCCore
import SchemaModel
import StoreEngine

/// `model.define`, `model.get`, `model.diff`, `model.validate`; the Core Data bridge and
/// `model.diagram` in the extensions.
enum ModelHandlers {
  static func methods(_ s: Session) -> [MethodEntry] {
    [
      MethodEntry(ModelDefineParams.self) { p, _ in
        let store = try s.requireStore()
        let result = try store.define(p.schema.json)
        let schema = result.schema
        return ModelDefineResult(
          schema: SchemaDocumentJSON(schema.json), version: schema.version, hash: schema.versionHash, entities: schema.entityHashes,
          changed: result.changed, steps: result.steps)
      },
      MethodEntry(ModelGetParams.self) { _, _ in
        let store = try s.requireStore()
        // The schema and its history as one snapshot has them.
        return try store.readingOneSnapshot {
          guard let schema = store.schema else {
            return ModelGetResult(schema: nil, version: nil, hash: nil, entities: [], history: nil)
          }
          return ModelGetResult(
            schema: SchemaDocumentJSON(schema.json), version: schema.version, hash: schema.versionHash, entities: schema.entityHashes,
            history: try store.schemaHistory().map(SchemaHistoryEntry.init))
        }
      },
      MethodEntry(ModelDiffParams.self) { p, _ in
        // `from` defaults to the store's schema.
        let from: Schema
        if let json = p.from?.json {
          from = try Store.decodeSchema(json, path: ErrorPlace(.from))
        } else {
          let store = try s.requireStore()
          guard let current = try store.readingOneSnapshot({ store.schema }) else {
            throw RPCError.invalidParams("params.from: the store has no schema, so give 'from'", ["path": "params.from"])
          }
          from = current
        }
        let to = try Store.decodeSchema(p.to.json, path: ErrorPlace(.to))
        let diff = SchemaDiff(from: from, to: to)
        return ModelDiffResult(
          from: from.version, to: to.version, identical: from.versionHash == to.versionHash && diff.isEmpty,
          lightweight: diff.isLightweight, changes: diff.changes.map { SchemaChangeJSON($0.json) }, ambiguous: diff.mapping.conflicts)
      },
      MethodEntry(ModelValidateParams.self) { p, _ in
        let (schema, issues) = SchemaValidator.check(p.schema.json)
        let valid = !issues.contains { $0.severity == .error }
        return ModelValidateResult(valid: valid, issues: issues.map { SchemaIssueJSON($0.json) }, hash: valid ? schema.versionHash : nil)
      },
    ] + coreDataMethods(s) + diagramMethods(s)
  }
}
