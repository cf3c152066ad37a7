import JSONCore
import RPCCore
import StoreEngine

/// `history.fetch`, `history.delete`: the persistent history every commit writes.
enum HistoryHandlers {
  static func methods(_ s: Session) -> [MethodEntry] {
    [
      MethodEntry(HistoryFetchParams.self) { p, _ in
        let store = try s.requireStore()
        // One snapshot: a commit landing between the two reads would otherwise give a
        // lastToken past transactions the list does not hold.
        let (list, last) = try store.readingOneSnapshot {
          (try store.history(after: p.after, author: p.author, entities: p.entities, limit: p.limit), try store.latestHistoryToken())
        }
        return HistoryFetchResult(transactions: try list.map { HistoryTransactionJSON(try $0.json()) }, lastToken: last)
      },
      MethodEntry(HistoryDeleteParams.self) { p, _ in
        guard let before = p.before else { throw RPCError.invalidParams("params.before: required", ["path": "params.before"]) }
        return DeletedCountResult(deleted: try s.requireStore().deleteHistory(before: before))
      },
    ]
  }
}
