import DatabaseKit

/// Following another connection's schema change (`model.define`, a migration), exactly:
/// every request that writes checks the schema cookie inside its write transaction, once
/// the write lock is held and before it builds anything from the schema, and every request
/// that reads checks it in its read snapshot, so that what it writes or reads and the
/// schema it does so by are of one moment (protocol.md, "Overview"). On SQLite the
/// cookie is read once the transaction or snapshot is open (a write transaction compares
/// the commit marker first); on PostgreSQL it is read in the round trip that opens it
/// (`StoreDatabase.askSchemaCookieAtOpening`), with the first statement, which was made
/// from the schema held before: when the cookie moved, that statement fails without giving
/// out its answer, the schema is read again in the same snapshot (or the write transaction
/// is rolled back and run again, the cookie read first), and the request goes on by the new
/// schema. Nothing is followed while the schema cannot change (`WriteState.canChangeSchema`:
/// inside a client transaction, which checked when it began, or while a migration runs),
/// nor in a store nobody else opens (in memory).
extension Store {
  /// The next transaction or snapshot opened is the request's own, at the outermost level,
  /// and may follow another connection's change.
  var followsSchemaChanges: Bool { checksSchema && writes.canChangeSchema }

  /// The next transaction or snapshot opened is at the outermost level of a store that
  /// other connections open.
  private var checksSchema: Bool { database.isShared && connection.transactionDepth == 0 && !readingSnapshot }

  /// `connection.inTransaction` for a request that writes: at the outermost level the
  /// schema is followed once the write lock is held, before `body` builds anything from it.
  /// On PostgreSQL the cookie goes with the transaction's first statement; when it moved,
  /// the transaction is rolled back and run again (`rerun` first makes the body's input
  /// ready to be read again) with the cookie checked before anything else, the schema read
  /// again under the lock. A body that failed before its first statement failed by the
  /// schema held: the cookie is then checked in a read snapshot (no lock), and the body runs
  /// again when it had moved. A body whose input cannot be read again (`rerun` nil) checks
  /// first.
  func inWriteTransaction<T>(rerun: (() throws -> Void)?, _ body: () throws -> T) throws -> T {
    guard followsSchemaChanges else { return try connection.inTransaction(body) }
    guard let rerun else { return try openingWriteTransaction(checkingFirst: true, body).result }
    let stale = database.staleOpenings
    let outcome: (result: T, checked: Bool)
    do {
      outcome = try openingWriteTransaction(checkingFirst: false, body)
    } catch {
      guard try schemaMovedUnder(stale: stale) else { throw error }
      writes.requestLog.removeAll()
      try rerun()
      return try openingWriteTransaction(checkingFirst: true, body).result
    }
    // A body that ran no statement committed nothing: it is run again when the schema it
    // was run by had moved.
    guard !outcome.checked || database.staleOpenings != stale, try schemaMovedUnder(stale: stale) else { return outcome.result }
    try rerun()
    return try openingWriteTransaction(checkingFirst: true, body).result
  }

  /// The transaction of `inWriteTransaction`, and whether its opening's check was answered.
  private func openingWriteTransaction<T>(checkingFirst: Bool, _ body: () throws -> T) throws -> (result: T, checked: Bool) {
    let asked = try catalog.askAtOpening(snapshot: false)
    let result = try connection.inTransaction {
      _ = try catalog.followOpened(asked: asked, eager: checkingFirst, writing: true)
      return try body()
    }
    return (result, !asked || database.openingAnswered)
  }

  /// Whether a lazily checked write (`inWriteTransaction`) ran by a schema that had moved:
  /// its opening's check found so (the statement that carried it failed, `stale` being
  /// `staleOpenings` before), or it never reached the database, and a read snapshot of its
  /// own finds so now (the schema is then read again there). A failure after the check was
  /// answered, found the schema unchanged, is the write's own.
  private func schemaMovedUnder(stale: Int) throws -> Bool {
    if database.staleOpenings != stale { return true }
    guard !database.openingAnswered else { return false }
    let installs = catalog.installs
    try readingOneSnapshot {}
    return catalog.installs != installs || catalog.reloadFailure != nil
  }

