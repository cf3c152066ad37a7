import JSONCore

/// Checks the meaning of a decoded schema: names, inheritance, relationship targets and
/// inverses, defaults against types, key lists. Reports every problem with its path.
public enum SchemaValidator {
  /// `sources` maps positions back to the submitted JSON when the decoder skipped entries.
  public static func validate(_ schema: Schema, path: String = "schema", sources: SchemaDecoder.SourceMap? = nil) -> [SchemaIssue] {
    var v = Run(schema: schema, path: path, sources: sources)
    v.run()
    return v.issues
  }

  /// Decodes and validates in one step: the issues of both passes, in document order of passes.
  public static func check(_ json: JSONValue, path: String = "schema") -> (Schema, [SchemaIssue]) {
    let (schema, shapeIssues, sources) = SchemaDecoder.decodeWithSourceMap(json, path: path)
    return (schema, shapeIssues + validate(schema, path: path, sources: sources))
  }

  private struct Run {
    let schema: Schema
    let path: String
    let sources: SchemaDecoder.SourceMap?
    var issues: [SchemaIssue] = []
    var byName: [String: Int] = [:]
    var foldedNames: [String: String] = [:]

    init(schema: Schema, path: String, sources: SchemaDecoder.SourceMap?) {
      self.schema = schema
      self.path = path
      self.sources = sources
    }

    mutating func error(_ code: String, _ message: String, _ path: String, _ entity: String? = nil, _ property: String? = nil) {
      issues.append(SchemaIssue(.error, code, message, path: path, entity: entity, property: property))
    }

    mutating func warning(_ code: String, _ message: String, _ path: String, _ entity: String? = nil, _ property: String? = nil) {
      issues.append(SchemaIssue(.warning, code, message, path: path, entity: entity, property: property))
    }

    func entityPath(_ i: Int) -> String { "\(path).entities[\(sources?.entities[i] ?? i)]" }
    func attributePath(_ i: Int, _ j: Int) -> String { "\(entityPath(i)).attributes[\(sources?.attributes[i][j] ?? j)]" }
    func relationshipPath(_ i: Int, _ j: Int) -> String { "\(entityPath(i)).relationships[\(sources?.relationships[i][j] ?? j)]" }

    mutating func run() {
      for (i, e) in schema.entities.enumerated() {
        if let problem = Names.entityNameProblem(e.name) { error("invalidName", problem, "\(entityPath(i)).name", e.name) }
        if byName[e.name] != nil {
          error("duplicateName", "entity '\(e.name)' is defined twice", "\(entityPath(i)).name", e.name)
        } else if let other = foldedNames[e.name.lowercased()] {
          // SQLite table names ignore case, so these two would share a table.
          error("duplicateName", "entity '\(e.name)' differs from '\(other)' only in letter case", "\(entityPath(i)).name", e.name)
        } else {
          byName[e.name] = i
        }
        foldedNames[e.name.lowercased()] = foldedNames[e.name.lowercased()] ?? e.name
      }
      for (i, e) in schema.entities.enumerated() { checkInheritance(e, i) }
      checkSharedColumns()
      for (i, e) in schema.entities.enumerated() {
        checkProperties(e, i)
        checkKeyLists(e, i)
        if e.abstract && !schema.entities.contains(where: { $0.parent == e.name }) {
          warning(
            "abstractWithoutSubentities", "abstract entity '\(e.name)' has no sub-entities, so it can hold no objects",
            "\(entityPath(i)).abstract", e.name)
        }
      }
    }

    /// The chain of ancestors of `e`, nearest first; stops at unknown parents and cycles.
    func ancestors(of e: Entity) -> [Entity] {
      var out: [Entity] = []
      var seen: Set<String> = [e.name]
      var current = e
      while let p = current.parent, let idx = byName[p], !seen.contains(p) {
        seen.insert(p)
        current = schema.entities[idx]
        out.append(current)
      }
      return out
    }

