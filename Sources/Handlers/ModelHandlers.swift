import JSONCore
import RPCCore
import SchemaModel
import StoreEngine

/// `model.define`, `model.get`, `model.validate`.
enum ModelHandlers {
  static func methods(_ s: Session) -> [MethodEntry] {
    [
      MethodEntry(ModelDefineParams.self) { p, _ in
        let store = try s.requireStore()
        let result = try store.define(p.schema.json)
        var o = describe(result.schema)
        o.append("changed", .bool(result.changed))
        o.append("steps", .array(result.steps.map { .string($0) }))
        return .object(o)
      },
      MethodEntry(ModelGetParams.self) { _, _ in
        let store = try s.requireStore()
        guard let schema = store.schema else {
          return .object(["schema": .null, "version": .null, "hash": .null, "entities": .array([])])
        }
        var o = describe(schema)
        o.append(
          "history",
          .array(
            try store.schemaHistory().map {
              .object(["version": .string($0.version), "hash": .string($0.hash), "appliedAt": ISODate.wireValue($0.appliedAt)])
            }))
        return .object(o)
      },
      MethodEntry(ModelDiffParams.self) { p, _ in
        // `from` defaults to the store's schema.
        let from: Schema
        if let json = p.from?.json {
          from = try Store.decodeSchema(json, path: ErrorPlace(.from))
        } else {
          guard let current = try s.requireStore().schema else {
            throw RPCError.invalidParams("params.from: the store has no schema, so give 'from'", ["path": "params.from"])
          }
          from = current
        }
        let to = try Store.decodeSchema(p.to.json, path: ErrorPlace(.to))
        let diff = SchemaDiff(from: from, to: to)
        return .object([
          "from": .string(from.version), "to": .string(to.version), "identical": .bool(from.versionHash == to.versionHash && diff.isEmpty),
          "lightweight": .bool(diff.isLightweight), "changes": .array(diff.changes.map(\.json)),
          "ambiguous": .array(diff.mapping.conflicts.map { .string($0) }),
        ])
      },
      MethodEntry(ModelValidateParams.self) { p, _ in
        let (schema, issues) = SchemaValidator.check(p.schema.json)
        let valid = !issues.contains { $0.severity == .error }
        var o: JSONObject = ["valid": .bool(valid), "issues": .array(issues.map(\.json))]
        if valid { o.append("hash", .string(schema.versionHash)) }
        return .object(o)
      },
    ] + coreDataMethods(s)
  }

  /// The schema with its version and hashes, as `model.define` and `model.get` return it.
  static func describe(_ schema: Schema) -> JSONObject {
    [
      "schema": schema.json, "version": .string(schema.version), "hash": .string(schema.versionHash),
      "entities": .array(schema.entities.map { .object(["name": .string($0.name), "versionHash": .string($0.versionHash)]) }),
    ]
  }
}
