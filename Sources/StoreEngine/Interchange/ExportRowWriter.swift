import DatabaseKit
import JSONCore
import SchemaModel

/// Writes the exported objects of one concrete entity straight from the statement's row
/// to JSON bytes: exactly the bytes of `JSONWriter.write(ReadPlan.object(row, select:,
/// toManyColumns: true))` (to-many relationships named in `keys` are read from their columns),
/// without building the object. Member names are encoded once; integers, reals and ASCII
/// text are written from SQLite's values without making Strings. Rows of another entity
/// (never expected: the select filters on the entity) take the general path.
struct ExportRowWriter {
  private enum Field {
    case attribute(AttributeType, column: Int)
    case constant(JSONValue)
    case relationship(ReadPlan.Slot)
  }

  private let read: ReadPlan
  private let keys: Set<String>
  /// The entity's code in `_ent`.
  private let code: Int64?
  /// `{"_id":"Entity/`
  private let idPrefix: [UInt8]
  /// `","_entity":"Entity"`
  private let entityMember: [UInt8]
  /// Each written member: `,"name":` and how to write its value.
  private let fields: [(key: [UInt8], field: Field)]

  init(entity: String, read: ReadPlan, keys: Set<String>) {
    self.read = read
    self.keys = keys
    code = read.codes.code(entity)
    var w = JSONWriter()
    w.bytes.append(UInt8(ascii: "{"))
    w.writeString(WireObject.idKey)
    w.bytes.append(UInt8(ascii: ":"))
    w.writeString(entity + ObjectID.separator)
    w.bytes.removeLast()  // the closing quote: the key follows
    idPrefix = w.bytes
    w.bytes = [UInt8(ascii: "\""), UInt8(ascii: ",")]
    w.writeString(WireObject.entityKey)
    w.bytes.append(UInt8(ascii: ":"))
    w.writeString(entity)
    entityMember = w.bytes
    var list: [(key: [UInt8], field: Field)] = []
    func key(_ name: String) -> [UInt8] {
      var k = JSONWriter()
      k.bytes.append(UInt8(ascii: ","))
      k.writeString(name)
      k.bytes.append(UInt8(ascii: ":"))
      return k.bytes
    }
    for slot in read.slotsByEntity[entity] ?? [] {
      switch slot {
      case .attribute(let a, let c):
        if keys.contains(a.name) { list.append((key(a.name), .attribute(a.type, column: c))) }
      case .transient(let a):
        if keys.contains(a.name) { list.append((key(a.name), .constant(WireObject.transient(a)))) }
      case .toOne(let r, _, _, _), .toMany(let r, _, _):
        if keys.contains(r.name) { list.append((key(r.name), .relationship(slot))) }
      }
    }
    fields = list
  }

  func write(_ row: any ResultRow, to w: inout JSONWriter) {
    guard row.int(1) == code else {
      w.write(read.object(row, select: keys, toManyColumns: true))
      return
    }
    w.bytes.append(contentsOf: idPrefix)
    w.writeInt(row.int(0))
    w.bytes.append(contentsOf: entityMember)
    for (key, field) in fields {
      w.bytes.append(contentsOf: key)
      switch field {
      case .attribute(let type, let c): Self.writeValue(type, row, c, &w)
      case .constant(let v): w.write(v)
      case .relationship(.toOne(_, let c, let ec, let dest)):
        w.write(WireObject.toOne(row, column: c, entityColumn: ec, destination: dest, codes: read.codes))
      case .relationship(.toMany(_, let c, let dest)):
        w.write(WireObject.toMany(row, column: c, destination: dest))
      case .relationship: break  // attributes are not relationship slots
      }
    }
    w.bytes.append(UInt8(ascii: "}"))
  }

  /// What `w.write(type.decode(row.value(c)))` writes, with the common cases done in place.
  private static func writeValue(_ type: AttributeType, _ row: any ResultRow, _ c: Int, _ w: inout JSONWriter) {
    switch row.storageClass(c) {
    case .null: w.writeRaw("null")
    case .integer:
      let i = row.int(c)
      switch type {
      case .bool: w.writeRaw(i != 0 ? "true" : "false")
      case .double, .float: w.writeDouble(Double(i))
      case .date: w.write(ISODate.wireValue(Double(i)))
      default: w.writeInt(i)
      }
    case .real:
      let d = row.double(c)
      if type == .date { w.write(ISODate.wireValue(d)) } else { w.writeDouble(d) }
    case .text where type != .json:
      if !row.withASCIIText(c, { w.writeString(utf8: $0) }) { w.writeString(row.text(c)) }
    default:
      w.write(type.decode(row.value(c)))
    }
  }
}
