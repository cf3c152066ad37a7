import DatabaseKit
import JSONCore

/// What `changedOutsideHistory` last saw.
struct OutsideHistoryState {
  /// Commits by this connection that wrote no history (`--no-history`).
  var ownCommits = 0
  var seenOwnCommits = 0
  /// `StoreDatabase.dataVersion` last read: it changes when another connection commits.
  var dataVersion: Int64?
  /// The Core Data file being browsed, followed through its files' signatures.
  var coreData: CoreDataFollower?
  /// The next check reports a change whatever it sees (`checkOutsideHistoryAgain`).
  var again = false
}

extension Store {
  /// The files whose writes (by any process) may change what this store reads: the file
  /// and its `-wal` (the Core Data file for a Core Data store; none in memory).
  public var watchedFiles: [String] {
    guard let file = outsideHistory.coreData?.path ?? path else { return [] }
    return [file, file + "-wal"]
  }

  /// Whether commits can reach this store without history a live query could follow: a
  /// Core Data store (its app writes none) or a file opened with history off.
  public var changesOutsideHistory: Bool { outsideHistory.coreData != nil || !historySettings.enabled }

  /// A cheap check, for stores whose changes leave no history: whether anything was
  /// committed since the last call (by this connection or another; for a Core Data store,
  /// by the program writing it, which may need the file attached again). Call it outside
  /// any transaction. The first call only takes the baseline.
  public func changedOutsideHistory() throws -> Bool {
    let again = outsideHistory.again
    outsideHistory.again = false
    return try translatingErrors {
      if let follower = outsideHistory.coreData {
        let changed = try follower.check(connection)
        coreData?["access"] = .string(follower.file.access)
        return changed || again
      }
      var changed = outsideHistory.ownCommits != outsideHistory.seenOwnCommits
      outsideHistory.seenOwnCommits = outsideHistory.ownCommits
      if let version = try database.dataVersion() {
        changed = changed || (outsideHistory.dataVersion.map { $0 != version } ?? false)
        outsideHistory.dataVersion = version
      }
      return changed || again
    }
  }

  /// Makes the next `changedOutsideHistory` report a change: a re-run after one failed for
  /// a passing reason (the writer was between states: `busy`, `readOnly`, `storage`).
  public func checkOutsideHistoryAgain() { outsideHistory.again = true }

  /// Every entity of the schema (what a change without history may have touched).
  public var allEntityNames: Set<String> { Set(graph?.schema.entities.map(\.name) ?? []) }
}