    mutating func checkInheritance(_ e: Entity, _ i: Int) {
      guard let parent = e.parent else { return }
      guard byName[parent] != nil else {
        error("unknownParent", "parent entity '\(parent)' of '\(e.name)' is not defined", "\(entityPath(i)).parent", e.name)
        return
      }
      var seen: Set<String> = [e.name]
      var current: String? = parent
      while let c = current, let idx = byName[c] {
        if seen.contains(c) {
          error("inheritanceCycle", "entity '\(e.name)' inherits from itself through '\(c)'", "\(entityPath(i)).parent", e.name)
          return
        }
        seen.insert(c)
        current = schema.entities[idx].parent
      }
    }

    /// The entities of one inheritance hierarchy share a table (one column per property
    /// name). SQLite ignores case in column names, and a column has one storage type, so
    /// names in a hierarchy must not differ only in case, and a name used by two sibling
    /// entities must be stored the same way in both.
    mutating func checkSharedColumns() {
      var seen: [String: [String: (name: String, storage: String, entity: String)]] = [:]
      for (i, e) in schema.entities.enumerated() {
        let chain = [e] + ancestors(of: e)
        let root = chain.last!.name
        var columns = seen[root] ?? [:]
        let props: [(String, String, String)] =
          e.attributes.enumerated().filter { !$0.element.transient }.map { (j, a) in (a.name, a.type.columnFamily, attributePath(i, j)) }
          + e.relationships.enumerated().filter { !$0.element.toMany }.map { (j, r) in (r.name, "relationship", relationshipPath(i, j)) }
        for (name, storage, p) in props {
          let key = name.lowercased()
          if let other = columns[key], other.entity != e.name {
            if other.name != name {
              error(
                "duplicateName",
                "'\(name)' differs from '\(other.entity).\(other.name)' only in letter case; entities of one hierarchy share a table",
                "\(p).name", e.name, name)
            } else if other.storage != storage {
              error(
                "conflictingColumn",
                "'\(name)' is stored as \(storage) here but as \(other.storage) in '\(other.entity)', which shares the table of '\(root)'",
                "\(p).name", e.name, name)
            }
          } else if let other = columns[key], other.name != name {
            error("duplicateName", "'\(name)' differs from '\(other.name)' only in letter case", "\(p).name", e.name, name)
          } else {
            columns[key] = (name, storage, e.name)
          }
        }
        seen[root] = columns
      }
    }

    /// Every property name visible in `e` (inherited first) mapped to its owner.
    func inheritedNames(_ e: Entity) -> [String: String] {
      var names: [String: String] = [:]
      for a in ancestors(of: e) {
        for p in a.attributes { names[p.name] = a.name }
        for p in a.relationships { names[p.name] = a.name }
      }
      return names
    }

    mutating func checkProperties(_ e: Entity, _ i: Int) {
      let inherited = inheritedNames(e)
      var own: Set<String> = []
      func checkName(_ run: inout Run, _ name: String, _ p: String) {
        if let problem = Names.propertyNameProblem(name) { run.error("invalidName", problem, "\(p).name", e.name, name) }
        if let owner = inherited[name] {
          run.error("duplicateName", "'\(name)' is already defined by parent entity '\(owner)'", "\(p).name", e.name, name)
        } else if own.contains(name) {
          run.error("duplicateName", "'\(name)' is defined twice in entity '\(e.name)'", "\(p).name", e.name, name)
        }
        own.insert(name)
      }
      for (j, a) in e.attributes.enumerated() {
        let p = attributePath(i, j)
        checkName(&self, a.name, p)
        checkAttribute(a, e, p)
      }
      for (j, r) in e.relationships.enumerated() {
        let p = relationshipPath(i, j)
        checkName(&self, r.name, p)
        checkRelationship(r, e, p)
      }
    }

    mutating func checkAttribute(_ a: Attribute, _ e: Entity, _ p: String) {
      switch a.defaultValue {
      case .literal(let v)?:
        do { _ = try a.type.parse(v) } catch let err as ValueError {
          error("badDefault", "default of '\(a.name)': \(err.message)", "\(p).default", e.name, a.name)
        } catch {}
      case .generate(let g)?:
        let fits = (g == .uuid && (a.type == .uuid || a.type == .string)) || (g == .now && a.type == .date)
        if !fits {
          error(
            "badDefault", "generator '\(g.rawValue)' cannot produce a value of type \(a.type.rawValue)", "\(p).default",
            e.name, a.name)
        }
      case nil: break
      }
      if a.transient && (a.unique || a.indexed) {
        error("transientConstraint", "transient attribute '\(a.name)' is not stored, so it cannot be unique or indexed", p, e.name, a.name)
      }
      if a.transient && !a.optional && a.defaultValue == nil {
        error("transientWithoutDefault", "transient attribute '\(a.name)' must be optional or have a default", p, e.name, a.name)
      }
      if let o = a.originalName, Names.propertyNameProblem(o) != nil, !Names.isIdentifier(o) {
        error("invalidName", "originalName '\(o)' is not an identifier", "\(p).originalName", e.name, a.name)
      }
    }

