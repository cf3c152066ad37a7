import DatabaseKit
import FileAccess
import JSONCore

#if canImport(Glibc)
  import Glibc
#endif

/// `modelstore copy`: a whole store copied into a new one, between engines (an SQLite file
/// and a PostgreSQL schema, either way) or within one. The copy keeps what makes the store
/// itself: object ids (every table's keys), entity codes, the schema and every version it
/// held, the largest keys ever given (`_ms_keys`), and with `history` the history
/// transactions (without it, the copy's history starts empty and its tokens go on after the
/// source's). It reads one snapshot of the source, table by table in pages of rows
/// (`TableCopier`), so a store of any size is never held in memory, and it is all or
/// nothing: into a PostgreSQL schema it writes in one transaction, the making of the store
/// included; into a file it writes `PATH.partial-PID` and gives it its name once the copy
/// is whole and closed. A failure, or a cancel reported by `progress`, leaves no target.
public enum StoreCopy {
  public struct Options: Sendable {
    /// Copy the history transactions too.
    public var history: Bool
    /// A target that holds a ModelStore store is replaced (never anything else).
    public var replace: Bool
    public init(history: Bool = false, replace: Bool = false) {
      self.history = history
      self.replace = replace
    }
  }

  /// What a copy's progress counts.
  public enum Phase: String, Sendable {
    case objects, links, history
  }

  /// `done` of `total` of `phase`; may throw to stop the copy (which then leaves nothing).
  public typealias Progress = (_ phase: Phase, _ done: Int, _ total: Int) throws -> Void

  /// What was copied.
  public struct Summary: Sendable {
    /// Objects per concrete entity, in schema order.
    public var objects: [(entity: String, count: Int)] = []
    /// Rows of the join tables (many-to-many and other to-many links without a to-one inverse).
    public var links = 0
    public var historyTransactions = 0
    public var schemaVersions = 0
    public var totalObjects: Int { objects.reduce(0) { $0 + $1.count } }
  }

  /// Copies the store at `source` (a file path or a PostgreSQL URL, opened read-only and
  /// never written) into a new store at `target`. Errors about opening either one name it
  /// (`from`, `to`).
  public static func run(from source: String, to target: String, options: Options = Options(), progress: Progress = { _, _, _ in })
    throws -> Summary
  {
    let from = try at(.from) { try Store(path: source, options: Store.OpenOptions(readOnly: true, create: false)) }
    defer { from.close() }
    let destination = try at(.to) { try Destination(target, options: options, source: source) }
    let store = try at(.to) { try destination.open(options) }
    do {
      let summary = try fill(store, from: from, history: options.history, progress: progress)
      try destination.finish()
      return summary
    } catch {
      destination.abandon()
      throw error
    }
  }

  /// Copies `source` into `target`, whose write transaction is open, commits it and closes
  /// `target` (also when the copy fails, its transaction then rolled back).
  private static func fill(_ target: Store, from source: Store, history: Bool, progress: Progress) throws -> Summary {
    defer { target.close() }
    let summary = try withoutActuallyEscaping(progress) {
      try TableCopier(source: source, target: target, history: history, progress: $0).run()
    }
    try target.translatingErrors { try target.connection.commit() }
    return summary
  }

  /// A backup of `source`, an open store whose database cannot copy itself (a PostgreSQL
  /// store: `store.backup`): the whole store, history included, read in one snapshot and
  /// written into the new, empty SQLite file at `path` in one transaction. A request's
  /// cancel stops it between pages of rows; the caller removes the file when it fails.
  static func backup(_ source: Store, intoFile path: String) throws -> Summary {
    let target = try Store(path: path, options: Store.OpenOptions(create: true))
    do {
      try target.translatingErrors { try target.connection.begin() }
    } catch {
      target.close()
      throw error
    }
    return try fill(target, from: source, history: true) { _, _, _ in try source.checkCancelled() }
  }

  /// A backup of the PostgreSQL store `source` into a new store at `location` (another
  /// schema of its database: a migration's backup), made and filled in one transaction,
  /// history included. A schema that holds a store already is refused (`exists`).
  static func backup(_ source: Store, intoServer location: String) throws -> Summary {
    var options = Store.OpenOptions(create: true)
    options.existing = .refuse
    options.holdsTransaction = true
    let target = try Store(path: location, options: options)
    return try fill(target, from: source, history: true) { _, _, _ in try source.checkCancelled() }
  }

  /// Runs `body`, its engine errors made errors about `place` (the flag or param that named the store).
  static func at<T>(_ place: ErrorPlace.Argument, _ body: () throws -> T) throws -> T {
    do {
      return try body()
    } catch let e as StoreError where e.place == nil {
      throw StoreError(e.kind, at: ErrorPlace(place), e.text, e.details, placeInData: false)
    }
  }
}

