import DatabaseKit
import JSONCore
import SchemaModel

/// One import in progress, inside the transaction `Store.importObjects` opened. Two
/// passes over the records: the first inserts (or matches) every object with its
/// attributes only, the second sets relationships, so references may point forward.
/// One `WriteContext` spans both, and relationship constraints are checked once at the
/// end, when every link is in place.
final class ImportRun {
  let store: Store
  let records: ImportRecords
  let mode: ImportMode
  let progress: ((ImportPhase, Int, Int?) -> Void)?
  let ctx = WriteContext()
  var summary: ImportSummary
  private let listed: Set<String>
  /// Insert and upsert: the store key each file key became, by hierarchy root (`replace`
  /// keeps ids and needs none).
  private var newKeys: [String: KeyMap] = [:]
  /// Insert and upsert: the concrete entity of each store object that is not its
  /// hierarchy's root, by root then file key (only hierarchies with sub-entities fill it).
  private var newEntities: [String: [Int64: String]] = [:]
  /// Upsert: objects already matched or inserted, so that two records never merge.
  private var claimed: Set<ObjectID> = []

  init(store: Store, records: ImportRecords, mode: ImportMode, progress: ((ImportPhase, Int, Int?) -> Void)?) {
    self.store = store
    self.records = records
    self.mode = mode
    self.progress = progress
    listed = Set(records.entities)
    summary = ImportSummary(layout: records.layout, mode: mode)
  }

  /// The store object that the file's object `pk` of hierarchy `root` became.
  private func newID(root: String, pk: Int64) -> ObjectID? {
    guard let key = newKeys[root]?[pk] else { return nil }
    return ObjectID(entity: newEntities[root]?[pk] ?? root, pk: key)
  }

  func perform() throws -> ImportSummary {
    // Read here, not at init: a store without a schema gets the file's just before.
    ctx.checkedEntities = Set(store.catalog.plans.values.filter(\.needsRelationshipValidation).map(\.model.name))
    if mode == .replace { try emptyListedEntities() }
    var rows = 0
    try records.forEach { location, value in
      try at(location) { try insertRow(location, value) }
      rows += 1
      if rows % Store.interchangeProgressInterval == 0 {
        try store.checkCancelled()
        progress?(.rows, rows, records.knownCount)
      }
    }
    summary.objects = rows
    progress?(.rows, rows, rows)
    var links = 0
    // The second pass only sets relationships: skipped when no entity of the file has
    // any (every record's shape was already checked by the first).
    let hasLinks = try records.entities.contains { !(try store.plan($0)).model.relationships.isEmpty }
    if !hasLinks { links = rows }
    if hasLinks {
      try records.forEach { location, value in
        try at(location) { try linkRow(location, value) }
        links += 1
        if links % Store.interchangeProgressInterval == 0 {
          try store.checkCancelled()
          progress?(.links, links, rows)
        }
      }
    }
    progress?(.links, links, rows)
    ctx.currentIndex = nil
    do {
      try store.finish(ctx)
    } catch let e as StoreError {
      // Relationship constraints name the record that created the object (its index).
      if case .int(let n)? = e.details["index"] { throw RecordLocation(layout: records.layout, number: Int(n)).relocate(e) }
      throw e
    }
    return summary
  }

  /// Runs the work for one record; engine errors are rewritten to name its position.
  private func at(_ location: RecordLocation, _ body: () throws -> Void) throws {
    ctx.currentIndex = location.number
    do {
      try body()
    } catch let e as StoreError where e.details["line"] == nil && e.details["pointer"] == nil {
      throw location.relocate(e)
    }
  }

  /// `replace`: every object of the file's entities goes first, with delete rules.
  private func emptyListedEntities() throws {
    var doomed: [ObjectID] = []
    var removed = 0
    for name in records.entities {
      let plan = try store.plan(name)
      if plan.model.relationships.isEmpty && plan.incomingWithoutInverse.isEmpty {
        // Nothing links to these objects or from them: no delete rule, inverse or join
        // row to follow, so one statement deletes them without listing them in memory.
        try store.connection.prepare("DELETE FROM \(plan.table) WHERE \(plan.entityFilter(alias: plan.table, deep: false))").execute()
        removed += store.connection.changes
        continue
      }
      try store.connection.prepare(
        "SELECT \"_pk\" FROM \(plan.table) WHERE \(plan.entityFilter(alias: plan.table, deep: false)) ORDER BY \"_pk\""
      ).forEachRow {
        doomed.append(ObjectID(entity: name, pk: $0.int(0)))
      }
    }
    summary.deleted = removed + (doomed.isEmpty ? 0 : try store.deleteObjects(doomed, ctx).count)
  }

  /// The record's id after checking its shape: an object with `_id` and a matching `_entity`.
  private func identity(_ location: RecordLocation, _ value: JSONValue) throws -> (JSONObject, ObjectID, EntityPlan) {
    guard case .object(let o) = value else { throw location.error(.validation, "", "expected an object, got \(value.typeName)") }
    guard case .string(let text)? = o["_id"], let id = ObjectID(text) else {
      throw location.error(.validation, "/_id", "every object needs '_id', a string of the form 'Entity/123'")
    }
    guard o["_entity"] == .string(id.entity) else {
      throw location.error(.validation, "/_entity", "'_entity' must be present and equal '\(id.entity)', the entity of '_id'")
    }
    guard listed.contains(id.entity) else {
      throw location.error(
        .validation, "/_entity", "'\(id.entity)' is not one of the entities the header lists", ["entity": .string(id.entity)])
    }
    return (o, id, try store.plan(id.entity))
  }

