import JSONCore
import SchemaModel

/// The columns of one entity's CSV: `_id`, then the stored attributes of the entity and
/// of its sub-entities (each name once, the entity's own first). Relationships are not
/// written or read: a CSV holds one entity's values.
struct CSVColumns {
  let entity: EntityModel
  /// Attribute by column name, for every column but `_id`.
  let attributes: [String: Attribute]
  /// Every column an export writes, `_id` first.
  let names: [String]

  init(_ entity: EntityModel, graph: ModelGraph) {
    self.entity = entity
    var attributes: [String: Attribute] = [:]
    var names = ["_id"]
    for model in [entity] + entity.descendants {
      for a in model.attributes where !a.transient && attributes[a.name] == nil {
        attributes[a.name] = a
        names.append(a.name)
      }
    }
    self.attributes = attributes
    self.names = names
  }

  /// The wire value of one field read for `attribute`, or nil for no value (an empty
  /// field; the empty string for a `string` attribute when quoted). Numbers, booleans
  /// and `json` are converted here; other types travel as text and the engine checks them
  /// as it checks any wire value.
  static func value(_ field: CSVText.Field, _ attribute: Attribute, line: Int, column: Int) throws -> JSONValue? {
    let text = field.text
    if text.isEmpty { return attribute.type == .string && field.quoted ? .string("") : nil }
    func refuse(_ expected: String) -> StoreError {
      CSVText.error(line, column, "'\(attribute.name)' is \(attribute.type.rawValue): expected \(expected), got '\(text.prefix(80))'")
    }
    switch attribute.type {
    case .int, .int16, .int32, .int64:
      guard let n = Int64(text.trimmingSpaces) else { throw refuse("an integer") }
      return .int(n)
    case .double, .float:
      guard let d = Double(text.trimmingSpaces), d.isFinite else { throw refuse("a finite number") }
      return .double(d)
    case .bool:
      switch text.trimmingSpaces.lowercased() {
      case "true", "1", "yes": return .bool(true)
      case "false", "0", "no": return .bool(false)
      default: throw refuse("true or false (or 1/0, yes/no)")
      }
    case .json:
      do { return try JSONParser.parse(text) } catch { throw refuse("JSON text") }
    case .string, .decimal, .date, .uuid, .data, .url:
      return .string(text)
    }
  }
}

extension String {
  fileprivate var trimmingSpaces: Substring {
    var s = self[...]
    while s.first == " " { s = s.dropFirst() }
    while s.last == " " { s = s.dropLast() }
    return s
  }
}
