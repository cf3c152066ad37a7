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

/// How live queries learn that another process committed to the store
/// (`Store.changeFeed`): nothing (in memory), the store's files, or the engine's
/// notifications.
public enum ChangeFeed {
  case none
  case files([String])
  case notifications(ChangeNotifications)
}

/// A descriptor that becomes readable when another connection committed, and the read that
/// says so (PostgreSQL: a connection listening for the store's notifications). Used by one
/// thread at a time; what it holds is released when the last reference goes.
public final class ChangeNotifications: Sendable {
  private let descriptorOf: @Sendable () -> Int32
  private let readNow: @Sendable () -> Bool

  init(descriptor: @escaping @Sendable () -> Int32, read: @escaping @Sendable () -> Bool) {
    descriptorOf = descriptor
    readNow = read
  }

  /// The descriptor to wait on; -1 while there is none (then call `read` now and then).
  public var descriptor: Int32 { descriptorOf() }
  /// Reads what arrived: true when another connection may have committed.
  public func read() -> Bool { readNow() }
}

extension Store {
  /// The files whose writes (by any process) may change what this store reads: the file
  /// and its `-wal` (the Core Data file for a Core Data store; none in memory).
  public var watchedFiles: [String] {
    guard let file = outsideHistory.coreData?.path ?? path else { return [] }
    return [file, file + "-wal"]
  }

  /// What tells live queries that another process committed: the engine's notifications
  /// (a PostgreSQL store: a connection of its own listening), else the watched files,
  /// else nothing (memory).
  public func changeFeed() throws -> ChangeFeed {
    if let notifications = try translatingErrors({ try database.changeNotifications() }) { return .notifications(notifications) }
    let files = watchedFiles
    return files.isEmpty ? .none : .files(files)
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
