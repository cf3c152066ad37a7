import DatabaseKit
import JSONCore
import SchemaModel

/// The wire form of a stored object, defined once: `_id` and `_entity`, then the
/// entity's attributes and relationships in the schema's order (a transient attribute as
/// its literal default, a to-one as the target's id, a to-many as a list of ids). Three
/// paths make objects, each for speed, and all build them from here: `ReadPlan.object`
/// (a row of a select), `ExportRowWriter` (the same row straight to bytes) and
/// `Store.insertEncoded`'s answer (the values an insert bound, straight to text).
enum WireObject {
  static let idKey = "_id"
  static let entityKey = "_entity"

  /// A new object holding its `_id` and `_entity`, with room for `members` more.
  static func start(_ entity: String, _ pk: Int64, members: Int) -> JSONObject {
    var o = JSONObject()
    o.members.reserveCapacity(2 + members)
    o.append(idKey, .string(ObjectID.text(entity, pk)))
    o.append(entityKey, .string(entity))
    return o
  }

  /// A transient attribute is never stored: its literal default, else null.
  static func transient(_ a: Attribute) -> JSONValue {
    if case .literal(let v)? = a.defaultValue { return v }
    return .null
  }

  /// A to-one's value read from a row: the target's id (its entity from `entityColumn`
  /// when the destination has sub-entities), or null.
  static func toOne(_ row: any ResultRow, column: Int, entityColumn: Int?, destination: String, codes: EntityCodes) -> JSONValue {
    if row.isNull(column) { return .null }
    let name = entityColumn.flatMap { row.isNull($0) ? nil : codes.name(row, $0) } ?? destination
    return .string(ObjectID.text(name, row.int(column)))
  }

  /// A to-many's ids from its column (`group_concat` of keys, or of `Entity/pk` when the
  /// destination has sub-entities; NULL for none).
  static func toMany(_ row: any ResultRow, column: Int, destination: String) -> JSONValue {
    .array(row.isNull(column) ? [] : splitIDs(row.text(column), destination))
  }

  static func splitIDs(_ text: String, _ dest: String) -> [JSONValue] {
    text.split(separator: ",").map { part in
      ObjectID.isWhole(part) ? .string(String(part)) : .string(ObjectID.text(dest, part))
    }
  }
}
