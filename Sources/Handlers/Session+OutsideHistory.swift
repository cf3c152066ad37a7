import JSONCore
import RPCCore
import StoreEngine

/// Live queries on a store whose commits leave no history: a Core Data store browsed in
/// place (its app writes none) or a file served with `--no-history`. A cheap check
/// (`Store.changedOutsideHistory`: `PRAGMA data_version` and this process's own commits,
/// or the Core Data file's size, mtime and inode) says whether anything was committed;
/// then every subscription re-runs its id query in one snapshot and sends the diff, with
/// every object still in the result as updated (which of them changed is unknown). The
/// token is the history cursor, which does not move (protocol.md, query/changed).
extension Session {
  func followOutsideHistory(_ store: Store) {
    do {
      guard try store.changedOutsideHistory() else { return }
      let entities = store.allEntityNames
      var changes: [(String, Result<LiveQueryChange?, Error>)] = []
      try store.readingOneSnapshot {
        changes = []  // (the body runs again when the snapshot found the schema changed)
        for id in subscriptionOrder {
          guard let query = subscriptions[id] else { continue }
          changes.append((id, Result { try query.refresh(on: store, entities: entities, changed: [], bulk: true) }))
        }
      }
      for (id, outcome) in changes {
        switch outcome {
        case .success(nil): continue
        case .success(let change?): notifyChanged(id, token: historyCursor, change)
        case .failure(let error) where Self.passes(error): retryLater(store, error)
        case .failure(let error): endSubscription(id, token: historyCursor, error)
        }
      }
    } catch {
      retryLater(store, error)
    }
  }

  /// A read that failed because the writer was between states (SQLite could not read the
  /// WAL index or the file just then): the subscription stays, and the next check re-runs it.
  private static func passes(_ error: Error) -> Bool {
    guard let e = error as? StoreError else { return false }
    return e.kind == .busy || e.kind == .readOnly || e.kind == .storage
  }

  private func retryLater(_ store: Store, _ error: Error) {
    server.log.warning("live queries: reading the store's changes failed, trying again at the next check: \(error)")
    store.checkOutsideHistoryAgain()
  }
}
