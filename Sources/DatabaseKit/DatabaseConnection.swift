/// One connection to a database: what the engine (`StoreEngine`) needs of it, so that a
/// second engine plugs in beside SQLite (`SQLiteCore.Connection`, the one implementation
/// so far). Confined to one thread, except `interrupt()`, which may be called from any.
///
/// Transactions nest: the outermost level is a write transaction, inner levels are
/// savepoints. SQL text the engine writes is plain SQL except where `dialect` answers.
public protocol DatabaseConnection: AnyObject {
  /// The SQL the engine writes for this database where engines differ.
  var dialect: any SQLDialect { get }
  /// What the connection was opened on (a file path for SQLite).
  var path: String { get }
  var isReadOnly: Bool { get }

  // MARK: Statements

  /// A cached prepared statement for `sql`; prepared once per connection.
  func cached(_ sql: String) throws -> any PreparedStatement
  /// A one-off statement, not cached (DDL, rare queries).
  func prepare(_ sql: String) throws -> any PreparedStatement
  /// Drops every cached statement: required around schema changes.
  func clearCache()
  /// Runs one or more SQL statements without parameters (DDL).
  func execute(_ sql: String) throws
  /// Runs a cached statement with parameters.
  func run(_ sql: String, _ values: [SQLValue]) throws
  /// The first column of the first row, or nil.
  func scalar(_ sql: String, _ values: [SQLValue]) throws -> SQLValue?
  /// True when the database has a table named `name` (schema introspection).
  func hasTable(_ name: String) throws -> Bool
  /// Rows changed by the last statement, and by all statements of this connection.
  var changes: Int { get }
  var totalChanges: Int { get }
  /// Statements executed on this connection, for tests that count work.
  var statementsRun: Int { get }
  /// The engine's measure of work done inside statements (SQLite: virtual machine steps).
  var vmSteps: Int { get }
  /// Registers a scalar SQL function implemented in Swift, `name(args...)`. An error
  /// `body` throws fails the statement and comes back as the `cause` of its error.
  func createFunction(
    _ name: String, argumentCount: Int32, deterministic: Bool, _ body: @escaping ([SQLValue]) throws -> SQLValue) throws

  // MARK: Transactions and savepoints

  /// True when no transaction is open.
  var isAutocommit: Bool { get }
  /// How many levels are open: 0 outside a transaction.
  var transactionDepth: Int { get }
  /// Opens a level: a write transaction at the outermost level, a savepoint inside.
  func begin() throws
  /// Closes the innermost level, keeping its changes; the outermost runs `willCommit` first.
  func commit() throws
  /// Closes the innermost level, undoing its changes.
  func rollback()
  /// Runs just before the outermost COMMIT, inside the transaction.
  var willCommit: (() throws -> Void)? { get set }
  /// Runs once the outermost level has ended, committed or rolled back.
  var didEndTransaction: (() -> Void)? { get set }
  /// Set when a rollback found that the database had ended the outer transaction itself.
  var transactionWasLost: Bool { get set }
  /// Runs `body` atomically in a new level; rolled back when `body` or the commit throws.
  func inTransaction<T>(_ body: () throws -> T) throws -> T
  /// Runs `body`, which only reads, on one snapshot of the database, without a write lock.
  func readingOneSnapshot<T>(_ body: () throws -> T) throws -> T
  /// Resets every statement still stepping on this connection.
  func resetAllStatements()

  // MARK: Cancellation

  /// Cancels work from another thread: raises the flag `pollInterrupt` reports, and stops
  /// the running statement if it only reads.
  func interrupt()
  func clearInterrupt()
  var isInterruptRequested: Bool { get }
  /// Runs while work goes on (between statements and inside long ones); it may call
  /// `interrupt()` and must not use this connection.
  var cancellationProbe: (() -> Void)? { get set }
  /// Runs the cancellation probe, then tells whether an interrupt was requested.
  func pollInterrupt() -> Bool

  // MARK: Commits by anyone, copies, closing

  /// Cheap evidence of commits: equal markers from two calls mean that nothing was
  /// committed in between (by any connection); nil when the engine cannot tell.
  func commitMarker() -> CommitMarker?
  /// A number that moves whenever rows read inside the open transaction may no longer be
  /// as they were read: a level rolled back, the transaction ended, a statement that may
  /// delete or replace rows or change the schema. What a write remembers of rows it read
  /// (the store's to-one targets) holds while it stays the same. Nil when the connection
  /// does not track it (reading again costs little there: SQLite, in the process).
  var rowsEpoch: Int? { get }
  /// Asks for the read `sql` with `values` to be run at the start of every later write
  /// transaction, in the round trip that opens it, so that the transaction's own run of it
  /// (the same values, before it wrote anything) costs no round trip of its own. Nothing
  /// where a statement costs no round trip (SQLite, in the process: the default).
  func prefetchInWriteTransactions(_ sql: String, _ values: [SQLValue])
  /// A consistent copy of what is committed, written to the file at `path`; the number of
  /// pages (or units of the engine's choosing) copied.
  @discardableResult func backup(to path: String) throws -> Int
  /// Finalizes statements and closes; closing twice does nothing.
  func close()
}

extension DatabaseConnection {
  public var rowsEpoch: Int? { nil }
  public func prefetchInWriteTransactions(_ sql: String, _ values: [SQLValue]) {}

  /// Runs `body` atomically in a new level; rolled back when `body` or the commit throws.
  public func inTransaction<T>(_ body: () throws -> T) throws -> T {
    try begin()
    return try closingLevel(body)
  }

  /// Runs `body` in the level just opened, then commits it; rolls it back when `body` or
  /// the commit throws.
  public func closingLevel<T>(_ body: () throws -> T) throws -> T {
    let result: T
    do {
      result = try body()
      try commit()
    } catch {
      rollback()
      throw error
    }
    return result
  }

  public func run(_ sql: String) throws { try run(sql, []) }
  public func scalar(_ sql: String) throws -> SQLValue? { try scalar(sql, []) }
  public func createFunction(_ name: String, argumentCount: Int32, _ body: @escaping ([SQLValue]) throws -> SQLValue) throws {
    try createFunction(name, argumentCount: argumentCount, deterministic: true, body)
  }
}

/// What `DatabaseConnection.commitMarker()` returns: a few words of the engine's state
/// that every commit changes (SQLite: the WAL index header).
public struct CommitMarker: Equatable, Sendable {
  public var words: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0)

  public init() {}

  public static func == (a: Self, b: Self) -> Bool {
    a.words.0 == b.words.0 && a.words.1 == b.words.1 && a.words.2 == b.words.2 && a.words.3 == b.words.3
      && a.words.4 == b.words.4 && a.words.5 == b.words.5
  }
}
