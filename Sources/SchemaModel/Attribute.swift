import JSONCore

/// A stored (or transient) value of an entity.
public struct Attribute: Equatable, Sendable {
  public var name: String
  public var type: AttributeType
  public var optional: Bool
  public var defaultValue: DefaultValue?
  public var unique: Bool
  public var indexed: Bool
  public var transient: Bool
  /// The name in the previous version (SwiftData's `originalName`): a rename.
  public var originalName: String?
  /// Core Data's renaming identifier: two versions' elements with the same identifier
  /// (an element without one is identified by its name) are the same element
  /// (`SchemaMapping`).
  public var renamingIdentifier: String?

  public init(
    name: String, type: AttributeType, optional: Bool = false, defaultValue: DefaultValue? = nil,
    unique: Bool = false, indexed: Bool = false, transient: Bool = false, originalName: String? = nil,
    renamingIdentifier: String? = nil
  ) {
    self.name = name
    self.type = type
    self.optional = optional
    self.defaultValue = defaultValue
    self.unique = unique
    self.indexed = indexed
    self.transient = transient
    self.originalName = originalName
    self.renamingIdentifier = renamingIdentifier
  }
}

/// A link from one entity to another, with its inverse, cardinality and delete rule.
public struct Relationship: Equatable, Sendable {
  public var name: String
  public var destination: String
  public var inverse: String?
  public var toMany: Bool
  public var optional: Bool
  public var ordered: Bool
  public var deleteRule: DeleteRule
  public var minCount: Int?
  public var maxCount: Int?
  /// The name in the previous version: a rename.
  public var originalName: String?
  /// Core Data's renaming identifier (see `Attribute.renamingIdentifier`).
  public var renamingIdentifier: String?

  public init(
    name: String, destination: String, inverse: String? = nil, toMany: Bool = false, optional: Bool = true,
    ordered: Bool = false, deleteRule: DeleteRule = .nullify, minCount: Int? = nil, maxCount: Int? = nil,
    originalName: String? = nil, renamingIdentifier: String? = nil
  ) {
    self.name = name
    self.destination = destination
    self.inverse = inverse
    self.toMany = toMany
    self.optional = optional
    self.ordered = ordered
    self.deleteRule = deleteRule
    self.minCount = minCount
    self.maxCount = maxCount
    self.originalName = originalName
    self.renamingIdentifier = renamingIdentifier
  }
}

/// A kind of object: SwiftData's `@Model` class, Core Data's entity.
public struct Entity: Equatable, Sendable {
  public var name: String
  public var parent: String?
  public var abstract: Bool
  public var attributes: [Attribute]
  public var relationships: [Relationship]
  /// Compound or single indexes, as lists of attribute / to-one relationship names.
  public var indexes: [[String]]
  /// Uniqueness constraints (`#Unique`), single or compound.
  public var uniqueness: [[String]]
  /// The name in the previous version: a rename.
  public var originalName: String?
  /// Core Data's renaming identifier (see `Attribute.renamingIdentifier`).
  public var renamingIdentifier: String?

  public init(
    name: String, parent: String? = nil, abstract: Bool = false, attributes: [Attribute] = [],
    relationships: [Relationship] = [], indexes: [[String]] = [], uniqueness: [[String]] = [],
    originalName: String? = nil, renamingIdentifier: String? = nil
  ) {
    self.name = name
    self.parent = parent
    self.abstract = abstract
    self.attributes = attributes
    self.relationships = relationships
    self.indexes = indexes
    self.uniqueness = uniqueness
    self.originalName = originalName
    self.renamingIdentifier = renamingIdentifier
  }
}

/// A whole schema: what `model.define` installs and `model.get` returns.
public struct Schema: Equatable, Sendable {
  public var version: String
  public var entities: [Entity]

  public init(version: String = "1", entities: [Entity] = []) {
    self.version = version
    self.entities = entities
  }

  public func entity(named name: String) -> Entity? { entities.first { $0.name == name } }
}
