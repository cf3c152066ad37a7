import JSONCore

/// Result shapes shared by several methods, named in the description's
/// `components.schemas` (each type's `component`) and referred to as `JSONSchema.ref(NAME)`.
enum ResultSchemas {
  static var components: JSONObject {
    var o = JSONObject()
    func add(_ name: String?, _ schema: JSONValue) { o.append(name!, schema) }
    add(WireObjectJSON.component, WireObjectJSON.openSchema)
    add(SchemaDocumentJSON.component, SchemaDocumentJSON.openSchema)
    add(SchemaChangeJSON.component, SchemaChangeJSON.openSchema)
    add(StoreInfoJSON.component, StoreInfoJSON.openSchema)
    add(MigrationRunResult.component, MigrationRunResult.objectSchema)
    add(QueryFetchResult.component, QueryFetchResult.objectSchema)
    return o
  }
}
