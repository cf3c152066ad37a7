import JSONCore
import StoreEngine

/// `context.save`: `{ids, inserted, updated, deleted}`, written straight to text by
/// `ContextHandlers.encoded` (a save of 100,000 inserts answers with 100,000 ids, which
/// need no tree of their own); its schema is described from the types it writes.
struct ContextSaveResult: ResultValue {
  let save: SaveResult
  static var resultSchema: JSONValue {
    JSONSchema.describedClosed(
      JSONSchema.object([
        "ids": ResultMap<String>.resultSchema, "inserted": [String].resultSchema, "updated": [String].resultSchema,
        "deleted": [String].resultSchema,
      ]), "ids maps each ref given to an inserted object to its id; inserted, updated and deleted list the ids in order")
  }
  var resultJSON: JSONValue { ContextHandlers.encoded(save) }
}

/// `transaction.begin`, `.commit`, `.rollback`: the nesting depth after the call.
struct DepthResult: ResultObject {
  let depth: Int
  static var members: [ResultMember<Self>] { [.init("depth", \.depth)] }
}
