import DatabaseKit
import JSONCore
import SchemaModel

/// Reading objects by id, with optional prefetching of related objects.
extension Store {
  /// The wire form of an existing object; with `withVersion`, also its `_version` (the
  /// `_opt` column), read by the same statement so that value and version always come
  /// from one snapshot.
  func object(_ id: ObjectID, withVersion: Bool = false) throws -> JSONObject {
    let plan = try self.plan(id.entity)
    let read = readPlan(for: plan)
    let select =
      withVersion ? read.selectSQL(appending: try catalog.versions.expression(plan.tableName, alias: "t", connection)) : read.selectSQL
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

  /// The wire form of an existing object with the to-many members `toMany` asks for
  /// (the result of a write).
  func object(_ id: ObjectID, withVersion: Bool = false, toMany: ToManyMode) throws -> JSONObject {
    var list = [try object(id, withVersion: withVersion)]
    try addToMany(&list, ToManyShape(toMany))
    return list[0]
  }

  /// One object by id, with the relationships named in `include` expanded to objects,
  /// its to-many relationships as `toMany` asks and, with `withVersion`, its `_version`.
  /// Every statement reads one snapshot.
  public func get(id: String, include: [String] = [], withVersion: Bool = false, toMany: ToManyMode = .none) throws -> JSONObject {
    try readingOneSnapshot {
      let oid = try existingID(id, path: ErrorPlace(.id))
      try validateInclude(include, from: try plan(oid.entity))
      var list = [try object(oid, withVersion: withVersion)]
      try shape(&list, select: nil, include: include, toMany: toMany)
      return list[0]
    }
  }

  /// Several objects by id, in the order asked, all from one snapshot; `notFound` names
  /// the first missing one.
  public func get(ids: [String], include: [String] = [], withVersion: Bool = false, toMany: ToManyMode = .none) throws -> [JSONObject] {
    try readingOneSnapshot {
      var list: [JSONObject] = []
      for (i, id) in ids.enumerated() {
        list.append(try object(try existingID(id, path: ErrorPlace(.ids).index(i)), withVersion: withVersion))
      }
      try shape(&list, select: nil, include: include, toMany: toMany)
      return list
    }
  }

  /// Gives objects read with `ReadPlan.object` (attributes and to-ones) the to-many
  /// members the request asks for, then expands its `include` key paths.
  func shape(_ objects: inout [JSONObject], select: Set<String>?, include: [String], toMany: ToManyMode) throws {
    let tree = IncludeTree(include)
    try addToMany(&objects, ToManyShape(toMany, select: select, expanded: tree.keys))
    try expand(&objects, tree, toMany: toMany)
  }

  /// Checks that every `include` key path names relationships, whatever the result holds.
  func validateInclude(_ include: [String], from entity: EntityPlan) throws {
    for (i, keyPath) in include.enumerated() {
      var model = entity.model
      for part in keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init) {
        guard let r = model.relationship(part), let dest = catalog.plans[r.destination] else {
          throw StoreError(
            .validation, at: ErrorPlace(.include).index(i), "'\(part)' is not a relationship of '\(model.name)' (in include '\(keyPath)')",
            ["entity": .string(model.name), "relationship": .string(part)], placeInData: false)
        }
        model = dest.model
      }
    }
  }

  /// Replaces relationship ids by the related objects, one level of `tree` at a time
  /// (`include: ["category", "tags.owner"]`).
  private func expand(_ objects: inout [JSONObject], _ tree: IncludeTree, toMany: ToManyMode) throws {
    for child in tree.children {
      try expand(&objects, child.key, below: child.tree, toMany: toMany, index: child.index)
    }
  }

  /// One relationship of one level: the related objects of every object in `objects` are
  /// read with one statement per hierarchy table (not one per object), each distinct one
  /// once; they get their to-many members (`toMany`, and the ids the next level expands)
  /// and the next level is expanded over all of them at once. The number of statements
  /// depends on the include paths and the schema, never on how many objects there are.
  private func expand(
    _ objects: inout [JSONObject], _ key: String, below: IncludeTree, toMany: ToManyMode, index: Int
  ) throws {
    // 1. What to load: the ids under `key`, grouped by the table that holds them.
    var wanted: [String: [Int64]] = [:]
    var seen: Set<String> = []
    for o in objects {
      guard case .string(let entity)? = o["_entity"], let plan = catalog.plans[entity] else { continue }
      guard plan.model.relationship(key) != nil else {
        throw StoreError(
          .validation, at: ErrorPlace(.include).index(index), "'\(key)' is not a relationship of '\(entity)'",
          ["entity": .string(entity), "relationship": .string(key)], placeInData: false)
      }
      let values: [JSONValue]
      switch o[key] {
      case .array(let items)?: values = items
      case let v?: values = [v]
      case nil: values = []
      }
      for case .string(let text) in values where seen.insert(text).inserted {
        if let id = ObjectID(text), let target = catalog.plans[id.entity] { wanted[target.model.root.name, default: []].append(id.pk) }
      }
    }
    // 2. One statement per table; the keys travel as one JSON array parameter.
    var related: [JSONObject] = []
    let keys = "(SELECT \(connection.dialect.jsonArrayValue(.integer)) FROM \(connection.dialect.jsonArrayElements("?")))"
    for (root, pks) in wanted.sorted(by: { $0.key < $1.key }) {
      let read = catalog.readPlans[root]!
      let list = JSONWriter.encodeString(.array(pks.map { .int($0) }))
      try connection.cached(read.selectSQL + " WHERE t.\"_pk\" IN \(keys)").forEachRow([.text(list)]) {
        related.append(read.object($0))
      }
    }
    // 3. Their to-many members, then the next level, over all of them at once.
    try addToMany(&related, ToManyShape(toMany, expanded: below.keys))
    try expand(&related, below, toMany: toMany)
    var loaded: [String: JSONObject] = [:]
    for o in related { if case .string(let id)? = o["_id"] { loaded[id] = o } }
    // 4. Put them in place; ids of objects that no longer exist (noAction) stay ids.
    func place(_ v: JSONValue) -> JSONValue {
      guard case .string(let text) = v else { return v }
      return loaded[text].map { .object($0) } ?? v
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

/// `include` key paths as a tree: each relationship is expanded once per level, with what
/// to expand below it (`["category", "category.tasks"]` reads the categories once).
/// `index` is the first include path through a node, for error messages.
struct IncludeTree {
  var children: [(key: String, index: Int, tree: IncludeTree)] = []

  init() {}

  init(_ paths: [String]) {
    for (i, p) in paths.enumerated() { add(p.split(separator: ".", omittingEmptySubsequences: false).map(String.init)[...], index: i) }
  }

  /// The relationships expanded at this level.
  var keys: Set<String> { Set(children.map(\.key)) }

  private mutating func add(_ parts: ArraySlice<String>, index: Int) {
    guard let key = parts.first else { return }
    if let k = children.firstIndex(where: { $0.key == key }) {
      children[k].tree.add(parts.dropFirst(), index: index)
    } else {
      var t = IncludeTree()
      t.add(parts.dropFirst(), index: index)
      children.append((key, index, t))
    }
  }
}
