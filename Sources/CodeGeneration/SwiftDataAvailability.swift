import SchemaModel

/// The SwiftData releases whose additions the generated code can need. The code's deployment
/// target is the first (iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1); a declaration that
/// needs a later one says so with `@available`, on every platform SwiftData runs on, so an app
/// that targets several of them compiles on each.
enum SwiftDataRelease: Int, Comparable, Sendable {
  /// `@Model`, `@Attribute(.unique)` and the other options, `VersionedSchema`, migration plans.
  case first = 17
  /// `#Unique`, `#Index`, `.preserveValueOnDeletion`.
  case indexes = 18
  /// Class inheritance of `@Model` types.
  case inheritance = 26

  static func < (l: Self, r: Self) -> Bool { l.rawValue < r.rawValue }

  /// The `@available` attribute of a declaration that needs this release (nil for the first).
  var attribute: String? {
    switch self {
    case .first: return nil
    case .indexes: return "@available(iOS 18, macOS 15, tvOS 18, watchOS 11, visionOS 2, *)"
    case .inheritance: return "@available(iOS 26, macOS 26, tvOS 26, watchOS 26, visionOS 26, *)"
    }
  }

  /// "iOS 26 / macOS 26", for comments.
  var systems: String {
    switch self {
    case .first: return "iOS 17 / macOS 14"
    case .indexes: return "iOS 18 / macOS 15"
    case .inheritance: return "iOS 26 / macOS 26"
    }
  }
}

/// Which SwiftData release each entity's class needs, and why.
///
/// A class needs a later release for what it uses itself (inheritance: 26; `#Unique` or
/// `#Index`: 18) and for every class it names: a relationship's destination, its parent (and
/// with it the inverse key paths, which name the destination). Swift checks availability
/// per declaration, and a stored property cannot be marked `@available`, so the mark goes on
/// the class that holds the property; a `VersionedSchema` lists every class of its version,
/// so the schema version (and the migration plan listing it) carries the highest mark of its
/// classes, and so do the typealiases of its classes.
///
/// Why mark rather than flatten an inheritance tree for older systems: a flattened tree is a
/// different model (one entity per class, no shared table), so the generated classes would no
/// longer open the Core Data store they come from; marking keeps the model exactly the store's,
/// and an app for older systems can flatten by hand with a custom migration stage.
struct SwiftDataAvailability {
  /// Entity name → the release its class needs (its own needs and those of every class it names).
  private(set) var needs: [String: SwiftDataRelease] = [:]
  /// Entity name → why it needs more than the first release by itself (empty when it does not).
  private(set) var reasons: [String: [String]] = [:]

  init(_ schema: Schema, layout: (Entity) -> SwiftDataConstraints) {
    let names = Set(schema.entities.map(\.name))
    var uses: [String: Set<String>] = [:]
    for e in schema.entities {
      var own = SwiftDataRelease.first
      var why: [String] = []
      if let parent = e.parent, names.contains(parent) {
        own = .inheritance
        why.append("it inherits from \(parent) (class inheritance)")
      }
      if schema.entities.contains(where: { $0.parent == e.name }) {
        own = .inheritance
        why.append("other classes inherit from it (class inheritance)")
      }
      let constraints = layout(e)
      if !constraints.unique.isEmpty || !constraints.indexes.isEmpty {
        own = max(own, .indexes)
        why.append("it uses " + (constraints.unique.isEmpty ? "#Index" : constraints.indexes.isEmpty ? "#Unique" : "#Unique and #Index"))
      }
      needs[e.name] = own
      reasons[e.name] = why
      uses[e.name] = Set(e.relationships.map(\.destination) + [e.parent].compactMap { $0 }).intersection(names)
    }
    // Propagate along the references until nothing changes (cycles settle on their maximum).
    var changed = true
    while changed {
      changed = false
      for e in schema.entities {
        let highest = uses[e.name, default: []].compactMap { needs[$0] }.max() ?? .first
        if highest > needs[e.name]! {
          needs[e.name] = highest
          changed = true
        }
      }
    }
  }

  subscript(_ entity: String) -> SwiftDataRelease { needs[entity] ?? .first }

  /// The release a declaration listing every class of the schema needs.
  var highest: SwiftDataRelease { needs.values.max() ?? .first }

  /// Why `entity` needs its release: its own reasons, or the classes it names that need it.
  func explanation(_ entity: String, in schema: Schema) -> String? {
    let release = self[entity]
    guard release > .first else { return nil }
    if let own = reasons[entity], !own.isEmpty { return "Needs \(release.systems): " + own.joined(separator: "; ") + "." }
    guard let e = schema.entity(named: entity) else { return nil }
    let named = Set(e.relationships.map(\.destination)).filter { self[$0] == release }.sorted()
    return "Needs \(release.systems): it names \(named.joined(separator: ", ")), which need\(named.count == 1 ? "s" : "") it."
  }
}

/// How an entity's uniqueness constraints and indexes are written: single-key uniqueness on an
/// attribute the class declares is `@Attribute(.unique)` (SwiftData 17); the rest needs
/// `#Unique` / `#Index` (18).
struct SwiftDataConstraints {
  /// Attributes of the entity written with `.unique`.
  var uniqueAttributes: Set<String> = []
  /// Key lists for `#Unique`.
  var unique: [[String]] = []
  /// Key lists for `#Index`.
  var indexes: [[String]] = []

  init(_ e: Entity) {
    let own = Set(e.attributes.filter { !$0.transient }.map(\.name))
    for a in e.attributes where a.unique { uniqueAttributes.insert(a.name) }
    for keys in e.uniqueness {
      if keys.count == 1, own.contains(keys[0]) {
        uniqueAttributes.insert(keys[0])
      } else if !unique.contains(keys) {
        unique.append(keys)
      }
    }
    indexes = e.indexes
    for a in e.attributes where a.indexed && !indexes.contains([a.name]) { indexes.append([a.name]) }
  }
}
