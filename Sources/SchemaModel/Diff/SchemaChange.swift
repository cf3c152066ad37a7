import JSONCore

/// One difference between two schema versions, as `model.diff` and `migration.plan`
/// report it. `lightweight` says whether a lightweight stage can make it; `condition`
/// names what the stored data must satisfy for that, and `mayLoseData` marks changes that
/// drop stored values (refused unless the client allows data loss).
public struct SchemaChange: Equatable {
  public enum Kind: String, CaseIterable {
    case addEntity, removeEntity, renameEntity, changeParent, changeAbstract
    case addAttribute, removeAttribute, renameAttribute, changeType, makeOptional, makeRequired, changeDefault
    case addUnique, removeUnique, addIndex, removeIndex, makeTransient, makePersistent
    case addRelationship, removeRelationship, renameRelationship, changeDestination, changeDeleteRule, changeInverse
    case makeToMany, makeToOne, makeOrdered, makeUnordered, changeCount, changeRelationshipOptional
  }

  /// A property of the stored data the change depends on; checked against the store.
  public enum Condition: Equatable {
    /// No object of the entity lacks a value for the attribute.
    case noNulls(entity: String, attribute: String)
    /// Every stored value converts exactly to the new type.
    case valuesConvert(entity: String, attribute: String, from: AttributeType, to: AttributeType)
    /// The key combination is unique among the stored objects.
    case unique(entity: String, keys: [String])
    /// The entity (exactly, not its sub-entities) has no stored objects.
    case noObjects(entity: String)
    /// No object links to more than one destination through the relationship.
    case atMostOneLink(entity: String, relationship: String)
  }

  public var kind: Kind
  /// The entity, by its new name (the old one for removals).
  public var entity: String
  public var property: String?
  public var message: String
  public var lightweight: Bool
  public var condition: Condition?
  public var mayLoseData: Bool

  public init(
    _ kind: Kind, _ entity: String, _ property: String? = nil, _ message: String, lightweight: Bool = true, condition: Condition? = nil,
    mayLoseData: Bool = false
  ) {
    self.kind = kind
    self.entity = entity
    self.property = property
    self.message = message
    self.lightweight = lightweight
    self.condition = condition
    self.mayLoseData = mayLoseData
  }

  public var json: JSONValue {
    var o: JSONObject = ["kind": .string(kind.rawValue), "entity": .string(entity)]
    if let property { o.append("property", .string(property)) }
    o.append("message", .string(message))
    o.append("lightweight", .bool(lightweight))
    if let condition { o.append("requires", .string(condition.text)) }
    o.append("mayLoseData", .bool(mayLoseData))
    return .object(o)
  }
}

extension SchemaChange.Condition {
  public var text: String {
    switch self {
    case .noNulls(let e, let a): return "every \(e) has a value for '\(a)'"
    case .valuesConvert(let e, let a, let from, let to):
      return "every stored \(e).\(a) converts exactly from \(from.rawValue) to \(to.rawValue)"
    case .unique(let e, let keys): return "no two \(e) objects share \(keys.joined(separator: " + "))"
    case .noObjects(let e): return "no stored \(e) objects"
    case .atMostOneLink(let e, let r): return "no \(e) links to more than one object through '\(r)'"
    }
  }
}
