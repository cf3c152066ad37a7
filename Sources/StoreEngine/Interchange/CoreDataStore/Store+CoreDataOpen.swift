import DatabaseKit
import JSONCore
import SchemaModel

extension Store {
  /// Opens a Core Data SQLite store in place, read-only: an in-memory main database with
  /// the file attached read-only and TEMP views named after ModelStore's storage layout
  /// (`CoreDataViews`), so fetch, count, aggregate and get run unchanged. Every write is
  /// refused with `readOnly`; nothing is written beside the file (`CoreDataFile`).
  /// `model`, `modelVersion` and `versionOrder` as for `importCoreData`.
  public static func openCoreData(
    path: String, model: String? = nil, modelVersion: String? = nil, versionOrder: [String]? = nil
  ) throws -> Store {
    let request = try CoreDataModelRequest(model: model, version: modelVersion, versionOrder: versionOrder)
    let store = try Store(path: nil)
    do {
      let signature = CoreDataFollower.signature(path)
      let source = try CoreDataSource(path: path, model: request, connection: store.connection, schemaName: "coredata")
      let follower = CoreDataFollower(path: path, schemaName: source.schemaName, file: source.file, signature: signature)
      store.outsideHistory.coreData = follower
      store.closeActions.append { follower.file.cleanUp() }
      let graph = ModelGraph(source.schema)
      // The in-memory store's entity codes are Core Data's Z_ENT numbers, which the views show in `_ent`.
      try EntityCodes.record(source.mapping.entities.map { ($0.entity.number, $0.entity.name) }, connection: store.connection)
      try EntityCodes.assign(source.schema, connection: store.connection)
      let codes = try EntityCodes(connection: store.connection)
      for view in CoreDataViews.views(source.mapping, graph: graph, prefix: "", codes: codes) { try store.connection.execute(view.sql) }
      try store.setMeta("schema", JSONWriter.encodeString(source.schema.json))
      try store.install(source.schema)
      store.coreData = source.metadataJSON
      store.isReadOnly = true
      return store
    } catch let e as any DatabaseError {
      store.close()
      throw StoreError(.storage, "cannot open Core Data store '\(path)': \(e.message)", ["path": .string(path)])
    } catch {
      store.close()
      throw error
    }
  }
}
