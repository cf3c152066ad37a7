import JSONCore
import RPCCore
import SchemaModel
import StoreEngine

/// `model.define`, `model.get`, `model.validate`.
enum ModelHandlers {
  static func methods(_ s: Session) -> [(String, MethodHandler)] {
    [
      (
        "model.define",
        { p, _ in
          try p.rejectUnknown(["schema"])
          let store = try s.requireStore()
          let result = try store.define(try p.require("schema", expected: "schema object"))
          var o = describe(result.schema)
          o.append("changed", .bool(result.changed))
          o.append("steps", .array(result.steps.map { .string($0) }))
          return .object(o)
        }
      ),
      (
        "model.get",
        { p, _ in
          try p.rejectUnknown([])
          let store = try s.requireStore()
          guard let schema = store.schema else {
            return .object(["schema": .null, "version": .null, "hash": .null, "entities": .array([])])
          }
          var o = describe(schema)
          o.append(
            "history",
            .array(
              try store.schemaHistory().map {
                .object(["version": .string($0.version), "hash": .string($0.hash), "appliedAt": .string(ISODate.format($0.appliedAt))])
              }))
          return .object(o)
        }
      ),
      (
        "model.validate",
        { p, _ in
          try p.rejectUnknown(["schema"])
          let (schema, issues) = SchemaValidator.check(try p.require("schema", expected: "schema object"))
          let valid = !issues.contains { $0.severity == .error }
          var o: JSONObject = ["valid": .bool(valid), "issues": .array(issues.map(\.json))]
          if valid { o.append("hash", .string(schema.versionHash)) }
          return .object(o)
        }
      ),
    ]
  }

  /// The schema with its version and hashes, as `model.define` and `model.get` return it.
  static func describe(_ schema: Schema) -> JSONObject {
    [
      "schema": schema.json, "version": .string(schema.version), "hash": .string(schema.versionHash),
      "entities": .array(schema.entities.map { .object(["name": .string($0.name), "versionHash": .string($0.versionHash)]) }),
    ]
  }
}
