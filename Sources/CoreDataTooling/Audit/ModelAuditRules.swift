import SchemaModel

/// The checks behind `ModelAudit`, one method per kind of model element.
package struct ModelAuditRun {
  let schema: Schema
  let details: ModelDetails
  let cloudKit: Bool
  var findings: [ModelAudit.Finding] = []

  /// Swift keywords that cannot name a type or property without backticks.
  package static let swiftKeywords: Set<String> = [
    "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init", "inout", "internal", "let",
    "open", "operator", "private", "precedencegroup", "protocol", "public", "rethrows", "static", "struct", "subscript", "typealias",
    "var", "break", "case", "catch", "continue", "default", "defer", "do", "else", "fallthrough", "for", "guard", "if", "in", "repeat",
    "return", "throw", "switch", "where", "while", "Any", "as", "await", "false", "is", "nil", "self", "Self", "super", "throws", "true",
    "try", "Type", "Protocol",
  ]
  /// Members of `PersistentModel`, `NSManagedObject`, `NSObject` and `Identifiable` that a
  /// stored property of the same name would hide or clash with.
  static let memberNames: Set<String> = [
    "id", "description", "debugDescription", "hash", "hashValue", "modelContext", "persistentModelID", "hasChanges", "isDeleted",
    "isInserted", "isUpdated", "isFault", "entity", "objectID", "managedObjectContext", "changedValues", "context", "schemaMetadata",
    "persistentBackingData", "className", "classForCoder", "version", "type",
  ]
  /// Type names of the Swift standard library, Foundation, SwiftUI, SwiftData and RealityKit
  /// that an entity's class of the same name would shadow, with the module that declares them
  /// ("" when several frameworks have one).
  static let typeModules: [String: String] = [
    "Task": "Swift", "Set": "Swift", "Array": "Swift", "Dictionary": "Swift", "String": "Swift", "Int": "Swift", "Double": "Swift",
    "Float": "Swift", "Bool": "Swift", "Error": "Swift", "Result": "Swift", "Optional": "Swift", "Character": "Swift", "Range": "Swift",
    "Codable": "Swift", "Sequence": "Swift", "Collection": "Swift", "Never": "Swift", "Void": "Swift", "Data": "Foundation",
    "Date": "Foundation", "URL": "Foundation", "UUID": "Foundation", "Decimal": "Foundation", "Predicate": "Foundation",
    "Expression": "Foundation", "Timer": "Foundation", "Locale": "Foundation", "Calendar": "Foundation", "TimeZone": "Foundation",
    "Notification": "Foundation", "Operation": "Foundation", "Thread": "Foundation", "Process": "Foundation", "Bundle": "Foundation",
    "Measurement": "Foundation", "Unit": "Foundation", "Model": "SwiftData", "Schema": "SwiftData", "Attribute": "SwiftData",
    "Relationship": "SwiftData", "Index": "SwiftData", "Unique": "SwiftData", "History": "SwiftData", "Query": "SwiftData",
    "Group": "SwiftUI", "Section": "SwiftUI", "Image": "SwiftUI", "Color": "SwiftUI", "Text": "SwiftUI", "List": "SwiftUI",
    "View": "SwiftUI", "Scene": "SwiftUI", "App": "SwiftUI", "Label": "SwiftUI", "Link": "SwiftUI", "Menu": "SwiftUI",
    "Table": "SwiftUI", "Form": "SwiftUI", "Transaction": "SwiftUI", "Binding": "SwiftUI", "State": "SwiftUI",
    "Environment": "SwiftUI", "Entity": "RealityKit", "Event": "",
  ]

  init(schema: Schema, details: ModelDetails, cloudKit: Bool) {
    self.schema = schema
    self.details = details
    self.cloudKit = cloudKit
  }

  mutating func add(
    _ category: ModelAudit.Category, _ code: String, _ message: String, _ action: String, entity: String?, property: String? = nil
  ) {
    findings.append(.init(category: category, code: code, message: message, action: action, entity: entity, property: property))
  }

  /// A finding of the import (something the schema could not carry) placed in its category.
  mutating func importFinding(_ issue: ModelImportIssue) {
    let mapped: (ModelAudit.Category, String)?
    switch issue.code {
    case "derivedAttribute": mapped = (.unsupported, "SwiftData has no derived attributes: compute the value in code or in a query")
    case "fetchedProperty": mapped = (.unsupported, "SwiftData has no fetched properties: use a FetchDescriptor (or query.fetch) instead")
    case "fetchRequestTemplate":
      mapped = (.unsupported, "SwiftData has no fetch request templates: build a FetchDescriptor with a #Predicate")
    case "validationRule":
      mapped = (.unsupported, "SwiftData has no validation rules: check the value in code before saving")
    case "expressionIndex": mapped = (.unsupported, "#Index takes key paths only: index a stored property instead")
    case "configuration" where details.configurations.count > 1:
      mapped = (.unsupported, "several configurations (stores) need one ModelConfiguration per store with its own model subset")
    case "configuration": mapped = (.needsAttention, "use one ModelConfiguration; the configuration name is not needed")
    case "transformable":
      mapped = (.needsAttention, "write a Codable type for the value (or keep Data with @Attribute(.transformable(by:)))")
    case "composite": mapped = (.needsAttention, "declare a Codable struct with the composite's fields")
    case "customClass":
      mapped = (.needsAttention, "the @Model class takes the entity name; rename one or use @Attribute(originalName:) for renames")
    case "userInfo": mapped = (.needsAttention, "move the information into code (SwiftData has no user info)")
    case "versionHashModifier": mapped = (.needsAttention, "use the hashModifier: argument of @Attribute / @Relationship")
    case "indexOrder", "indexType":
      mapped = (.needsAttention, "#Index is ascending binary by default; use .rtree([...]) for R-tree indexes")
    case "unsupportedOption":
      mapped = (.needsAttention, "use the matching @Attribute option (.allowsCloudEncryption, .preserveValueOnDeletion, .spotlight)")
    case "transientRelationship": mapped = (.needsAttention, "SwiftData relationships are stored; keep the link in a @Transient property")
    case "undefinedType": mapped = (.needsAttention, "give the transient property a concrete Swift type and mark it @Transient")
    case "relationshipName":
      mapped = (.needsAttention, "Swift property names start lowercase: the generated property takes the lowered name (same store column)")
    case "toManyIndex": mapped = (.needsAttention, "#Index takes attributes and to-one relationships: leave the to-many out of it")
    case "inverseIgnored":
      mapped = (.needsAttention, "make the two relationships name each other (@Relationship(inverse:)), or drop the one-sided inverse")
    case "transientRequired": mapped = (.needsAttention, "@Transient properties need a default value (or make it optional)")
    case "unrecognized", "badValue", "badDefault", "inverseEntity", "orderedToOne":
      mapped = (.needsAttention, "check the model file at this place")
    case "externalStorage", "missingInverse", "abstractWithoutSubentities": mapped = nil  // checked on the schema below
    default:
      mapped = issue.severity == .error ? (.needsAttention, "fix the model: ModelStore (and SwiftData) cannot use it as it is") : nil
    }
    guard let (category, action) = mapped else { return }
    findings.append(
      .init(
        category: category, code: issue.code, message: issue.message, action: action, entity: issue.entity, property: issue.property,
        file: issue.file, line: issue.line))
  }

  mutating func check(_ e: Entity) {
    if Self.swiftKeywords.contains(e.name) {
      add(
        .needsAttention, "reservedWord", "entity name '\(e.name)' is a Swift keyword", "rename the entity (or escape it with backticks)",
        entity: e.name)
    }
    if let module = Self.typeModules[e.name] {
      let framework = module.isEmpty ? "a system framework's" : "the \(module)"
      let qualified = module.isEmpty ? "with its module" : "as \(module).\(e.name)"
      add(
        .needsAttention, "typeNameClash", "a class named '\(e.name)' shadows \(framework) type of that name",
        "rename the entity (e.g. '\(e.name)Item') or write the system type \(qualified)", entity: e.name)
    }
    if details.classNames[e.name] == nil {
      add(
        .needsAttention, "coexistenceClassName",
        "the Core Data class of '\(e.name)' and the SwiftData @Model class would both be named '\(e.name)'",
        "while both stacks coexist, give the Core Data class another name (representedClassName, e.g. 'CD\(e.name)')", entity: e.name)
    }
    if e.abstract {
      add(
        .needsAttention, "abstractEntity", "'\(e.name)' is abstract; a @Model class cannot be",
        "make it a plain base class that is never inserted (inheritance needs iOS 26 / macOS 26)", entity: e.name)
    }
    if let parent = e.parent {
      add(
        .needsAttention, "inheritance", "'\(e.name)' inherits from '\(parent)'",
        "@Model subclasses need iOS 26 / macOS 26; for older systems flatten the hierarchy", entity: e.name)
    }
    if cloudKit && !e.uniqueness.isEmpty {
      add(
        .needsAttention, "cloudKitUnique", "'\(e.name)' has uniqueness constraints, which CloudKit sync does not allow",
        "drop #Unique and de-duplicate in code", entity: e.name)
    }
    for a in e.attributes { check(a, in: e) }
    for r in e.relationships { check(r, in: e) }
  }

  mutating func checkName(_ name: String, in e: Entity) {
    if Self.swiftKeywords.contains(name) {
      add(
        .needsAttention, "reservedWord", "'\(e.name).\(name)' is a Swift keyword", "rename it, or escape it with backticks", entity: e.name,
        property: name)
    }
    if Self.memberNames.contains(name) {
      add(
        .needsAttention, "memberClash", "'\(e.name).\(name)' clashes with a member of PersistentModel / NSManagedObject / Identifiable",
        "rename the property and keep the old name with @Attribute(originalName: \"\(name)\")", entity: e.name, property: name)
    }
  }

  mutating func check(_ a: Attribute, in e: Entity) {
    checkName(a.name, in: e)
    let key = "\(e.name).\(a.name)"
    if a.type == .int16 || a.type == .int32 {
      add(
        .needsAttention, "integerWidth", "'\(key)' is \(a.type == .int16 ? "Integer 16" : "Integer 32"); SwiftData models usually use Int",
        "declare it \(a.type == .int16 ? "Int16" : "Int32") to keep the stored width, or Int (64-bit) with a migration", entity: e.name,
        property: a.name)
    }
    if a.transient && !a.optional && a.defaultValue == nil {
      add(
        .needsAttention, "transientWithoutDefault", "transient '\(key)' has no default", "@Transient properties need a default value",
        entity: e.name, property: a.name)
    }
    if cloudKit && !a.optional && a.defaultValue == nil && !a.transient {
      add(
        .needsAttention, "cloudKitRequired", "'\(key)' is required and has no default, which CloudKit sync does not allow",
        "make it optional or give it a default", entity: e.name, property: a.name)
    }
    if cloudKit && a.unique {
      add(
        .needsAttention, "cloudKitUnique", "'\(key)' is unique, which CloudKit sync does not allow",
        "drop .unique and de-duplicate in code", entity: e.name, property: a.name)
    }
    if cloudKit && a.originalName != nil {
      add(
        .needsAttention, "cloudKitRename", "'\(key)' is renamed (originalName), which CloudKit's schema does not allow",
        "add a new property and copy the values in a custom migration stage", entity: e.name, property: a.name)
    }
  }

  mutating func check(_ r: Relationship, in e: Entity) {
    checkName(r.name, in: e)
    let key = "\(e.name).\(r.name)"
    if r.ordered {
      add(
        .needsAttention, "orderedRelationship", "'\(key)' is ordered; SwiftData to-many relationships are unordered arrays",
        "add an explicit order key on '\(r.destination)' (e.g. 'position: Int') and sort by it", entity: e.name, property: r.name)
    }
    if r.inverse == nil {
      add(
        .needsAttention, "missingInverse", "'\(key)' has no inverse",
        "add the inverse relationship on '\(r.destination)' and name it with @Relationship(inverse:) (CloudKit requires inverses)",
        entity: e.name, property: r.name)
    }
    if r.deleteRule == .deny {
      add(
        .needsAttention, "denyRule", "'\(key)' uses the Deny delete rule, which SwiftData does not reliably enforce",
        "check for related objects before deleting" + (cloudKit ? "; CloudKit does not support Deny at all" : ""), entity: e.name,
        property: r.name)
    }
    if r.deleteRule == .noAction {
      add(
        .needsAttention, "noActionRule", "'\(key)' uses No Action: deleting leaves dangling references",
        "clear the references yourself, or use .nullify", entity: e.name, property: r.name)
    }
    if cloudKit && r.toMany && !r.optional {
      add(
        .needsAttention, "cloudKitRequiredRelationship", "to-many '\(key)' is not optional, which CloudKit sync does not allow",
        "make the relationship optional", entity: e.name, property: r.name)
    }
    if cloudKit && !r.toMany && !r.optional {
      add(
        .needsAttention, "cloudKitRequiredRelationship", "to-one '\(key)' is required, which CloudKit sync does not allow",
        "make the relationship optional", entity: e.name, property: r.name)
    }
  }
}
