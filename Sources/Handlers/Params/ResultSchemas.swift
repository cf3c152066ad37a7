import JSONCore

/// Result shapes shared by several methods, named in the description's
/// `components.schemas` and referred to as `JSONSchema.ref(NAME)`.
enum ResultSchemas {
  static let components: JSONObject = [
    "Object": JSONSchema.object(
      ["_id": JSONSchema.string, "_entity": JSONSchema.string, "_version": JSONSchema.integer], optional: ["_version"]),
    "Schema": JSONSchema.object(["version": JSONSchema.string, "entities": JSONSchema.array(JSONSchema.object)], optional: ["version"]),
    "SchemaChange": JSONSchema.object,
    "SchemaDescription": JSONSchema.object(
      [
        "schema": JSONSchema.oneOf(JSONSchema.ref("Schema"), JSONSchema.null),
        "version": JSONSchema.oneOf(JSONSchema.string, JSONSchema.null),
        "hash": JSONSchema.oneOf(JSONSchema.string, JSONSchema.null),
        "entities": JSONSchema.array(JSONSchema.object(["name": JSONSchema.string, "versionHash": JSONSchema.string])),
      ]),
    "SchemaHistory": JSONSchema.array(
      JSONSchema.object(["version": JSONSchema.string, "hash": JSONSchema.string, "appliedAt": JSONSchema.string])),
    "StoreInfo": JSONSchema.object(
      [
        "path": JSONSchema.oneOf(JSONSchema.string, JSONSchema.null), "memory": JSONSchema.boolean, "readOnly": JSONSchema.boolean,
        "format": JSONSchema.enumeration(["modelstore", "coredata"]), "formatVersion": JSONSchema.integer, "coreData": JSONSchema.object,
        "schemaVersion": JSONSchema.oneOf(JSONSchema.string, JSONSchema.null),
        "schemaHash": JSONSchema.oneOf(JSONSchema.string, JSONSchema.null),
        "counts": JSONSchema.map(JSONSchema.integer), "sizeBytes": JSONSchema.integer, "journalMode": JSONSchema.string,
        "openTransactions": JSONSchema.integer, "sqliteVersion": JSONSchema.string,
      ], optional: ["formatVersion", "coreData"]),
    "MigrationResult": JSONSchema.object(
      [
        "from": JSONSchema.oneOf(JSONSchema.string, JSONSchema.null), "to": JSONSchema.string, "backup": JSONSchema.string,
        "stages": JSONSchema.array(
          JSONSchema.object([
            "from": JSONSchema.string, "to": JSONSchema.string, "kind": JSONSchema.string, "status": JSONSchema.string,
            "changes": JSONSchema.array(JSONSchema.ref("SchemaChange")), "steps": JSONSchema.array(JSONSchema.object),
            "dataLoss": JSONSchema.array(JSONSchema.any), "blockers": JSONSchema.array(JSONSchema.any),
          ])),
        "dataLoss": JSONSchema.boolean,
      ], optional: ["backup"]),
    "FetchResult": JSONSchema.object(
      ["objects": JSONSchema.array(JSONSchema.ref("Object")), "sections": JSONSchema.array(JSONSchema.object)], optional: ["sections"]),
  ]

  static let depth = JSONSchema.object(["depth": JSONSchema.integer])
  static let object = JSONSchema.ref("Object")
  static let ids = JSONSchema.array(JSONSchema.string)
  static let progress = JSONSchema.progressToken
}
