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
  /// The schema cookie when the installed schema was last read (`followChanges`).
  private var cookie: Int64?
  /// The WAL index's header when `followChanges` last read the cookie.
  private var checkedAt: CommitMarker?
  /// Why the installed schema could not be read again (after a rollback, or a change by
  /// another process); nil once it was. Requests that need the schema try again, and say
  /// why while it still fails (`requireGraph`).
  private(set) var reloadFailure: Error?

  init(database: any StoreDatabase) {
    self.database = database
    self.connection = database.connection
  }

  /// Reads the schema stored in the file (none in a new store) and installs it.
  func load() throws {
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
  /// and `_ms_entities` must already match it.
  func install(_ schema: Schema) throws {
    let codes = try EntityCodes(connection: connection)
    if let missing = schema.entities.first(where: { codes.code($0.name) == nil }) {
      throw StoreError(
        .schemaMismatch, "entity '\(missing.name)' of the installed schema has no code in \(EntityCodes.table)",
        ["entity": .string(missing.name)])
    }
    let g = ModelGraph(schema)
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

  /// Reads the schema again when the schema cookie moved (another process defined or
  /// migrated). The cookie is read (on SQLite a read transaction of its own, about 1.5 µs)
  /// only when something was committed since it was last read: the connection's commit
  /// marker (SQLite: the WAL index's header, which every commit rewrites) is compared first
  /// (a file store opened for writing is in WAL mode; other stores, and PostgreSQL, which
  /// has no marker, read the cookie every time).
  func followChanges() {
    let header = connection.commitMarker()
    if let header, header == checkedAt { return }
    checkedAt = nil
    guard let c = (try? database.schemaCookie()) ?? nil else { return }
    // The header read before the cookie: a commit after it makes the next call look again.
    checkedAt = header
    if c != cookie {
      do {
        try reload()
        cookie = c
      } catch {
        // Read again before the next request (the failure is kept for `requireGraph`).
        cookie = nil
        checkedAt = nil
      }
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
