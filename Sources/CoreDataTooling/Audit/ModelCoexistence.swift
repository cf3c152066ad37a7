import JSONCore
import SchemaModel

/// Whether two models can back the same store side by side (a Core Data stack and a
/// SwiftData stack during a migration): every entity, and every property with its type,
/// optionality and relationship shape, must be the same in both.
public enum ModelCoexistence {
  public struct Difference: Equatable, Sendable {
    public var code: String
    public var message: String
    public var entity: String
    public var property: String?

    public var json: JSONValue {
      var o: JSONObject = ["code": .string(code), "message": .string(message), "entity": .string(entity)]
      if let property { o.append("property", .string(property)) }
      return .object(o)
    }
  }

  /// Every difference between `a` and `b`, entities in `a`'s order then those only in `b`.
  public static func compare(_ a: Schema, _ b: Schema, names: (String, String) = ("model", "compareWith")) -> [Difference] {
    var out: [Difference] = []
    for ea in a.entities {
      guard let eb = b.entity(named: ea.name) else {
        out.append(.init(code: "entityMissing", message: "entity '\(ea.name)' is only in \(names.0)", entity: ea.name))
        continue
      }
      if ea.parent != eb.parent {
        out.append(
          .init(
            code: "parentDiffers",
            message: "'\(ea.name)' has parent \(ea.parent ?? "none") in \(names.0) and \(eb.parent ?? "none") in \(names.1)",
            entity: ea.name))
      }
      for pa in ea.attributes {
        guard let pb = eb.attributes.first(where: { $0.name == pa.name }) else {
          out.append(missing(ea.name, pa.name, in: names.0, eb.relationships.contains { $0.name == pa.name }))
          continue
        }
        if pa.type != pb.type {
          out.append(
            .init(
              code: "typeDiffers",
              message: "'\(ea.name).\(pa.name)' is \(pa.type.rawValue) in \(names.0) and \(pb.type.rawValue) in \(names.1)",
              entity: ea.name, property: pa.name))
        }
        if pa.optional != pb.optional { out.append(optionality(ea.name, pa.name, pa.optional, names)) }
        if pa.transient != pb.transient {
          out.append(
            .init(
              code: "transientDiffers", message: "'\(ea.name).\(pa.name)' is transient in only one model", entity: ea.name,
              property: pa.name))
        }
      }
      for ra in ea.relationships {
        guard let rb = eb.relationships.first(where: { $0.name == ra.name }) else {
          out.append(missing(ea.name, ra.name, in: names.0, eb.attributes.contains { $0.name == ra.name }))
          continue
        }
        if ra.destination != rb.destination || ra.toMany != rb.toMany || ra.ordered != rb.ordered || ra.inverse != rb.inverse {
          out.append(
            .init(
              code: "relationshipDiffers",
              message: "'\(ea.name).\(ra.name)' is \(shape(ra)) in \(names.0) and \(shape(rb)) in \(names.1)", entity: ea.name,
              property: ra.name))
        }
        if ra.optional != rb.optional { out.append(optionality(ea.name, ra.name, ra.optional, names)) }
      }
      let namesA = Set(ea.attributes.map(\.name) + ea.relationships.map(\.name))
      for name in eb.attributes.map(\.name) + eb.relationships.map(\.name) where !namesA.contains(name) {
        out.append(.init(code: "propertyMissing", message: "'\(ea.name).\(name)' is only in \(names.1)", entity: ea.name, property: name))
      }
    }
    for eb in b.entities where a.entity(named: eb.name) == nil {
      out.append(.init(code: "entityMissing", message: "entity '\(eb.name)' is only in \(names.1)", entity: eb.name))
    }
    return out
  }

  static func missing(_ entity: String, _ property: String, in model: String, _ otherKind: Bool) -> Difference {
    otherKind
      ? .init(
        code: "kindDiffers", message: "'\(entity).\(property)' is an attribute in one model and a relationship in the other",
        entity: entity, property: property)
      : .init(code: "propertyMissing", message: "'\(entity).\(property)' is only in \(model)", entity: entity, property: property)
  }

  static func optionality(_ entity: String, _ property: String, _ optionalInA: Bool, _ names: (String, String)) -> Difference {
    .init(
      code: "optionalityDiffers",
      message: "'\(entity).\(property)' is \(optionalInA ? "optional" : "required") in \(names.0) and "
        + "\(optionalInA ? "required" : "optional") in \(names.1)",
      entity: entity, property: property)
  }

  static func shape(_ r: Relationship) -> String {
    let kind = r.toMany ? (r.ordered ? "ordered to-many" : "to-many") : "to-one"
    return "\(kind) to \(r.destination)" + (r.inverse.map { " (inverse \($0))" } ?? " (no inverse)")
  }
}
