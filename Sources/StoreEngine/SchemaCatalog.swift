import DatabaseKit
import JSONCore
import SchemaModel

/// The installed schema as the engine uses it: the model graph, the per-entity write plans,
/// the per-hierarchy read plans and the entity codes (`_ms_entities`), and the schema
/// cookie (`StoreDatabase.schemaCookie`), which tells when another process changed the schema. Owned by `Store`; the SQL
/// builder reads plans and codes from here. Installing, reading again and following
/// another process's changes happen here; whether a schema may change now is the write
/// state's question (`WriteState.canChangeSchema`).
final class SchemaCatalog {
  let connection: any DatabaseConnection
  /// Where the schema cookie comes from (the store's, which owns this catalog).
  private unowned let database: any StoreDatabase
  private(set) var graph: ModelGraph?
  private(set) var plans: [String: EntityPlan] = [:]
  private(set) var readPlans: [String: ReadPlan] = [:]
  /// `_ms_entities` as installed with the schema: entity codes of `_ent`.
  private(set) var entityCodes = EntityCodes()
  /// Which tables have `_opt` (asked of the database until they do).
  let versions = VersionColumns()
  /// The schema cookie of the installed schema (`followOpened`).
  private var cookie: Int64?
  /// The commit marker (SQLite's WAL index header) when `followOpened` last read the cookie.
  private var checkedAt: CommitMarker?
  /// Counts the schemas installed (each `install`), so a caller can tell whether one was.
  private(set) var installs = 0
  /// Why the installed schema could not be read again (after a rollback, or a change by
  /// another process); nil once it was. Requests that need the schema try again, and say
  /// why while it still fails (`requireGraph`).
  private(set) var reloadFailure: Error?

  init(database: any StoreDatabase) {
    self.database = database
    self.connection = database.connection
  }

  /// Reads the schema stored in the file (none in a new store) and installs it, in one
  /// read snapshot (the caller's transaction or snapshot when one is open).
  func load() throws { try connection.readingOneSnapshot { try loadInSnapshot() } }

  private func loadInSnapshot() throws {
    if let c = try database.schemaCookie() { cookie = c }
    guard let text = try Store.meta("schema", connection) else { return }
    let (schema, issues) = SchemaValidator.check(try JSONParser.parse(text))
    guard !issues.contains(where: { $0.severity == .error }) else {
      throw StoreError(.schemaMismatch, "the schema stored in this file does not validate: \(issues[0].message)")
    }
    try install(schema)
  }

  /// Forgets the schema held in memory and reads the installed one again: after an
  /// import that defined a schema inside its transaction was rolled back.
  func reload() throws {
    graph = nil
    plans = [:]
    readPlans = [:]
    connection.clearCache()
    do {
      try load()
      reloadFailure = nil
    } catch {
      reloadFailure = error
      throw error
    }
  }

  /// `reload` where its failure must not hide the error being reported (a rolled-back
  /// migration or import): the failure is kept, and the next request that needs the schema
  /// tries again or reports it (`requireGraph`).
  func reloadAfterRollback() {
    do { try reload() } catch { cookie = nil }
  }

  /// Rebuilds the per-entity plans for `schema` and reads the entity codes; the tables
  /// and `_ms_entities` must already match it. `cookie`: the schema cookie the change that
  /// installed it committed (read in its transaction), so that this connection's own
  /// change is not taken for another's.
  func install(_ schema: Schema, cookie: Int64? = nil) throws {
    if let cookie { self.cookie = cookie }
    let codes = try EntityCodes(connection: connection)
    if let missing = schema.entities.first(where: { codes.code($0.name) == nil }) {
      throw StoreError(
        .schemaMismatch, "entity '\(missing.name)' of the installed schema has no code in \(EntityCodes.table)",
        ["entity": .string(missing.name)])
    }
    let g = ModelGraph(schema)
    installs += 1
    try codes.readLayout(g.ordered.filter(\.isRoot).map(\.name), connection: connection)
    versions.forget()
    graph = g
    entityCodes = codes
    plans = [:]
    readPlans = [:]
    for m in g.ordered { plans[m.name] = EntityPlan(model: m, graph: g, codes: codes, dialect: connection.dialect) }
    for m in g.ordered where m.isRoot {
      readPlans[m.name] = ReadPlan(root: m, graph: g, plans: plans, codes: codes, dialect: connection.dialect)
    }
    connection.clearCache()
  }

  // MARK: - Following other connections' changes

