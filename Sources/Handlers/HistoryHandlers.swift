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
          let list = try store.history(after: after, author: try p.string("author"), entities: entities, limit: limit)
          return .object([
            "transactions": .array(list.map(\.json)), "lastToken": .int(try store.latestHistoryToken()),
          ])
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
