import JSONCore
import SchemaModel

/// Attributes and relationships of one entity (see `CoreDataModelReader`).
extension CoreDataModelReader {
  static let attributeAttributes: Set<String> = [
    "name", "optional", "transient", "attributeType", "defaultValueString", "defaultDateTimeInterval", "usesScalarValueType",
    "valueTransformerName", "customClassName", "minValueString", "maxValueString", "regularExpressionString",
    "allowsExternalBinaryDataStorage", "allowsCloudEncryption", "preserveAfterDeletion", "derived", "derivationExpression", "indexed",
    "spotlightIndexingEnabled", "indexedBySpotlight", "storedInTruthFile", "elementID", "renamingIdentifier", "versionHashModifier",
    "syncable", "composite",
  ]
  static let relationshipAttributes: Set<String> = [
    "name", "optional", "toMany", "minCount", "maxCount", "ordered", "deletionRule", "destinationEntity", "inverseName", "inverseEntity",
    "transient", "indexed", "elementID", "renamingIdentifier", "versionHashModifier", "syncable", "spotlightIndexingEnabled",
    "indexedBySpotlight",
    "storedInTruthFile", "preserveAfterDeletion", "allowsCloudEncryption",
  ]

  /// The property's name (recording its position and checking its XML attributes), or
  /// nil after reporting that it has none.
  mutating func propertyName(_ e: XMLElement, entity: String, known: Set<String>) -> String? {
    guard let name = e[attribute: "name"], !name.isEmpty else {
      fail("missingName", "a <\(e.name)> of '\(entity)' has no name", e, entity: entity)
      return nil
    }
    positions["\(entity).\(name)"] = (e.line, e.column)
    checkAttributes(e, known, entity: entity, property: name)
    return name
  }

  mutating func attribute(_ e: XMLElement, entity: String) -> Attribute? {
    guard let name = propertyName(e, entity: entity, known: Self.attributeAttributes) else { return nil }
    let key = "\(entity).\(name)"
    let transient = flag(e, "transient", entity: entity, property: name)
    if flag(e, "derived", entity: entity, property: name) {
      let expression = e[attribute: "derivationExpression"].map { " ('\($0)')" } ?? ""
      warn(
        "derivedAttribute", "derived attribute '\(key)'\(expression) is left out; compute it in a query (e.g. @count, a key path)", e,
        entity: entity, property: name)
      if !transient { details.derivedAttributes.insert(key) }
      return nil
    }
    // Xcode writes a transient attribute of type Undefined without `attributeType`.
    guard let typeName = e[attribute: "attributeType"] ?? (transient ? "Undefined" : nil) else {
      fail("missingType", "attribute '\(key)' has no attributeType", e, entity: entity, property: name)
      return nil
    }
    guard let type = attributeType(typeName, e, entity: entity, property: name, transient: transient) else { return nil }
    var a = Attribute(name: name, type: type)
    a.optional = flag(e, "optional", entity: entity, property: name)
    a.transient = transient
    a.indexed = flag(e, "indexed", entity: entity, property: name)
    a.renamingIdentifier = renamingIdentifier(e, name: name)
    a.defaultValue = defaultValue(e, type: type, entity: entity, property: name)
    if transient && !a.optional && a.defaultValue == nil {
      // Core Data never stores the value; a ModelStore transient must be optional or have a default.
      warn(
        "transientRequired",
        "transient attribute '\(key)' is required and has no default; ModelStore keeps it optional (it is never stored)", e,
        entity: entity, property: name)
      a.optional = true
    }
    if flag(e, "usesScalarValueType", entity: entity, property: name) { details.scalarAttributes.insert(key) }
    recordValueClass(e, key: key, transformable: typeName == "Transformable")
    if flag(e, "allowsExternalBinaryDataStorage", entity: entity, property: name) {
      details.externalStorage.insert(key)
      warn(
        "externalStorage",
        "'\(key)' allows external storage; ModelStore keeps the bytes in the store (SwiftData: @Attribute(.externalStorage))",
        e, entity: entity, property: name)
    }
    for (attr, what) in [("minValueString", "minimum"), ("maxValueString", "maximum"), ("regularExpressionString", "pattern")] {
      if let v = e[attribute: attr] {
        warn(
          "validationRule", "\(what) '\(v)' of '\(key)' is not enforced (ModelStore schemas have no validation rules)", e,
          entity: entity, property: name)
      }
    }
    propertyOptions(e, kind: "attribute", entity: entity, property: name)
    return a
  }

