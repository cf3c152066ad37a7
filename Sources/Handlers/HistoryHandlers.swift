import JSONCore
import RPCCore
import StoreEngine

/// `history.fetch`, `history.delete`: the persistent history every commit writes.
enum HistoryHandlers {
  static func methods(_ s: Session) -> [(String, MethodHandler)] {
    [
      (
        "history.fetch",
        { p, _ in
          try p.rejectUnknown(["after", "author", "entities", "limit"])
          let store = try s.requireStore()
          let after = try p.int("after", min: 0) ?? 0
          let limit = try p.int("limit", min: 1).map(Int.init)
          let entities = try p.stringArray("entities").map(Set.init)
          let author = try p.string("author")
          // One snapshot: a commit landing between the two reads would otherwise give a
          // lastToken past transactions the list does not hold.
          let (list, last) = try store.readingOneSnapshot {
            (try store.history(after: after, author: author, entities: entities, limit: limit), try store.latestHistoryToken())
          }
          return .object(["transactions": .array(try list.map { try $0.json() }), "lastToken": .int(last)])
        }
      ),
      (
        "history.delete",
        { p, _ in
          try p.rejectUnknown(["before"])
          let before = try p.int("before", min: 0) ?? { throw RPCError.invalidParams("params.before: required", ["path": "params.before"]) }()
          return .object(["deleted": .int(Int64(try s.requireStore().deleteHistory(before: before)))])
        }
      ),
    ]
  }
}
