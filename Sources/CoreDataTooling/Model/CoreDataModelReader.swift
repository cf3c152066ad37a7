import SchemaModel

/// Turns the XML of one `.xcdatamodel` (`<model>` from its `contents` file) into a
/// ModelStore schema. Whatever the schema cannot express becomes a warning with its place;
/// whatever it cannot accept becomes an error. The schema is then run through
/// `SchemaValidator` and its findings are reported at the XML element they concern.
struct CoreDataModelReader {
  let file: String
  var issues: [ModelImportIssue] = []
  var details = ModelDetails()
  /// Start-tag positions of entities (`Entity`) and properties (`Entity.property`).
  var positions: [String: (line: Int, column: Int)] = [:]
  /// What the tolerance pass (`CoreDataModelReader+Tolerance`) needs to know of the XML.
  var quirks = Quirks()

  init(file: String) { self.file = file }

  static let modelAttributes: Set<String> = [
    "type", "documentVersion", "lastSavedToolsVersion", "systemVersion", "minimumToolsVersion", "sourceLanguage",
    "userDefinedModelVersionIdentifier", "usedWithCloudKit", "usedWithSwiftData", "name", "macOSVersion", "iOSVersion",
  ]
  static let entityAttributes: Set<String> = [
    "name", "representedClassName", "parentEntity", "isAbstract", "codeGenerationType", "syncable", "elementID",
    "renamingIdentifier", "versionHashModifier", "class",
  ]

  /// Reads `root` (a `<model>` element). `versionName` stands in for the schema version
  /// when the model has no `userDefinedModelVersionIdentifier`.
  static func read(_ root: XMLElement, file: String, versionName: String) -> (Schema, [ModelImportIssue], ModelDetails) {
    var reader = CoreDataModelReader(file: file)
    let schema = reader.model(root, versionName: versionName)
    return (schema, reader.issues, reader.details)
  }

  // MARK: Findings

  mutating func warn(_ code: String, _ message: String, _ e: XMLElement, entity: String? = nil, property: String? = nil) {
    issues.append(ModelImportIssue(.warning, code, message, file: file, line: e.line, column: e.column, entity: entity, property: property))
  }

  mutating func fail(_ code: String, _ message: String, _ e: XMLElement, entity: String? = nil, property: String? = nil) {
    issues.append(ModelImportIssue(.error, code, message, file: file, line: e.line, column: e.column, entity: entity, property: property))
  }

  /// Warns about XML attributes this reader does not know, so nothing is dropped unseen.
  mutating func checkAttributes(_ e: XMLElement, _ known: Set<String>, entity: String? = nil, property: String? = nil) {
    for a in e.attributes where !known.contains(a.name) {
      warn(
        "unrecognized", "attribute '\(a.name)=\"\(a.value)\"' of <\(e.name)> is not understood and was ignored", e, entity: entity,
        property: property)
    }
  }

  /// `YES` / `NO` (Xcode writes only these); anything else is reported and read as NO.
  mutating func flag(_ e: XMLElement, _ name: String, entity: String? = nil, property: String? = nil) -> Bool {
    guard let v = e[attribute: name] else { return false }
    switch v {
    case "YES", "yes", "true", "1": return true
    case "NO", "no", "false", "0": return false
    default:
      warn("badValue", "\(name)=\"\(v)\" is neither YES nor NO; read as NO", e, entity: entity, property: property)
      return false
    }
  }

  /// `<userInfo><entry key=".." value=".."/></userInfo>`: reported, ModelStore has no place
  /// for it. An empty `<userInfo/>` (Xcode writes one for many elements) holds nothing to
  /// lose and is not reported.
  mutating func userInfo(_ e: XMLElement, owner: String, entity: String? = nil, property: String? = nil) {
    let entries = e.children(named: "entry")
    guard !entries.isEmpty else { return }
    let keys = entries.map { $0[attribute: "key"] ?? "?" }
    warn(
      "userInfo", "user info of \(owner) (keys \(keys.map { "'\($0)'" }.joined(separator: ", "))) is not kept", e, entity: entity,
      property: property)
  }

