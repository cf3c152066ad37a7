import SchemaModel

/// What Xcode writes and Core Data accepts, but a ModelStore schema cannot say as it is:
/// each is imported in the nearest form ModelStore has, with a warning at its element that
/// says what was done (issue #16). Runs on the schema as read, before `SchemaValidator`.
extension CoreDataModelReader {
  struct Quirks {
    /// Where a key of an index was written, and which index it is.
    struct Place {
      var line: Int
      var column: Int
      var what: String
    }

    /// `Entity.Name` → the lowercased name a relationship got (`relationshipName`).
    var renamedRelationships: [String: String] = [:]
    /// `Entity.name` of the transient relationships left out.
    var transientRelationships: Set<String> = []
    /// Entity → index position in `indexes` → the place of each key.
    var indexPlaces: [String: [Int: [Place]]] = [:]
  }

  mutating func tolerate(_ schema: inout Schema) {
    if !quirks.renamedRelationships.isEmpty { renameInverseAndKeys(&schema, Lineage(schema)) }
    // Dropping index keys changes no relationship: one lineage serves both steps.
    let lineage = Lineage(schema)
    dropToManyIndexKeys(&schema, lineage)
    // Dropping one side's inverse can leave its partner one-sided in turn: again until none is.
    if dropOneSidedInverses(&schema, lineage) {
      while dropOneSidedInverses(&schema, Lineage(schema)) {}
    }
  }

  /// The entities of a schema by name, each one's chain of ancestors and the relationships
  /// it has (its own and inherited), computed once.
  struct Lineage {
    let entities: [String: Entity]
    private var chains: [String: [String]] = [:]
    private var inherited: [String: [(owner: String, relationship: Relationship)]] = [:]

    init(_ schema: Schema) {
      entities = Dictionary(schema.entities.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
      for name in entities.keys {
        var chain: [String] = []
        var next: String? = name
        while let n = next, !chain.contains(n), let e = entities[n] {
          chain.append(n)
          next = e.parent
        }
        chains[name] = chain
        inherited[name] = chain.flatMap { owner in entities[owner]!.relationships.map { (owner, $0) } }
      }
    }

    /// `name`, its parent, its parent's parent, ... (stops at an unknown entity or a cycle).
    func callAsFunction(_ name: String) -> [String] { chains[name] ?? [] }

    func relationships(of name: String) -> [(owner: String, relationship: Relationship)] { inherited[name] ?? [] }
  }

  /// Inverses and key lists that name a relationship renamed by `relationshipName` follow it.
  private mutating func renameInverseAndKeys(_ schema: inout Schema, _ lineage: Lineage) {
    guard !quirks.renamedRelationships.isEmpty else { return }
    func renamed(_ name: String, in entity: String) -> String {
      for owner in lineage(entity) { if let n = quirks.renamedRelationships["\(owner).\(name)"] { return n } }
      return name
    }
    for i in schema.entities.indices {
      let e = schema.entities[i]
      for j in e.relationships.indices {
        if let inverse = e.relationships[j].inverse {
          schema.entities[i].relationships[j].inverse = renamed(inverse, in: e.relationships[j].destination)
        }
      }
      schema.entities[i].indexes = e.indexes.map { $0.map { renamed($0, in: e.name) } }
      schema.entities[i].uniqueness = e.uniqueness.map { $0.map { renamed($0, in: e.name) } }
    }
  }

  /// Xcode writes fetch indexes over to-many relationships, which have no column to index:
  /// the key is left out of the index (and an index left without keys is left out).
  private mutating func dropToManyIndexKeys(_ schema: inout Schema, _ lineage: Lineage) {
    for i in schema.entities.indices where !schema.entities[i].indexes.isEmpty {
      let e = schema.entities[i]
      let toMany = Set(lineage.relationships(of: e.name).filter(\.relationship.toMany).map(\.relationship.name))
      guard e.indexes.contains(where: { $0.contains(where: toMany.contains) }) else { continue }
      var kept: [[String]] = []
      for (k, keys) in e.indexes.enumerated() {
        let places = quirks.indexPlaces[e.name]?[k]
        for (n, key) in keys.enumerated() where toMany.contains(key) {
          let place = places.map { $0[n] }
          let rest = keys.filter { !toMany.contains($0) }
          let result =
            rest.isEmpty ? "the index is left out" : "the index keeps \(rest.map { "'\($0)'" }.joined(separator: ", "))"
          issues.append(
            ModelImportIssue(
              .warning, "toManyIndex",
              "\(place?.what ?? "an index") of '\(e.name)' names to-many relationship '\(key)', which has no column to index "
                + "(Core Data accepts it); \(result)", file: file, line: place?.line, column: place?.column, entity: e.name,
              property: key))
        }
        let rest = keys.filter { !toMany.contains($0) }
        if !rest.isEmpty { kept.append(rest) }
      }
      schema.entities[i].indexes = kept
    }
  }

  /// Core Data tolerates an inverse that does not name the relationship back: the inverse
  /// names a relationship the destination lacks (or a transient one, left out), one that
  /// points to another entity (a sub-entity included: ModelStore's inverse must point to the
  /// entity or an ancestor), or one whose own inverse is another relationship or none.
  /// ModelStore keeps such a relationship without an inverse (as its Core Data store does:
  /// each to-one has its own column), so only pairs that name each other are inverses.
  /// True when an inverse was dropped.
  private mutating func dropOneSidedInverses(_ schema: inout Schema, _ lineage: Lineage) -> Bool {
    var dropped = false
    for i in schema.entities.indices {
      let e = schema.entities[i]
      for j in e.relationships.indices {
        let r = e.relationships[j]
        guard let inverse = r.inverse, lineage.entities[r.destination] != nil else { continue }
        let place = "'\(e.name).\(r.name)'"
        var reason: String?
        if let (owner, back) = lineage.relationships(of: r.destination).first(where: { $0.relationship.name == inverse }) {
          if !lineage(e.name).contains(back.destination) {
            reason = "'\(owner).\(inverse)', which points to '\(back.destination)', not to '\(e.name)'"
          } else if back.inverse != r.name {
            reason = "'\(owner).\(inverse)', whose own inverse is " + (back.inverse.map { "'\($0)'" } ?? "none")
          }
        } else if let t = lineage(r.destination).first(where: { quirks.transientRelationships.contains("\($0).\(inverse)") }) {
          reason = "the transient '\(t).\(inverse)', which is left out"
        } else {
          reason = "'\(inverse)', which '\(r.destination)' does not have"
        }
        guard let reason else { continue }
        let at = positions["\(e.name).\(r.name)"]
        issues.append(
          ModelImportIssue(
            .warning, "inverseIgnored",
            "\(place) names as its inverse \(reason) (Core Data accepts it); ModelStore keeps \(place) without an inverse",
            file: file, line: at?.line, column: at?.column, entity: e.name, property: r.name))
        schema.entities[i].relationships[j].inverse = nil
        dropped = true
      }
    }
    return dropped
  }
}
