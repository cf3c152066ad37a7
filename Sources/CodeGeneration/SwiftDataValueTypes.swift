import CoreDataTooling
import SchemaModel

/// The Swift type of each attribute in the SwiftData code: the schema's type, except that a
/// transformable keeps the value class the model declares (with its transformer, for
/// `@Attribute(.transformable(by:))`), a composite attribute is a Codable struct made from the
/// model's `<composite>` definition, and an undefined transient attribute takes its declared
/// class. A system type an entity's name would shadow is qualified (`SwiftTypeSpelling`).
struct SwiftDataValueTypes {
  let details: ModelDetails
  let types: SwiftTypeSpelling
  /// Names the generated code declares (entities and composites): not external.
  let declared: Set<String>

  init(_ generator: SwiftDataGenerator) {
    details = generator.details
    types = generator.types
    declared = Set(SwiftDataGenerator.declaredNames(generator.schema, generator.details))
  }

  /// The transformer of a transformable whose model names none: the secure form of Core Data's
  /// default (`NSKeyedUnarchiveFromData`), which reads the same keyed archives.
  static let defaultTransformer = "NSSecureUnarchiveFromData"

  struct Value {
    /// The type without `?`.
    var type: String
    /// For `@Attribute(.transformable(by:))`.
    var transformer: String?
    /// Documentation lines about the choice.
    var notes: [String] = []
    /// Whether the schema's default value applies (the type is the schema type's own).
    var plain = false
  }

  /// The type of `a` (`key` is `Entity.attribute` or `Composite.field`).
  func attribute(_ a: Attribute, of owner: String) -> Value {
    let key = "\(owner).\(a.name)"
    let declaredClass = details.valueTypes.valueClassNames[key]
    if let transformer = details.valueTypes.transformers[key] {
      var v = Value(type: types.system("NSObject"), transformer: transformer.isEmpty ? Self.defaultTransformer : transformer)
      if let cls = declaredClass, let parsed = DeclaredSwiftType(cls) {
        v.type = parsed.text
      } else if let cls = declaredClass {
        v.notes.append("The model's value class '\(cls)' is not a Swift type: NSObject stands in for it.")
      }
      if transformer.isEmpty {
        v.notes.append(
          "The model names no transformer (Core Data then uses NSKeyedUnarchiveFromData); \(Self.defaultTransformer) reads the same archives."
        )
      }
      return v
    }
    if let composite = details.valueTypes.composites[key], details.valueTypes.compositeTypes.contains(where: { $0.name == composite }) {
      return Value(type: SwiftNames.typeName(composite), notes: ["A Core Data composite: its fields are stored one column each."])
    }
    if a.type == .json, let cls = declaredClass, let parsed = DeclaredSwiftType(cls) { return Value(type: parsed.text) }
    var v = Value(type: types.system(SwiftNames.valueType(a.type)), plain: true)
    if a.type == .json { v.notes.append("A JSON value in the store: decode it into your Codable type.") }
    return v
  }

  /// `name: Type = default` (the default only where it has a Swift form; nil for an optional).
  func declaration(_ a: Attribute, of owner: String) -> String {
    let value = attribute(a, of: owner)
    var expression = value.plain ? a.defaultValue.flatMap { SwiftNames.defaultExpression($0, a.type, types) } : nil
    if expression == nil && a.optional { expression = "nil" }
    return "\(SwiftNames.identifier(a.name)): \(value.type)\(a.optional ? "?" : "")\(expression.map { " = \($0)" } ?? "")"
  }

  /// Types the attributes of `e` use that neither Swift, Foundation nor this code declares.
  func external(of e: Entity) -> [String] { external(e.attributes.map { (e.name, $0) }) }
  func external(of c: ModelValueTypes.Composite) -> [String] { external(c.fields.map { (c.name, $0) }) }

  private func external(_ attributes: [(String, Attribute)]) -> [String] {
    var out: [String] = []
    for (owner, a) in attributes {
      guard let cls = details.valueTypes.valueClassNames["\(owner).\(a.name)"], let parsed = DeclaredSwiftType(cls) else { continue }
      for name in parsed.names where !DeclaredSwiftType.systemNames.contains(name) && !declared.contains(name) && !out.contains(name) {
        out.append(name)
      }
    }
    return out
  }

  /// The Codable struct of a `<composite>` type.
  func compositeText(_ c: ModelValueTypes.Composite, indent: String) -> String {
    var t = "\(indent)/// Core Data composite type `\(c.name)`: stored as one column per field.\n"
    t += "\(indent)struct \(SwiftNames.typeName(c.name)): Codable, Hashable {\n"
    for f in c.fields {
      let value = attribute(f, of: c.name)
      t += "\(indent)  var \(SwiftNames.identifier(f.name)): \(value.type)\(f.optional ? "?" : "")\n"
    }
    return t + "\(indent)}\n"
  }
}
