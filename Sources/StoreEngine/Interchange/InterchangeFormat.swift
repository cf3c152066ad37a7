import JSONCore
import SchemaModel

/// The bridge format shared by `export.json` and `import.json` (protocol.md, "Interchange
/// format"): a header naming the format, its version, the schema and the entities the
/// file holds, then one object per record in the wire shape of `query.fetch`.
public enum InterchangeFormat {
  public static let name = "modelstore-export"
  public static let version: Int64 = 1

  /// How the records are laid out in the bytes.
  public enum Layout: String, Sendable, CaseIterable {
    /// A header line, then one object per line.
    case ndjson
    /// One document `{format, version, schema, entities, objects: [...]}`.
    case json
  }

  /// The header object: the same members, in the same order, for both layouts.
  static func header(schema: Schema, entities: [String]) -> JSONObject {
    [
      "format": .string(name), "version": .int(version), "schema": schema.json,
      "entities": .array(entities.map { .string($0) }),
    ]
  }

  /// True when the relationship is written in exported objects. A to-many whose inverse
  /// is a to-one is left out unless ordered: every link it holds is already written on
  /// the to-one side, and an unordered list adds nothing a reader could not rebuild.
  /// An ordered one is kept because the order exists only there. Many-to-many and
  /// to-many without inverse are always written (both sides of a many-to-many, since
  /// each side of an ordered pair has its own order).
  static func isWritten(_ r: Relationship, graph: ModelGraph) -> Bool {
    guard r.toMany, !r.ordered, let inverse = graph.inverse(of: r) else { return true }
    return inverse.toMany
  }

  /// The keys written for objects of `model`: stored attributes and written relationships.
  static func writtenKeys(_ model: EntityModel, graph: ModelGraph) -> Set<String> {
    Set(model.attributes.filter { !$0.transient }.map(\.name) + model.relationships.filter { isWritten($0, graph: graph) }.map(\.name))
  }
}