  // MARK: Model

  mutating func model(_ root: XMLElement, versionName: String) -> Schema {
    var schema = Schema(version: versionName.isEmpty ? "1" : versionName)
    guard root.name == "model" else {
      fail("notAModel", "expected a Core Data <model> document, found <\(root.name)>", root)
      return schema
    }
    checkAttributes(root, Self.modelAttributes)
    if let id = root[attribute: "userDefinedModelVersionIdentifier"], !id.isEmpty {
      details.versionIdentifier = id
      schema.version = id
    }
    details.usedWithCloudKit = flag(root, "usedWithCloudKit")
    for child in root.children {
      switch child.name {
      case "entity":
        if let entity = entity(child) { schema.entities.append(entity) }
      case "elements": break  // diagram layout only
      case "fetchRequest":
        let name = child[attribute: "name"] ?? "?"
        let predicate = child[attribute: "predicateString"].map { " with predicate '\($0)'" } ?? ""
        warn(
          "fetchRequestTemplate",
          "fetch request template '\(name)' on '\(child[attribute: "entity"] ?? "?")'\(predicate) is not kept; "
            + "send the same query.fetch (its predicate with $variables) instead", child, entity: child[attribute: "entity"])
      case "configuration":
        let name = child[attribute: "name"] ?? "?"
        let members = child.children(named: "memberEntity").compactMap { $0[attribute: "name"] }
        details.configurations.append((name, members))
        warn(
          "configuration", "configuration '\(name)' (\(members.count) entities) is not kept; a ModelStore store holds every entity",
          child)
      case "composite":
        compositeDefinition(child)
        warn(
          "compositeDefinition",
          "composite type '\(child[attribute: "name"] ?? "?")' is not kept as a type; attributes of Composite type become json",
          child)
      case "userInfo": userInfo(child, owner: "the model")
      default: warn("unrecognized", "element <\(child.name)> inside <model> is not understood and was ignored", child)
      }
    }
    tolerate(&schema)
    validate(schema)
    return schema
  }

  // MARK: Entity

  mutating func entity(_ e: XMLElement) -> Entity? {
    guard let name = e[attribute: "name"], !name.isEmpty else {
      fail("missingName", "<entity> has no name", e)
      return nil
    }
    positions[name] = (e.line, e.column)
    checkAttributes(e, Self.entityAttributes, entity: name)
    var entity = Entity(name: name)
    entity.parent = e[attribute: "parentEntity"]
    entity.abstract = flag(e, "isAbstract", entity: name)
    entity.renamingIdentifier = renamingIdentifier(e, name: name)
    if let cls = e[attribute: "representedClassName"], !cls.isEmpty, cls != name, cls != "." + name {
      details.classNames[name] = cls
      warn(
        "customClass", "entity '\(name)' uses class '\(cls)'; ModelStore names objects by entity, generated code uses '\(name)'",
        e, entity: name)
    }
    if let modifier = e[attribute: "versionHashModifier"] {
      warn("versionHashModifier", "version hash modifier '\(modifier)' of '\(name)' is not kept", e, entity: name)
    }
    for child in e.children {
      switch child.name {
      case "attribute":
        if let a = attribute(child, entity: name) { entity.attributes.append(a) }
      case "relationship":
        guard let r = relationship(child, entity: name) else { continue }
        entity.relationships.append(r)
        if flag(child, "indexed", entity: name, property: r.name) {  // legacy: an index on a to-one's column
          if r.toMany {
            warn("indexType", "to-many relationship '\(name).\(r.name)' is marked indexed; ignored", child, entity: name, property: r.name)
          } else {
            entity.indexes.append([r.name])
          }
        }
      case "fetchedProperty":
        let property = child[attribute: "name"] ?? "?"
        let request = child.firstChild(named: "fetchRequest")
        let predicate = request?[attribute: "predicateString"].map { " where '\($0)'" } ?? ""
        warn(
          "fetchedProperty",
          "fetched property '\(name).\(property)' (\(request?[attribute: "entity"] ?? "?")\(predicate)) is not kept; "
            + "query it with query.fetch",
          child, entity: name, property: property)
      case "fetchIndex": fetchIndex(child, into: &entity)
      case "compoundIndexes":
        for index in child.children(named: "compoundIndex") {
          let elements = index.children(named: "index").filter { $0[attribute: "value"] != nil }
          guard !elements.isEmpty else { continue }
          quirks.indexPlaces[name, default: [:]][entity.indexes.count] = elements.map {
            Quirks.Place(line: $0.line, column: $0.column, what: "compound index")
          }
          entity.indexes.append(elements.compactMap { $0[attribute: "value"] })
        }
      case "uniquenessConstraints":
        for constraint in child.children(named: "uniquenessConstraint") {
          let keys = constraint.children(named: "constraint").compactMap { $0[attribute: "value"] }
          if !keys.isEmpty { entity.uniqueness.append(keys) }
        }
      case "userInfo": userInfo(child, owner: "entity '\(name)'", entity: name)
      default:
        warn("unrecognized", "element <\(child.name)> inside entity '\(name)' is not understood and was ignored", child, entity: name)
      }
    }
    return entity
  }

