import DatabaseKit
import JSONCore
import SchemaModel

/// Migrates import records on the way in when the file was written by an older schema
/// that a lightweight stage takes to the store's: entity, attribute and relationship
/// renames (`originalName`), widened and converted values, to-one ↔ to-many values.
/// A record that would lose a value (a property the store's schema removed) or holds a
/// value that does not convert is refused with its position, like any other bad record.
struct RecordMigration {
  let diff: SchemaDiff
  private let file: ModelGraph
  private let store: ModelGraph

  /// Nil with the reasons when no lightweight stage takes `file` to `store`.
  static func between(file: Schema, store: Schema) -> (RecordMigration?, [JSONValue]) {
    let diff = SchemaDiff(from: file, to: store)
    var reasons: [JSONValue] = diff.mapping.conflicts.map { .object(["message": .string($0)]) }
    for c in diff.changes where !c.lightweight {
      reasons.append(.object(["entity": .string(c.entity), "message": .string("\(c.message) needs a custom migration stage")]))
    }
    guard reasons.isEmpty else { return (nil, reasons) }
    return (RecordMigration(diff: diff), [])
  }

  private init(diff: SchemaDiff) {
    self.diff = diff
    file = ModelGraph(diff.mapping.old)
    store = ModelGraph(diff.mapping.new)
  }

  /// The store's name of a file entity.
  func entity(_ name: String) -> String { diff.mapping.newName(ofEntity: name) ?? name }

  /// False for a file entity the store's schema dropped.
  func keeps(_ name: String) -> Bool { store[entity(name)] != nil }

  private func id(_ text: String) -> String {
    guard let i = ObjectID(text) else { return text }
    return ObjectID.text(entity(i.entity), i.pk)
  }

  /// The record in the store's shape.
  func migrate(_ value: JSONValue, at location: RecordLocation) throws -> JSONValue {
    guard case .object(let o) = value, case .string(let idText)? = o["_id"], let oid = ObjectID(idText), let fileModel = file[oid.entity]
    else { return value }  // shape errors are reported by the import itself
    let newName = entity(oid.entity)
    guard let model = store[newName] else {
      throw location.error(
        .schemaMismatch, "/_entity", "the store's schema has no entity for '\(oid.entity)': the object would be lost",
        ["entity": .string(oid.entity)])
    }
    var out = JSONObject()
    for m in o.members {
      switch m.key {
      case "_id": out.append("_id", .string(id(idText)))
      case "_entity": out.append("_entity", .string(newName))
      default:
        if let a = fileModel.attribute(m.key) {
          try attribute(a, m.value, in: fileModel, model, &out, location)
        } else if let r = fileModel.relationship(m.key) {
          try relationship(r, m.value, in: fileModel, model, &out, location)
        } else {
          out.append(m.key, m.value)  // unknown keys: the import names them
        }
      }
    }
    return .object(out)
  }

  private func owner(of name: String, in model: EntityModel, attribute: Bool) -> String {
    for m in [model] + model.ancestors {
      if attribute ? m.entity.attributes.contains(where: { $0.name == name }) : m.entity.relationships.contains(where: { $0.name == name })
      {
        return m.name
      }
    }
    return model.name
  }

  private func attribute(
    _ a: Attribute, _ value: JSONValue, in fileModel: EntityModel, _ model: EntityModel, _ out: inout JSONObject, _ location: RecordLocation
  ) throws {
    let name = diff.mapping.newName(ofAttribute: a.name, in: owner(of: a.name, in: fileModel, attribute: true)) ?? a.name
    guard let target = model.attribute(name), !target.transient else {
      if value.isNull || a.transient { return }
      throw location.error(
        .schemaMismatch, "/\(a.name)", "the store's schema has no attribute '\(model.name).\(name)': this value would be lost",
        ["entity": .string(model.name), "attribute": .string(a.name)])
    }
    guard target.type != a.type, !value.isNull else {
      out.append(name, value)
      return
    }
    guard let stored = try? a.type.encode(value), let converted = ValueConversion.convert(stored, from: a.type, to: target.type) else {
      throw location.error(
        .validation, "/\(a.name)", "\(value) does not convert from \(a.type.rawValue) to \(target.type.rawValue) for \(model.name).\(name)",
        ["entity": .string(model.name), "attribute": .string(name)])
    }
    out.append(name, target.type.decode(converted))
  }

  private func relationship(
    _ r: Relationship, _ value: JSONValue, in fileModel: EntityModel, _ model: EntityModel, _ out: inout JSONObject,
    _ location: RecordLocation
  ) throws {
    let name = diff.mapping.newName(ofRelationship: r.name, in: owner(of: r.name, in: fileModel, attribute: false)) ?? r.name
    var ids: [JSONValue]
    switch value {
    case .string(let s): ids = [.string(id(s))]
    case .array(let items): ids = items.map { if case .string(let s) = $0 { return .string(id(s)) } else { return $0 } }
    default: ids = []
    }
    guard let target = model.relationship(name) else {
      if ids.isEmpty { return }
      throw location.error(
        .schemaMismatch, "/\(r.name)", "the store's schema has no relationship '\(model.name).\(name)': these links would be lost",
        ["entity": .string(model.name), "relationship": .string(r.name)])
    }
    if target.toMany {
      out.append(name, value.isNull ? .array([]) : .array(ids))
    } else if ids.count > 1 {
      throw location.error(
        .validation, "/\(r.name)", "'\(model.name).\(name)' is to-one in the store's schema, but the record links \(ids.count) objects",
        ["entity": .string(model.name), "relationship": .string(name)])
    } else {
      out.append(name, ids.first ?? .null)
    }
  }
}