  // MARK: - First pass: rows

  private func insertRow(_ location: RecordLocation, _ value: JSONValue) throws {
    let (o, id, plan) = try identity(location, value)
    var values = JSONObject()
    for m in o.members where m.key != "_id" && plan.model.relationship(m.key) == nil { values.append(m.key, m.value) }
    let root = plan.model.root.name
    switch mode {
    case .replace:
      if let holder = try store.concreteID(pk: id.pk, plan: plan) {
        throw location.error(
          .constraint, "/_id",
          holder == id
            ? "'\(id)' appears twice in the file"
            : "key \(id.pk) of '\(root)' is held by \(holder), which this import does not replace",
          ["id": .string(id.description), "existing": .string(holder.description)])
      }
      _ = try store.insertObject(id.entity, values, ctx, path: location.label, key: id.pk)
      summary.inserted += 1
    case .insert, .upsert:
      if newKeys[root]?[id.pk] != nil {
        throw location.error(.validation, "/_id", "'\(id)' appears twice in the file", ["id": .string(id.description)])
      }
      let target: ObjectID
      if mode == .upsert, let existing = try match(plan, values, location) {
        values["_entity"] = nil  // the match may be of a sub-entity
        try store.updateObject(existing, values, ctx, path: location.label)
        summary.updated += 1
        target = existing
      } else {
        target = try store.insertObject(id.entity, values, ctx, path: location.label)
        summary.inserted += 1
      }
      if mode == .upsert { claimed.insert(target) }
      newKeys[root, default: KeyMap()].insert(id.pk, target.pk)
      if target.entity != root { newEntities[root, default: [:]][id.pk] = target.entity }
    }
  }

  /// `upsert`: the object holding the record's values for the first uniqueness constraint
  /// made of attributes that all have values in the record.
  private func match(_ plan: EntityPlan, _ values: JSONObject, _ location: RecordLocation) throws -> ObjectID? {
    for keys in plan.model.uniqueness {
      guard keys.allSatisfy({ plan.model.attribute($0) != nil && values[$0] != nil && !values[$0]!.isNull }) else { continue }
      var filter: [String] = []
      var args: [SQLValue] = []
      for k in keys {
        filter.append("t.\(Identifier.quote(k)) = ?")
        args.append(try store.storedValue(plan, key: k, values[k]!, ctx, path: location.label.key(k)))
      }
      let entityFilter = plan.entityFilter(alias: "t")
      if !entityFilter.isEmpty { filter.append(entityFilter) }
      let sql =
        "SELECT \(store.entityCodes.column(plan.tableName, alias: "t")), t.\"_pk\" FROM \(plan.table) t WHERE \(filter.joined(separator: " AND ")) LIMIT 1"
      guard let existing = try store.connection.cached(sql).first(args, { ObjectID(entity: store.entityCodes.name($0, 0), pk: $0.int(1)) })
      else { continue }
      guard !claimed.contains(existing) else {
        throw location.error(
          .constraint, "",
          "has the same [\(keys.joined(separator: ", "))] as \(existing), which an earlier record of the file already became",
          ["entity": .string(plan.model.name), "attributes": .array(keys.map { .string($0) }), "existing": .string(existing.description)])
      }
      return existing
    }
    return nil
  }

  // MARK: - Second pass: links

  private func linkRow(_ location: RecordLocation, _ value: JSONValue) throws {
    let (o, id, plan) = try identity(location, value)
    var links = JSONObject()
    for m in o.members where plan.model.relationship(m.key) != nil {
      links.append(m.key, try mapped(m.value, sub: "/\(m.key)", location))
    }
    guard !links.isEmpty else { return }
    let target = mode == .replace ? id : newID(root: plan.model.root.name, pk: id.pk)!
    try store.updateObject(target, links, ctx, path: location.label)
  }

  /// A relationship value with the file's ids turned into the store's. `replace` keeps
  /// ids, so its values go through unchanged (the engine resolves them against the
  /// store). Otherwise every id must name an object of the file. Values that are not ids
  /// go through unchanged too, for the engine to refuse with its usual message.
  private func mapped(_ value: JSONValue, sub: String, _ location: RecordLocation) throws -> JSONValue {
    guard mode != .replace else { return value }
    switch value {
    case .string(let text): return try mappedID(text, sub: sub, location)
    case .array(let items):
      var out: [JSONValue] = []
      out.reserveCapacity(items.count)
      for (i, item) in items.enumerated() {
        if case .string(let text) = item { out.append(try mappedID(text, sub: "\(sub)/\(i)", location)) } else { out.append(item) }
      }
      return .array(out)
    default: return value
    }
  }

  private func mappedID(_ text: String, sub: String, _ location: RecordLocation) throws -> JSONValue {
    guard let id = ObjectID(text), let plan = store.catalog.plans[id.entity] else { return .string(text) }
    guard let target = newID(root: plan.model.root.name, pk: id.pk) else {
      throw location.error(.notFound, sub, "\(text) is not an object of this file (a dangling reference)", ["id": .string(text)])
    }
    return .string(target.description)
  }
}