  /// Core Data's `attributeType` names to ModelStore types, with a warning where meaning changes.
  mutating func attributeType(_ name: String, _ e: XMLElement, entity: String, property: String, transient: Bool) -> AttributeType? {
    let key = "\(entity).\(property)"
    switch name {
    case "Integer 16": return .int16
    case "Integer 32": return .int32
    case "Integer 64": return .int64
    case "Decimal": return .decimal
    case "Double": return .double
    case "Float": return .float
    case "String": return .string
    case "Boolean": return .bool
    case "Date": return .date
    case "Binary": return .data
    case "UUID": return .uuid
    case "URI": return .url
    case "Transformable":
      var how: [String] = []
      if let t = e[attribute: "valueTransformerName"] { how.append("transformer '\(t)'") }
      if let c = e[attribute: "customClassName"] { how.append("class '\(c)'") }
      let using = how.isEmpty ? "" : " (\(how.joined(separator: ", ")))"
      warn(
        "transformable",
        "transformable '\(key)'\(using) is stored as data (the transformer's bytes); in SwiftData it becomes a Codable type",
        e, entity: entity, property: property)
      return .data
    case "Composite":
      let composite = e[attribute: "composite"].map { " '\($0)'" } ?? ""
      warn(
        "composite", "composite\(composite) attribute '\(key)' is stored as json; in SwiftData it is a Codable struct", e, entity: entity,
        property: property)
      return .json
    case "Undefined" where transient:
      let how = e[attribute: "attributeType"] == nil ? "has no attributeType (Undefined)" : "is of Undefined type"
      warn("undefinedType", "transient attribute '\(key)' \(how); it is kept as json", e, entity: entity, property: property)
      return .json
    case "Undefined", "ObjectID":
      fail(
        "unsupportedType", "attribute '\(key)' has type \(name), which a stored attribute cannot have", e, entity: entity,
        property: property)
      return nil
    default:
      fail("unknownType", "attribute '\(key)' has unknown attributeType '\(name)'", e, entity: entity, property: property)
      return nil
    }
  }

  /// `defaultValueString` read for the type (`defaultDateTimeInterval` for dates: seconds
  /// since 2001-01-01T00:00:00Z). A value that does not read is reported and left out.
  mutating func defaultValue(_ e: XMLElement, type: AttributeType, entity: String, property: String) -> DefaultValue? {
    let key = "\(entity).\(property)"
    if type == .date, let interval = e[attribute: "defaultDateTimeInterval"] {
      guard let seconds = Double(interval), ISODate.hasCalendarDate(seconds + 978_307_200) else {
        warn(
          "badDefault", "defaultDateTimeInterval '\(interval)' of '\(key)' is not a number of seconds with a calendar date; left out", e,
          entity: entity, property: property
        )
        return nil
      }
      return .literal(.string(ISODate.format(seconds + 978_307_200)))
    }
    guard let text = e[attribute: "defaultValueString"] else { return nil }
    if let value = Self.defaultLiteral(text, type) { return .literal(value) }
    if type == .date, text.lowercased() == "now" { return .generate(.now) }
    warn(
      "badDefault", "default '\(text)' of '\(key)' is not a \(type.rawValue) value; left out", e, entity: entity, property: property)
    return nil
  }

  static func defaultLiteral(_ text: String, _ type: AttributeType) -> JSONValue? {
    switch type {
    case .int, .int16, .int32, .int64:
      if let i = Int64(text) { return .int(i) }
      if let d = Double(text), d.rounded() == d, abs(d) < 9.2e18 { return .int(Int64(d)) }
      return nil
    case .double, .float: return Double(text).map { .double($0) }
    case .decimal:
      return DecimalText.canonical(text).map { .string($0) }
        ?? Double(text).flatMap { DecimalText.canonical(String($0)) }.map { .string($0) }
    case .bool:
      switch text {
      case "YES", "yes", "true", "TRUE": return .bool(true)
      case "NO", "no", "false", "FALSE": return .bool(false)
      default: return Double(text).map { .bool($0 != 0) }  // Core Data keeps Booleans as numbers: "0.0" is NO
      }
    case .string: return .string(text)
    case .uuid: return UUIDText.canonical(text).map { .string($0) }
    case .url: return text.isEmpty ? nil : .string(text)
    case .date: return ISODate.parse(text).map { .string(ISODate.format($0)) }
    case .data, .json: return nil
    }
  }