  /// `connection.begin()` of a transaction left open (a client transaction, a dry run):
  /// at the outermost level the schema is followed at once, under the write lock (on
  /// PostgreSQL the opening is sent now, with the cookie).
  func beginFollowingSchema() throws {
    guard followsSchemaChanges else { return try connection.begin() }
    try beginChecking(reload: true)
  }

  /// `connection.begin()` of a migration's dry run, which must see the schema it planned
  /// from: when another connection changed it since, the dry run fails (`schemaMismatch`)
  /// instead of reading it again (nothing reloads while a migration runs).
  func beginCheckingSchema() throws {
    guard checksSchema else { return try connection.begin() }
    try beginChecking(reload: false)
  }

  private func beginChecking(reload: Bool) throws {
    let asked = try catalog.askAtOpening(snapshot: false)
    try connection.begin()
    do {
      _ = try catalog.followOpened(asked: asked, eager: true, writing: true, reload: reload)
    } catch {
      connection.rollback()
      throw error
    }
  }

  /// The transaction of one stage of a migration, which must find the store at the schema
  /// the migration planned from (or its previous stage committed): when another
  /// connection changed it since, the stage fails before it changes anything
  /// (`schemaMismatch`).
  func inStageTransaction<T>(_ body: () throws -> T) throws -> T {
    guard checksSchema else { return try connection.inTransaction(body) }
    let asked = try catalog.askAtOpening(snapshot: false)
    return try connection.inTransaction {
      _ = try catalog.followOpened(asked: asked, eager: true, writing: true, reload: false)
      return try body()
    }
  }

  /// Runs a request that only reads on one snapshot of the store, translating database
  /// failures: all its statements see the same commits, whatever other connections
  /// commit meanwhile (`DatabaseConnection.readingOneSnapshot`; no write lock is taken), and
  /// the schema they were made from is that snapshot's. Inside a client transaction the
  /// transaction is that snapshot.
  ///
  /// The schema cookie is checked before `body` or, where that would cost (a round trip on
  /// PostgreSQL, where it goes with the body's first statement instead; the cookie's read
  /// on SQLite while nothing was committed since it was last read), after it: when the
  /// schema had moved, it is read again in the same snapshot and `body` runs again, so what
  /// `body` does must be right to do again up to its first statement, or to its end when it
  /// kept a failure to itself or ran none (a body that writes out what it reads as it goes
  /// passes `rerunnable: false`, and the cookie is checked first). A body that failed runs
  /// again too when the schema had moved: its failure may come from the schema held.
  public func readingOneSnapshot<T>(rerunnable: Bool = true, _ body: () throws -> T) throws -> T {
    guard followsSchemaChanges else { return try translatingErrors { try connection.readingOneSnapshot(body) } }
    readingSnapshot = true
    defer { readingSnapshot = false }
    return try translatingErrors {
      let stale = database.staleOpenings
      let asked = try catalog.askAtOpening(snapshot: true)
      return try connection.readingOneSnapshot {
        guard try !catalog.followOpened(asked: asked, eager: !rerunnable, writing: false) else { return try body() }
        let result: T
        do {
          result = try body()
        } catch {
          if try !catalog.confirmOpened(asked: asked, stale: stale) { return try body() }
          throw error
        }
        return try catalog.confirmOpened(asked: asked, stale: stale) ? result : try body()
      }
    }
  }

  /// Reads the schema again when another connection changed it, in a read snapshot of
  /// its own. Requests follow changes themselves, in their own transaction or snapshot;
  /// this is for callers between them.
  public func followSchemaChanges() throws { try readingOneSnapshot {} }
}
