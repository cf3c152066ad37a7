import SchemaModel

/// What the model file says about the Swift types of values the schema keeps as `data` or
/// `json`: the class and transformer of a transformable attribute, the `<composite>` types and
/// which attribute uses which. The SwiftData generator declares the values with these types.
public struct ModelValueTypes: Equatable, Sendable {
  /// A `<composite>` type (Core Data composite attributes): its fields as attributes. A field
  /// of Composite type is `.json`, its type named in `composites` under `Type.field`.
  public struct Composite: Equatable, Sendable {
    public var name: String
    public var fields: [Attribute]
    public init(name: String, fields: [Attribute]) {
      self.name = name
      self.fields = fields
    }
  }

  /// `Entity.attribute` → `customClassName` (the value class of a transformable or undefined attribute).
  public var valueClassNames: [String: String] = [:]
  /// `Entity.attribute` → `valueTransformerName` of every transformable attribute ("" when the model names none).
  public var transformers: [String: String] = [:]
  /// `Entity.attribute` (or `Composite.field`) → the name of its `<composite>` type.
  public var composites: [String: String] = [:]
  /// The model's `<composite>` types, in file order.
  public var compositeTypes: [Composite] = []

  public init() {}
}

extension CoreDataModelReader {
  /// Core Data `attributeType` names of the types a composite field can have.
  static let compositeFieldTypes: [String: AttributeType] = [
    "Integer 16": .int16, "Integer 32": .int32, "Integer 64": .int64, "Decimal": .decimal, "Double": .double, "Float": .float,
    "String": .string, "Boolean": .bool, "Date": .date, "Binary": .data, "UUID": .uuid, "URI": .url, "Composite": .json,
  ]

  /// Records the value class and transformer of a transformable attribute (`transformable`
  /// false: only a `customClassName`, as an undefined transient attribute may give).
  mutating func recordValueClass(_ e: XMLElement, key: String, transformable: Bool) {
    if let cls = e[attribute: "customClassName"], !cls.isEmpty { details.valueTypes.valueClassNames[key] = cls }
    if transformable { details.valueTypes.transformers[key] = e[attribute: "valueTransformerName"] ?? "" }
    if let composite = e[attribute: "composite"], !composite.isEmpty { details.valueTypes.composites[key] = composite }
  }

  /// A `<composite name="..."><attribute .../>...</composite>` definition: its fields with
  /// their types and optionality (a field of a type a composite cannot hold is reported).
  mutating func compositeDefinition(_ e: XMLElement) {
    guard let name = e[attribute: "name"], !name.isEmpty else { return }
    var fields: [Attribute] = []
    for child in e.children(named: "attribute") {
      guard let field = child[attribute: "name"], !field.isEmpty else { continue }
      guard let type = child[attribute: "attributeType"].flatMap({ Self.compositeFieldTypes[$0] }) else {
        warn(
          "compositeField", "field '\(name).\(field)' of type '\(child[attribute: "attributeType"] ?? "none")' cannot be in a composite",
          child)
        continue
      }
      var a = Attribute(name: field, type: type)
      a.optional = flag(child, "optional")
      fields.append(a)
      recordValueClass(child, key: "\(name).\(field)", transformable: false)
    }
    details.valueTypes.compositeTypes.append(.init(name: name, fields: fields))
  }
}
