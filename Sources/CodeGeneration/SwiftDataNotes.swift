import CoreDataTooling
import SchemaModel

/// What a Core Data model has and SwiftData cannot express, as comments at the place in the
/// generated code: derived attributes, fetched properties and fetch request templates (in the
/// class they belong to, where the property would be), validation rules (above the property),
/// configurations and renaming identifiers of entities (in the class's documentation). The
/// import reports each (with its line in the model file); the audit gives the advice.
struct SwiftDataNotes {
  /// Import findings that become comments, by entity: what the class leaves out.
  static let leftOutCodes: Set<String> = ["derivedAttribute", "fetchedProperty", "fetchRequestTemplate"]
  /// By property: what the property's declaration cannot say.
  static let propertyCodes: Set<String> = ["validationRule"]

  private var byEntity: [String: [String]] = [:]
  private var byProperty: [String: [String]] = [:]
  /// Entity → the configurations it is a member of.
  private var configurations: [String: [String]] = [:]

  init(schema: Schema, details: ModelDetails, issues: [ModelImportIssue]) {
    let codes = Self.leftOutCodes.union(Self.propertyCodes)
    let relevant = issues.filter { codes.contains($0.code) }
    guard !relevant.isEmpty || !details.configurations.isEmpty else { return }
    let audit = ModelAudit(schema: schema, importIssues: relevant, details: details, cloudKit: false)
    for f in audit.findings where codes.contains(f.code) {
      guard let entity = f.entity else { continue }
      let place = f.line.map { " (line \($0))" } ?? ""
      let text = ["Not expressible in SwiftData, from the model file\(place): \(f.message).", "  \(f.action)."]
      if Self.propertyCodes.contains(f.code), let property = f.property {
        byProperty["\(entity).\(property)", default: []] += text
      } else {
        byEntity[entity, default: []] += text
      }
    }
    for (name, members) in details.configurations {
      for entity in members { configurations[entity, default: []].append(name) }
    }
  }

  /// `// ` lines for what the class of `entity` leaves out.
  func leftOut(_ entity: String, indent: String) -> String { Self.lines(byEntity[entity] ?? [], indent: indent, prefix: "// ") }

  /// `// ` lines above the declaration of `entity.property`.
  func property(_ entity: String, _ property: String, indent: String) -> String {
    Self.lines(byProperty["\(entity).\(property)"] ?? [], indent: indent, prefix: "// ")
  }

  /// Documentation lines of the class: the configurations that hold it.
  func classDocumentation(_ entity: String, indent: String) -> String {
    guard let names = configurations[entity] else { return "" }
    let list = names.map { "'\($0)'" }.joined(separator: ", ")
    return Self.lines(
      [
        "In the Core Data configuration\(names.count == 1 ? "" : "s") \(list). SwiftData has no configurations in the model: give each store "
          + "its own ModelConfiguration with the classes of its configuration."
      ], indent: indent, prefix: "/// ")
  }

  /// The documentation of a class whose entity the model renames: SwiftData's `@Model` takes
  /// no original name. `previous` is the entity's name in the previous version (nil when there
  /// is none); `identifier` its Core Data renaming identifier.
  static func entityRename(previous: String?, identifier: String?, indent: String) -> String {
    var text: String
    if let previous {
      text = "Was `\(previous)` in the previous version"
      if let identifier { text += " (Core Data renaming identifier `\(identifier)`)" }
      text += ". SwiftData's @Model takes no original name, so a lightweight stage does not keep the objects of a renamed "
      text += "class: keep the old class name, or copy the objects in a custom stage."
    } else if let identifier {
      text = "Original name `\(identifier)` in the model (Core Data's renaming identifier): SwiftData's @Model takes no original "
      text += "name, so a lightweight stage does not keep the objects of a renamed class."
    } else {
      return ""
    }
    return lines([text], indent: indent, prefix: "/// ")
  }

  static func lines(_ texts: [String], indent: String, prefix: String) -> String {
    texts.map { indent + prefix + $0.split(separator: "\n").joined(separator: " ") + "\n" }.joined()
  }
}