  /// `elementID` (what Xcode writes for the renaming identifier) or `renamingIdentifier`,
  /// when it differs from the element's name in ModelStore (`name`). `coreDataName` is the
  /// name in the model file when ModelStore changed it: Core Data identifies an element
  /// without an identifier by that name. (`originalName` is set per version afterwards,
  /// from the previous version: `Schema.withOriginalNames`.)
  func renamingIdentifier(_ e: XMLElement, name: String, coreDataName: String? = nil) -> String? {
    let given = (e[attribute: "renamingIdentifier"] ?? e[attribute: "elementID"]).flatMap { $0.isEmpty ? nil : $0 }
    guard let id = given ?? coreDataName, id != name else { return nil }
    return id
  }

  mutating func fetchIndex(_ e: XMLElement, into entity: inout Entity) {
    let indexName = e[attribute: "name"] ?? "?"
    var keys: [String] = []
    var places: [Quirks.Place] = []
    for element in e.children(named: "fetchIndexElement") {
      guard let property = element[attribute: "property"] else {
        let expression = element[attribute: "expression"].map { " '\($0)'" } ?? ""
        warn(
          "expressionIndex", "fetch index '\(indexName)' of '\(entity.name)' indexes an expression\(expression); it is left out",
          element, entity: entity.name)
        continue
      }
      if let type = element[attribute: "type"], type != "Binary" {
        warn(
          "indexType", "fetch index '\(indexName)' of '\(entity.name)' is of type \(type); ModelStore keeps it as an ordinary index",
          element, entity: entity.name, property: property)
      }
      if element[attribute: "order"] == "descending" {
        warn(
          "indexOrder", "fetch index '\(indexName)' of '\(entity.name)' orders '\(property)' descending; ModelStore indexes ascending",
          element, entity: entity.name, property: property)
      }
      keys.append(property)
      places.append(Quirks.Place(line: element.line, column: element.column, what: "fetch index '\(indexName)'"))
    }
    if !keys.isEmpty {
      quirks.indexPlaces[entity.name, default: [:]][entity.indexes.count] = places
      entity.indexes.append(keys)
    }
  }

  // MARK: Validation

  /// Runs `SchemaValidator` and reports its findings at the entity or property they concern.
  mutating func validate(_ schema: Schema) {
    for issue in SchemaValidator.validate(schema) {
      let place = issue.property.flatMap { p in issue.entity.flatMap { positions["\($0).\(p)"] } } ?? issue.entity.flatMap { positions[$0] }
      issues.append(
        ModelImportIssue(
          issue.severity == .error ? .error : .warning, issue.code, issue.message, file: file, line: place?.line, column: place?.column,
          entity: issue.entity, property: issue.property))
    }
  }
}
