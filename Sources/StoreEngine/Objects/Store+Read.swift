import JSONCore
import SQLiteCore
import SchemaModel

/// Reading objects by id, with optional prefetching of related objects.
extension Store {
  /// The wire form of an existing object; with `withVersion`, also its `_version` (the
  /// `_opt` column), read by the same statement so that value and version always come
  /// from one snapshot.
  func object(_ id: ObjectID, withVersion: Bool = false) throws -> JSONObject {
    let plan = try self.plan(id.entity)
    let read = readPlan(for: plan)
    let select = withVersion ? read.selectSQL(appending: "t.\"_opt\"") : read.selectSQL
    let found = try connection.cached(select + " WHERE t.\"_pk\" = ?").first([.integer(id.pk)]) { row -> JSONObject in
      var o = read.object(row)
      if withVersion { o.append("_version", .int(row.int(row.count - 1))) }
      return o
    }
    guard let o = found else {
      throw StoreError(.notFound, "object \(id) does not exist", ["id": .string(id.description)])
    }
    afterObjectRead?()
    return o
  }

  /// One object by id, with the relationships named in `include` expanded to objects and,
  /// with `withVersion`, its `_version`. Every statement reads one snapshot.
  public func get(id: String, include: [String] = [], withVersion: Bool = false) throws -> JSONObject {
    try readingOneSnapshot {
      let oid = try existingID(id, path: "params.id")
      try validateInclude(include, from: try plan(oid.entity), path: "params.include")
      var list = [try object(oid, withVersion: withVersion)]
      try expand(&list, include: include, path: "params.include")
      return list[0]
    }
  }

  /// Several objects by id, in the order asked, all from one snapshot; `notFound` names
  /// the first missing one.
  public func get(ids: [String], include: [String] = [], withVersion: Bool = false) throws -> [JSONObject] {
    try readingOneSnapshot {
      var list: [JSONObject] = []
      for (i, id) in ids.enumerated() {
        list.append(try object(try existingID(id, path: "params.ids[\(i)]"), withVersion: withVersion))
      }
      try expand(&list, include: include, path: "params.include")
      return list
    }
  }

  /// Replaces relationship ids by the related objects, one level per dotted segment
  /// (`include: ["category", "tags.owner"]`). Each distinct related object is read once.
  func expand(_ objects: inout [JSONObject], include: [String], path: String) throws {
    guard !include.isEmpty else { return }
    for (i, keyPath) in include.enumerated() {
      let parts = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
      try expand(&objects, parts[...], path: "\(path)[\(i)]")
    }
  }

  /// Checks that every `include` key path names relationships, whatever the result holds.
  func validateInclude(_ include: [String], from entity: EntityPlan, path: String) throws {
    for (i, keyPath) in include.enumerated() {
      var model = entity.model
      for part in keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init) {
        guard let r = model.relationship(part), let dest = plans[r.destination] else {
          throw StoreError(
            .validation, "\(path)[\(i)]: '\(part)' is not a relationship of '\(model.name)' (in include '\(keyPath)')",
            ["entity": .string(model.name), "relationship": .string(part)])
        }
        model = dest.model
      }
    }
  }

  /// One level of an include path: the related objects of every object in `objects` are
  /// read with one statement per hierarchy table (not one per object), then the next
  /// segment is expanded over all of them at once. The number of statements depends on
  /// the include paths and the schema, never on how many objects there are.
  private func expand(_ objects: inout [JSONObject], _ parts: ArraySlice<String>, path: String) throws {
    guard let key = parts.first else { return }
    // 1. What to load: ids not yet expanded, grouped by the table that holds them.
    var wanted: [String: [Int64]] = [:]
    var seen: Set<String> = []
    for o in objects {
      guard case .string(let entity)? = o["_entity"], let plan = plans[entity] else { continue }
      guard plan.model.relationship(key) != nil else {
        throw StoreError(
          .validation, "\(path): '\(key)' is not a relationship of '\(entity)'", ["entity": .string(entity), "relationship": .string(key)])
      }
      let values: [JSONValue]
      switch o[key] {
      case .array(let items)?: values = items
      case let v?: values = [v]
      case nil: values = []
      }
      for case .string(let text) in values where seen.insert(text).inserted {
        if let id = ObjectID(text), let target = plans[id.entity] { wanted[target.model.root.name, default: []].append(id.pk) }
      }
    }
    // 2. One statement per table; the keys travel as one JSON array parameter.
    var loaded: [String: JSONObject] = [:]
    for (root, pks) in wanted.sorted(by: { $0.key < $1.key }) {
      let read = readPlans[root]!
      let list = JSONWriter.encodeString(.array(pks.map { .int($0) }))
      try connection.cached(read.selectSQL + " WHERE t.\"_pk\" IN (SELECT value FROM json_each(?))").forEachRow([.text(list)]) {
        let o = read.object($0)
        if case .string(let id)? = o["_id"] { loaded[id] = o }
      }
    }
    // 3. The next segment, over every related object (new or expanded earlier) at once.
    var related = Array(loaded.values)
    var nested: [JSONObject] = []
    if parts.count > 1 {
      for o in objects {
        switch o[key] {
        case .array(let items)?: for case .object(let n) in items { nested.append(n) }
        case .object(let n)?: nested.append(n)
        default: break
        }
      }
      var all = related + nested
      try expand(&all, parts.dropFirst(), path: path)
      related = Array(all[..<related.count])
      nested = Array(all[related.count...])
      for o in related { if case .string(let id)? = o["_id"] { loaded[id] = o } }
    }
    // 4. Put them in place; ids of objects that no longer exist (noAction) stay ids.
    var nestedIndex = 0
    func place(_ v: JSONValue) -> JSONValue {
      switch v {
      case .string(let text): return loaded[text].map { .object($0) } ?? v
      case .object:
        guard parts.count > 1 else { return v }
        defer { nestedIndex += 1 }
        return .object(nested[nestedIndex])
      default: return v
      }
    }
    for i in objects.indices {
      switch objects[i][key] {
      case .array(let items)?: objects[i][key] = .array(items.map(place))
      case let v? where !v.isNull: objects[i][key] = place(v)
      default: break
      }
    }
  }
}