/// Where a copy writes: a PostgreSQL schema, made and filled in one transaction; or an
/// SQLite file, written as `PATH.partial-PID` and then given its name (linked, so a file
/// that appeared meanwhile is not replaced; renamed over the old store when replacing).
private enum Destination {
  case server(url: String)
  case file(path: String, partial: String)

  init(_ target: String, options: StoreCopy.Options, source: String) throws {
    if Store.isServerLocation(target) {
      if Store.isServerLocation(source) && Store.displayName(of: source) == Store.displayName(of: target) {
        throw StoreError(.invalidArgument, "the target is the source: a store is copied into another", ["reason": "sameStore"])
      }
      self = .server(url: target)
      return
    }
    try Self.checkFile(target, replace: options.replace, source: source)
    let partial = "\(target).partial-\(getpid())"
    guard (try? UserPath.status(partial)) == .missing else {
      throw StoreError(
        .storage, "'\(partial)', where the copy would be written before it is given its name, exists: remove it",
        ["path": .string(partial)])
    }
    self = .file(path: target, partial: partial)
  }

  /// A file target must not exist, or with `replace` be a ModelStore store that no process
  /// has open (no `-wal` or `-shm` beside it), and not the source itself.
  private static func checkFile(_ path: String, replace: Bool, source: String) throws {
    let status: UserPath.Status
    do { status = try UserPath.status(path) } catch let e as FileAccessError { throw StoreError(e) }
    switch status {
    case .missing: return
    case .regular:
      guard replace else {
        throw StoreError(.invalidArgument, "'\(path)' exists", ["path": .string(path), "reason": "exists"])
      }
    default:
      do { _ = try UserPath.requireRegularFile(path, what: "the target") } catch let e as FileAccessError { throw StoreError(e) }
    }
    if !Store.isServerLocation(source), sameFile(source, path) {
      throw StoreError(.invalidArgument, "the target is the source: a store is copied into another", ["reason": "sameStore"])
    }
    try StoreFileCheck.check(path, readOnly: true, create: false)
    for suffix in ["-wal", "-shm"] where (try? UserPath.status(path + suffix)) != .missing {
      throw StoreError(
        .invalidArgument,
        "'\(path)' is open in another process, or was not closed cleanly ('\(path)\(suffix)' exists): a store is replaced only when nothing has it open",
        ["path": .string(path), "reason": "inUse"])
    }
  }

  private static func sameFile(_ a: String, _ b: String) -> Bool {
    var sa = stat()
    var sb = stat()
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino
  }

  /// The new store, inside an open write transaction that the copy commits.
  func open(_ options: StoreCopy.Options) throws -> Store {
    switch self {
    case .server(let url):
      var o = Store.OpenOptions(create: true)
      o.existing = options.replace ? .replace : .refuse
      o.holdsTransaction = true
      return try Store(path: url, options: o)
    case .file(_, let partial):
      let store = try Store(path: partial, options: Store.OpenOptions(create: true))
      do {
        try store.translatingErrors { try store.connection.begin() }
      } catch {
        store.close()
        abandon()
        throw error
      }
      return store
    }
  }

  /// Gives a file its name (the store is closed, its WAL folded into the file).
  func finish() throws {
    guard case .file(let path, let partial) = self else { return }
    for suffix in ["-wal", "-shm"] { unlink(partial + suffix) }
    if (try? UserPath.status(path)) == .missing {
      guard link(partial, path) == 0 else {
        let reason = String(cString: strerror(errno))
        abandon()
        throw StoreError(.storage, "cannot give the copy its name '\(path)': \(reason)", ["path": .string(path)])
      }
      unlink(partial)
    } else if rename(partial, path) != 0 {
      let reason = String(cString: strerror(errno))
      abandon()
      throw StoreError(.storage, "cannot replace '\(path)' by the copy: \(reason)", ["path": .string(path)])
    }
    Self.syncDirectory(of: path)
  }

  /// Removes a file copy's partial file (a server's transaction was rolled back by closing).
  func abandon() {
    guard case .file(_, let partial) = self else { return }
    for suffix in ["", "-wal", "-shm", "-journal"] { unlink(partial + suffix) }
  }

  /// Makes the new name durable (best effort: the copy is whole either way).
  private static func syncDirectory(of path: String) {
    let dir = path.lastIndex(of: "/").map { String(path[..<$0]) }.map { $0.isEmpty ? "/" : $0 } ?? "."
    let fd = Glibc.open(dir, O_RDONLY | O_DIRECTORY)
    guard fd >= 0 else { return }
    _ = fsync(fd)
    Glibc.close(fd)
  }
}
