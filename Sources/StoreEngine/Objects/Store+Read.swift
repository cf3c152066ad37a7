import JSONCore
import SQLiteCore
import SchemaModel

/// Reading objects by id, with optional prefetching of related objects.
extension Store {
  /// The wire form of an existing object.
  func object(_ id: ObjectID) throws -> JSONObject {
    let plan = try self.plan(id.entity)
    let read = readPlan(for: plan)
    guard let o = try connection.cached(read.selectSQL + " WHERE t.\"_pk\" = ?").first([.integer(id.pk)], { read.object($0) }) else {
      throw StoreError(.notFound, "object \(id) does not exist", ["id": .string(id.description)])
    }
    return o
  }

  /// One object by id, with the relationships named in `include` expanded to objects.
  public func get(id: String, include: [String] = []) throws -> JSONObject {
    try translatingErrors {
      let oid = try existingID(id, path: "params.id")
      try validateInclude(include, from: try plan(oid.entity), path: "params.include")
      var list = [try object(oid)]
      try expand(&list, include: include, path: "params.include")
      return list[0]
    }
  }

  /// Several objects by id, in the order asked; `notFound` names the first missing one.
  public func get(ids: [String], include: [String] = []) throws -> [JSONObject] {
    try translatingErrors {
      var list: [JSONObject] = []
      for (i, id) in ids.enumerated() { list.append(try object(try existingID(id, path: "params.ids[\(i)]"))) }
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

  private func expand(_ objects: inout [JSONObject], _ parts: ArraySlice<String>, path: String) throws {
    guard let key = parts.first else { return }
    var cache: [String: JSONObject] = [:]
    for i in objects.indices {
      guard case .string(let entity)? = objects[i]["_entity"], let plan = plans[entity] else { continue }
      guard plan.model.relationship(key) != nil else {
        throw StoreError(
          .validation, "\(path): '\(key)' is not a relationship of '\(entity)'", ["entity": .string(entity), "relationship": .string(key)])
      }
      func load(_ v: JSONValue) throws -> JSONValue {
        // An already expanded object (from an earlier include) is expanded further in place.
        if case .object(var nested) = v {
          if parts.count > 1 {
            var one = [nested]
            try expand(&one, parts.dropFirst(), path: path)
            nested = one[0]
          }
          return .object(nested)
        }
        guard case .string(let idText) = v, let id = ObjectID(idText) else { return v }
        if let hit = cache[idText] { return .object(hit) }
        var fetched = [try object(id)]
        if parts.count > 1 { try expand(&fetched, parts.dropFirst(), path: path) }
        cache[idText] = fetched[0]
        return .object(fetched[0])
      }
      switch objects[i][key] {
      case .array(let items)?: objects[i][key] = .array(try items.map(load))
      case let v? where !v.isNull: objects[i][key] = try load(v)
      default: break
      }
    }
  }
}