  mutating func relationship(_ e: XMLElement, entity: String) -> Relationship? {
    guard let declared = propertyName(e, entity: entity, known: Self.relationshipAttributes) else { return nil }
    let name = relationshipName(declared, e, entity: entity)
    let key = "\(entity).\(name)"
    guard let destination = e[attribute: "destinationEntity"], !destination.isEmpty else {
      fail("missingDestination", "relationship '\(key)' has no destinationEntity", e, entity: entity, property: name)
      return nil
    }
    var r = Relationship(name: name, destination: destination)
    r.inverse = e[attribute: "inverseName"]
    if let inverseEntity = e[attribute: "inverseEntity"], inverseEntity != destination {
      warn(
        "inverseEntity", "inverse of '\(key)' is declared on '\(inverseEntity)', not on its destination '\(destination)'", e,
        entity: entity, property: name)
    }
    r.toMany = flag(e, "toMany", entity: entity, property: name)
    r.optional = flag(e, "optional", entity: entity, property: name)
    r.renamingIdentifier = renamingIdentifier(e, name: name, coreDataName: declared)
    switch e[attribute: "deletionRule"] ?? "Nullify" {
    case "Nullify": r.deleteRule = .nullify
    case "Cascade": r.deleteRule = .cascade
    case "Deny": r.deleteRule = .deny
    case "No Action": r.deleteRule = .noAction
    case let other:
      fail("unknownDeleteRule", "relationship '\(key)' has unknown deletionRule '\(other)'", e, entity: entity, property: name)
    }
    if flag(e, "ordered", entity: entity, property: name) {
      if r.toMany {
        r.ordered = true
      } else {
        warn("orderedToOne", "to-one relationship '\(key)' is marked ordered; ignored", e, entity: entity, property: name)
      }
    }
    if r.toMany {
      r.minCount = count(e, "minCount", key: key, entity: entity, property: name)
      r.maxCount = count(e, "maxCount", key: key, entity: entity, property: name)
    }
    propertyOptions(e, kind: "relationship", entity: entity, property: name)
    if flag(e, "transient", entity: entity, property: name) {
      // Core Data keeps it in memory only: its store has no column or join table for it.
      warn(
        "transientRelationship",
        "transient relationship '\(key)' is not stored by Core Data (no column, no join table); ModelStore leaves it out", e,
        entity: entity, property: name)
      quirks.transientRelationships.insert(key)
      return nil
    }
    return r
  }

  /// The name ModelStore gives a relationship: Core Data accepts one that starts with an
  /// uppercase letter (hand-edited models ship with them); ModelStore's property names start
  /// lowercase, so its first letter is lowered, with a warning. The Core Data column
  /// (`Z` + the name in upper case) is the same either way.
  mutating func relationshipName(_ name: String, _ e: XMLElement, entity: String) -> String {
    guard let first = name.unicodeScalars.first, first.properties.isUppercase, first.isASCII else { return name }
    let lowered = first.properties.lowercaseMapping + String(name.unicodeScalars.dropFirst())
    guard Names.propertyNameProblem(lowered) == nil else { return name }
    warn(
      "relationshipName",
      "relationship '\(entity).\(name)' starts with an uppercase letter, which Core Data accepts; ModelStore names it '\(lowered)' "
        + "(its Core Data column Z\(name.uppercased()) is the same)", e, entity: entity, property: lowered)
    quirks.renamedRelationships["\(entity).\(name)"] = lowered
    positions["\(entity).\(lowered)"] = (e.line, e.column)
    return lowered
  }

  /// What attributes and relationships share and ModelStore does not keep: CloudKit
  /// encryption, history and Spotlight options, version hash modifiers, user info; and
  /// child elements it does not know.
  mutating func propertyOptions(_ e: XMLElement, kind: String, entity: String, property: String) {
    let key = "\(entity).\(property)"
    for (attr, what) in [
      ("allowsCloudEncryption", "CloudKit encryption"), ("preserveAfterDeletion", "preserving the value in history after deletion"),
      ("spotlightIndexingEnabled", "Spotlight indexing"), ("indexedBySpotlight", "Spotlight indexing"),
    ] where flag(e, attr, entity: entity, property: property) {
      warn("unsupportedOption", "\(what) of '\(key)' is not kept", e, entity: entity, property: property)
    }
    if let modifier = e[attribute: "versionHashModifier"] {
      warn("versionHashModifier", "version hash modifier '\(modifier)' of '\(key)' is not kept", e, entity: entity, property: property)
    }
    for child in e.children {
      if child.name == "userInfo" {
        userInfo(child, owner: "'\(key)'", entity: entity, property: property)
      } else {
        warn(
          "unrecognized", "element <\(child.name)> inside \(kind) '\(key)' is not understood and was ignored", child, entity: entity,
          property: property)
      }
    }
  }

  /// A to-many count bound; 0 means none.
  mutating func count(_ e: XMLElement, _ attr: String, key: String, entity: String, property: String) -> Int? {
    guard let text = e[attribute: attr] else { return nil }
    guard let n = Int(text), n >= 0, n <= Int(Int32.max) else {
      warn("badValue", "\(attr)=\"\(text)\" of '\(key)' is not a count; ignored", e, entity: entity, property: property)
      return nil
    }
    return n == 0 ? nil : n
  }
}
