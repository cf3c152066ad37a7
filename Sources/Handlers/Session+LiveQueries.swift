import JSONCore
import RPCCore
import StoreEngine

/// Live queries: after every request, whenever another process commits (its writes to the
/// store's files, or a PostgreSQL store's notification, wake the server:
/// `Server.watchChanges`, `Store.changeFeed`) and every 5 s as a fallback, the
/// history is checked for transactions after the last one seen (this process's and other
/// processes' commits alike); each subscription they may affect is refreshed and, when
/// its result changed, `query/changed` is sent. A store whose commits leave no history (a
/// Core Data store, a file served with `--no-history`) is checked cheaply instead, and on
/// a change every subscription is re-run and diffed (see Session+OutsideHistory.swift).
extension Session {
  func observe(_ request: FetchRequest) throws -> (String, FetchResult, Int64) {
    let store = try requireStore()
    // The baseline of the cheap check (and a Core Data file attached again if it changed).
    if subscriptions.isEmpty && store.changesOutsideHistory { _ = try store.changedOutsideHistory() }
    // One snapshot: the cursor is the token of exactly the state the first result shows
    // (the other subscriptions are first brought up to that state).
    let (cursor, (query, first)) = try store.readingOneSnapshot {
      if !subscriptions.isEmpty, store.openTransactions == 0 { try refreshSubscriptions(store) }
      return (subscriptions.isEmpty ? try store.latestHistoryToken() : historyCursor, try LiveQuery.start(request, on: store))
    }
    historyCursor = cursor
    nextSubscription += 1
    let id = "q\(nextSubscription)"
    subscriptions[id] = query
    subscriptionOrder.append(id)
    server.requestDidFinish = { [weak self] in self?.pollHistory() }
    server.idleHook = { [weak self] in self?.pollHistory() }
    if subscriptions.count == 1 { watchChanges(of: store) }
    return (id, first, historyCursor)
  }

  func unobserve(_ id: String) -> Bool {
    guard subscriptions.removeValue(forKey: id) != nil else { return false }
    subscriptionOrder.removeAll { $0 == id }
    if subscriptions.isEmpty {
      server.requestDidFinish = nil
      server.idleHook = nil
      server.watchChanges(.none)
    }
    return true
  }

  /// Drops every subscription (the store was replaced or closed).
  func dropSubscriptions() {
    subscriptions = [:]
    subscriptionOrder = []
    server.requestDidFinish = nil
    server.idleHook = nil
    server.watchChanges(.none)
  }

  /// Wakes the server when another process commits to `store`; when that cannot be set
  /// up (a PostgreSQL listener that cannot connect), the fallback check every 5 s remains.
  private func watchChanges(of store: Store) {
    do {
      switch try store.changeFeed() {
      case .none: server.watchChanges(.none)
      case .files(let paths): server.watchChanges(.files(paths))
      case .notifications(let n): server.watchChanges(.descriptor(DescriptorSource(descriptor: { n.descriptor }, read: { n.read() })))
      }
    } catch {
      server.log.warning("live queries: cannot follow other processes' commits as they happen, looking every 5 s instead: \(error)")
      server.watchChanges(.none)
    }
  }

  private func pollHistory() {
    guard !subscriptions.isEmpty, let store, store.isAtRest else { return }
    if store.changesOutsideHistory { return followOutsideHistory(store) }
    do {
      // One snapshot for the history and every refresh: each change sent is the state as
      // of its token.
      try store.readingOneSnapshot { try refreshSubscriptions(store) }
    } catch {
      server.log.warning("live queries: reading the history failed: \(error)")
    }
  }

  /// Reads the history after the cursor and sends each subscription's change; runs
  /// inside the caller's snapshot, so every notification is the state as of its token,
  /// the newest history token of that snapshot.
  private func refreshSubscriptions(_ store: Store) throws {
    // One indexed range read; the cursor moves to exactly what was read, so a commit
    // landing meanwhile is seen on the next pass, not skipped or read twice.
    let transactions = try store.history(after: historyCursor)
    guard let first = transactions.first?.token, let latest = transactions.last?.token else { return }
    // Tokens are consecutive, so a gap after the cursor is transactions deleted (by
    // history.delete or retention) before they were read: everything may have changed.
    var bulk = first != historyCursor + 1
    historyCursor = latest
    var entities: Set<String> = bulk ? Set(store.schema?.entities.map(\.name) ?? []) : []
    var changed: Set<String> = []
    for t in transactions {
      entities.formUnion(t.entities)
      changed.formUnion(t.ids)
      bulk = bulk || t.hasBulk
    }
    for id in subscriptionOrder {
      guard let query = subscriptions[id] else { continue }
      do {
        guard let change = try query.refresh(on: store, entities: entities, changed: changed, bulk: bulk) else { continue }
        notifyChanged(id, token: latest, change)
      } catch {
        // The query no longer fits the store (a migration removed its entity): it ends.
        endSubscription(id, token: latest, error)
      }
    }
  }

  /// Sends one subscription's `query/changed`.
  func notifyChanged(_ id: String, token: Int64, _ change: LiveQueryChange) {
    var params: JSONObject = ["subscription": .string(id), "token": .int(token)]
    for m in change.json.members { params.append(m.key, m.value) }
    server.notify(method: "query/changed", params: .object(params))
  }

  /// Ends a subscription that can no longer run, with a last `query/changed` carrying `error`.
  func endSubscription(_ id: String, token: Int64, _ error: Error) {
    server.notify(
      method: "query/changed", params: .object(["subscription": .string(id), "token": .int(token), "error": .string("\(error)")]))
    _ = unobserve(id)
  }
}
