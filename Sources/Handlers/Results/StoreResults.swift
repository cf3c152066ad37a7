import JSONCore

/// `store.open` and `store.info`: the store's facts as `Store.info()` builds them.
struct StoreInfoJSON: OpenJSON {
  let json: JSONValue
  init(_ json: JSONValue) { self.json = json }
  init(_ object: JSONObject) { json = .object(object) }
  static let component: String? = "StoreInfo"
  static var openSchema: JSONValue {
    JSONSchema.describedClosed(
      JSONSchema.object(
        [
          "path": JSONSchema.oneOf(JSONSchema.string, JSONSchema.null), "memory": JSONSchema.boolean, "readOnly": JSONSchema.boolean,
          "format": JSONSchema.enumeration(["modelstore", "coredata"]), "formatVersion": JSONSchema.integer,
          "coreData": OpenObjectJSON.resultSchema,
          "schemaVersion": JSONSchema.oneOf(JSONSchema.string, JSONSchema.null),
          "schemaHash": JSONSchema.oneOf(JSONSchema.string, JSONSchema.null),
          "counts": JSONSchema.map(JSONSchema.integer), "sizeBytes": JSONSchema.integer, "journalMode": JSONSchema.string,
          "postgresql": JSONSchema.object([
            "database": JSONSchema.string, "schema": JSONSchema.string, "serverVersion": JSONSchema.string,
          ]),
          "openTransactions": JSONSchema.integer, "sqliteVersion": JSONSchema.string,
        ], optional: ["formatVersion", "coreData", "journalMode", "postgresql"]),
      "the store's facts, built by the engine (Store.info); coreData only for a Core Data store (its facts, open-ended); journalMode for an SQLite store, postgresql for a PostgreSQL one"
    )
  }
}

/// `store.check`: the integrity check as `Store.check()` builds it.
struct StoreCheckJSON: OpenJSON {
  let json: JSONValue
  init(_ json: JSONValue) { self.json = json }
  init(_ object: JSONObject) { json = .object(object) }
  static var openSchema: JSONValue {
    JSONSchema.describedClosed(
      JSONSchema.object([
        "ok": JSONSchema.boolean, "integrity": JSONSchema.array(JSONSchema.string),
        "problems": JSONSchema.array(OpenObjectJSON.resultSchema),
      ]), "built by the engine (Store.check); each problem has a message and names its entity, object or relationship (open-ended)")
  }
}

/// `store.backup`.
struct StoreBackupResult: ResultObject {
  let path: String
  let bytes: Int64
  static var members: [ResultMember<Self>] { [.init("path", \.path), .init("bytes", \.bytes)] }
}