  /// Before the outermost write transaction or read snapshot (`snapshot`) opens: asks the
  /// database to read the schema cookie in the round trip that opens it (PostgreSQL), and
  /// returns whether it did. When no cookie is known (after a failed reload) it asks for
  /// one no store has, so that the schema is read again there.
  func askAtOpening(snapshot: Bool) throws -> Bool {
    try database.askSchemaCookieAtOpening(cookie ?? -1, snapshot: snapshot)
  }

  /// In the outermost write transaction (its write lock held) or read snapshot just
  /// opened, before anything is built from the schema: makes the installed schema the one
  /// it sees, reading it again when another connection changed it (with `reload` false it
  /// throws instead: a migration, planned from the schema, does not go on). Returns false
  /// when the check is left for `confirmOpened`, after the body's first statement:
  /// - the cookie was asked with the opening (`asked`, PostgreSQL): the opening's first
  ///   statement carries it (with `eager`, the opening is sent now, one round trip);
  /// - otherwise (SQLite) the cookie is read here, unless nothing was committed since it
  ///   was last read: the commit marker (SQLite's WAL index header, which every commit
  ///   rewrites) still being the one read then. A write transaction holds the write lock, so
  ///   nothing can commit until it ends; a read snapshot begins with its first read, so
  ///   the marker is compared again after the body (`confirmOpened`). With `eager` the
  ///   cookie is read now in any case.
  func followOpened(asked: Bool, eager: Bool, writing: Bool, reload mayReload: Bool = true) throws -> Bool {
    if asked {
      guard eager else { return false }
      let stale = database.staleOpenings
      do {
        try database.sendOpening()
      } catch  where database.staleOpenings != stale {
        database.acceptStaleOpening()
        try moved(mayReload)
      }
      return true
    }
    // The marker read before the cookie: a commit after it makes the next check look again.
    let marker = connection.commitMarker()
    if let marker, marker == checkedAt {
      if writing || !eager { return writing }
    }
    if try database.schemaCookie() != cookie { try moved(mayReload) }
    checkedAt = cookie == nil ? nil : marker
    return true
  }

  /// After the body of a read snapshot whose check `followOpened` left for later (or a
  /// failure of it): true when the schema held is the snapshot's; false when it was not,
  /// and it was read again in the same snapshot, for the body to run again. On
  /// PostgreSQL the cookie went with the body's first statement, which then failed
  /// without giving out its answer (`stale`: `staleOpenings` before the body), or, when the
  /// body ran no statement, it is sent now (one round trip). On SQLite, when the commit
  /// marker has moved since the cookie was last read, the cookie is read in the snapshot.
  func confirmOpened(asked: Bool, stale: Int) throws -> Bool {
    if asked {
      do {
        if database.staleOpenings == stale { try database.sendOpening() }
      } catch  where database.staleOpenings != stale {}
      guard database.staleOpenings != stale else { return true }
      database.acceptStaleOpening()
    } else {
      if let marker = connection.commitMarker(), marker == checkedAt { return true }
      guard try database.schemaCookie() != cookie else { return true }
    }
    try moved(true)
    return false
  }

  /// Another connection changed the schema: read it again (or, without `mayReload`,
  /// refuse). A schema that cannot be read is kept as the reason (`requireGraph` reports
  /// it to the requests that need it) and read again at the next check.
  private func moved(_ mayReload: Bool) throws {
    guard mayReload else {
      throw StoreError(
        .schemaMismatch, "another connection changed the store's schema (model.define or a migration) while this migration ran",
        ["reason": "schemaChanged"])
    }
    do {
      try reload()
    } catch {
      cookie = nil
      checkedAt = nil
    }
  }

  // MARK: - Lookups

  /// The installed schema. After a failed reload it is read again first when
  /// `mayReload` (the schema may change now: no client transaction or migration runs),
  /// and while it cannot be read the error says why.
  func requireGraph(mayReload: Bool = false) throws -> ModelGraph {
    if graph == nil, reloadFailure != nil, mayReload { try? reload() }  // kept in reloadFailure
    guard let graph else {
      if let failure = reloadFailure {
        let reason = (failure as? StoreError)?.text ?? ErrorText("\(failure)")
        throw StoreError(
          (failure as? StoreError)?.kind ?? .storage, "the store's schema could not be read again: " + reason,
          (failure as? StoreError)?.details ?? [:])
      }
      throw StoreError(.noSchema, "the store has no schema yet: call model.define first")
    }
    return graph
  }

  func plan(_ entity: String) throws -> EntityPlan {
    _ = try requireGraph()
    guard let p = plans[entity] else { throw StoreError.unknownEntity(entity) }
    return p
  }

  func readPlan(for plan: EntityPlan) -> ReadPlan { readPlans[plan.model.root.name]! }
}