    mutating func checkRelationship(_ r: Relationship, _ e: Entity, _ p: String) {
      if r.ordered && !r.toMany {
        error("orderedToOne", "only to-many relationships can be ordered", "\(p).ordered", e.name, r.name)
      }
      if !r.toMany && (r.minCount != nil || r.maxCount != nil) {
        error("countOnToOne", "min/max counts apply to to-many relationships; use 'optional' for to-one", p, e.name, r.name)
      }
      if let mn = r.minCount, let mx = r.maxCount, mx > 0, mn > mx {
        error("badCount", "min (\(mn)) is greater than max (\(mx))", "\(p).min", e.name, r.name)
      }
      guard let destIndex = byName[r.destination] else {
        error(
          "unknownDestination", "destination entity '\(r.destination)' of '\(e.name).\(r.name)' is not defined",
          "\(p).destination", e.name, r.name)
        return
      }
      let dest = schema.entities[destIndex]
      guard let inverseName = r.inverse else {
        warning(
          "missingInverse",
          "'\(e.name).\(r.name)' has no inverse; objects of '\(r.destination)' will not know who points at them",
          p, e.name, r.name)
        return
      }
      let candidates = [dest] + ancestors(of: dest)
      guard let inv = candidates.lazy.compactMap({ $0.relationships.first { $0.name == inverseName } }).first else {
        error(
          "unknownInverse", "inverse '\(inverseName)' is not a relationship of '\(r.destination)'", "\(p).inverse",
          e.name, r.name)
        return
      }
      let selfAndAncestors = Set([e.name] + ancestors(of: e).map(\.name))
      if !selfAndAncestors.contains(inv.destination) {
        error(
          "inverseMismatch",
          "inverse '\(r.destination).\(inverseName)' points to '\(inv.destination)', not to '\(e.name)'",
          "\(p).inverse", e.name, r.name)
      } else if let back = inv.inverse, back != r.name {
        error(
          "inverseMismatch", "inverse '\(r.destination).\(inverseName)' names '\(back)' as its inverse, not '\(r.name)'",
          "\(p).inverse", e.name, r.name)
      } else if inv.inverse == nil {
        error(
          "inverseMismatch", "'\(r.destination).\(inverseName)' must name '\(r.name)' as its inverse too",
          "\(p).inverse", e.name, r.name)
      }
    }

    mutating func checkKeyLists(_ e: Entity, _ i: Int) {
      let chain = [e] + ancestors(of: e)
      let attributes = chain.flatMap(\.attributes)
      let relationships = chain.flatMap(\.relationships)
      for (kind, lists) in [("indexes", e.indexes), ("uniqueness", e.uniqueness)] {
        for (j, keys) in lists.enumerated() {
          var seen: Set<String> = []
          for (k, key) in keys.enumerated() {
            let p = "\(entityPath(i)).\(kind)[\(j)][\(k)]"
            if !seen.insert(key).inserted {
              error("duplicateKey", "'\(key)' appears twice in the same key list", p, e.name, key)
            }
            if let a = attributes.first(where: { $0.name == key }) {
              if a.transient { error("transientConstraint", "transient attribute '\(key)' cannot be part of \(kind)", p, e.name, key) }
            } else if let r = relationships.first(where: { $0.name == key }) {
              if r.toMany { error("unknownKey", "to-many relationship '\(key)' cannot be part of \(kind)", p, e.name, key) }
            } else {
              error("unknownKey", "'\(key)' is not an attribute or to-one relationship of '\(e.name)'", p, e.name, key)
            }
          }
        }
      }
    }
  }
}
