import JSONCore

/// The stored form of one history transaction's changes (`_ms_history.changes`, a BLOB):
/// the groups `ChangeLog.encoded()` makes, in a few bytes each instead of JSON text.
/// protocol.md "Store file layout" documents it:
///
///     blob   := 0x02 count entry*             count: the number of entries (a cut is seen)
///     entry  := 0x01 name runs                 insert
///             | 0x02 name count name* runs     update (count keys, then the keys)
///             | 0x03 name runs                 delete
///             | 0x04 name varint text          delete of one key with its tombstone (JSON)
///             | 0x05 text                      bulk summary (JSON)
///     runs   := count (zigzag(first - previous last) length-1)*   previous last starts at 0
///     name   := text
///     text   := varint length, UTF-8 bytes
///
/// varints are unsigned LEB128; zigzag maps a signed delta to an unsigned varint.
enum ChangeEncoding {
  static let version: UInt8 = 2

  enum Op: UInt8 {
    case insert = 1, update = 2, delete = 3, deleteWithTombstone = 4, bulk = 5
  }

  /// Why a stored blob could not be read back: its history row is damaged.
  struct Damaged: Error { var reason: String }

  // MARK: - Encoding

  /// The blob for `groups` (the array `ChangeLog.encoded()` returns).
  static func encode(_ groups: JSONValue) -> [UInt8] {
    var out: [UInt8] = [version]
    var body: [UInt8] = []
    var entries: UInt64 = 0
    for g in groups.arrayValue ?? [] {
      entries += 1
      entry(g, into: &body)
    }
    varint(entries, into: &out)
    out += body
    return out
  }

  private static func entry(_ g: JSONValue, into out: inout [UInt8]) {
    let op = g["op"]?.stringValue
    if op == "bulk" {
      out.append(Op.bulk.rawValue)
      text(JSONWriter.encodeString(g), into: &out)
      return
    }
    // ChangeLog makes every other group with an entity; a bulk entry stands in otherwise.
    guard let entity = g["entity"]?.stringValue else {
      out.append(Op.bulk.rawValue)
      text(JSONWriter.encodeString(g), into: &out)
      return
    }
    let runs = (g["pks"]?.arrayValue ?? []).compactMap { r -> (Int64, Int64)? in
      guard case .int(let a)? = r.arrayValue?.first, case .int(let b)? = r.arrayValue?.last else { return nil }
      return (a, b)
    }
    switch op {
    case "insert":
      out.append(Op.insert.rawValue)
      text(entity, into: &out)
    case "update":
      out.append(Op.update.rawValue)
      text(entity, into: &out)
      let keys = (g["keys"]?.arrayValue ?? []).compactMap(\.stringValue)
      varint(UInt64(keys.count), into: &out)
      for k in keys { text(k, into: &out) }
    case "delete" where g["tombstone"] != nil:
      out.append(Op.deleteWithTombstone.rawValue)
      text(entity, into: &out)
      varint(UInt64(bitPattern: runs.first?.0 ?? 0), into: &out)
      text(JSONWriter.encodeString(g["tombstone"]!), into: &out)
      return
    case "delete":
      out.append(Op.delete.rawValue)
      text(entity, into: &out)
    default:
      out.append(Op.bulk.rawValue)
      text(JSONWriter.encodeString(g), into: &out)
      return
    }
    encodeRuns(runs, into: &out)
  }

  private static func encodeRuns(_ runs: [(Int64, Int64)], into out: inout [UInt8]) {
    varint(UInt64(runs.count), into: &out)
    var previous: Int64 = 0
    for (first, last) in runs {
      let delta = first &- previous
      varint(UInt64(bitPattern: (delta << 1) ^ (delta >> 63)), into: &out)
      varint(UInt64(bitPattern: last &- first), into: &out)
      previous = last
    }
  }

  private static func varint(_ v: UInt64, into out: inout [UInt8]) {
    var v = v
    while v >= 0x80 {
      out.append(UInt8(v & 0x7F) | 0x80)
      v >>= 7
    }
    out.append(UInt8(v))
  }

  private static func text(_ s: String, into out: inout [UInt8]) {
    varint(UInt64(s.utf8.count), into: &out)
    out.append(contentsOf: s.utf8)
  }

  // MARK: - Decoding

  /// The groups a blob holds, in the form `ChangeLog.encoded()` gave them.
  static func decode(_ bytes: [UInt8]) throws -> JSONValue {
    var r = Reader(bytes: bytes)
    guard try r.byte() == version else { throw Damaged(reason: "unknown encoding version \(bytes[0])") }
    let entries = try r.count()
    var groups: [JSONValue] = []
    for _ in 0..<entries {
      let at = r.offset
      guard let op = Op(rawValue: try r.byte()) else { throw Damaged(reason: "unknown entry kind \(bytes[at]) at byte \(at)") }
      if op == .bulk {
        groups.append(try r.json())
        continue
      }
      var o: JSONObject = ["op": .string(op == .insert ? "insert" : op == .update ? "update" : "delete"), "entity": .string(try r.text())]
      switch op {
      case .update:
        let n = try r.count()
        var keys: [JSONValue] = []
        for _ in 0..<n { keys.append(.string(try r.text())) }
        o.append("keys", .array(keys))
        o.append("pks", try r.runs())
      case .deleteWithTombstone:
        let pk = Int64(bitPattern: try r.varint())
        o.append("pks", .array([.array([.int(pk), .int(pk)])]))
        o.append("tombstone", try r.json())
      default:
        o.append("pks", try r.runs())
      }
      groups.append(.object(o))
    }
    guard r.atEnd else { throw Damaged(reason: "\(bytes.count - r.offset) bytes follow its last entry") }
    return .array(groups)
  }

  private struct Reader {
    let bytes: [UInt8]
    var offset = 0
    var atEnd: Bool { offset >= bytes.count }

    mutating func byte() throws -> UInt8 {
      guard offset < bytes.count else { throw Damaged(reason: "it ends early at byte \(offset)") }
      defer { offset += 1 }
      return bytes[offset]
    }

    mutating func varint() throws -> UInt64 {
      var v: UInt64 = 0
      var shift: UInt64 = 0
      while true {
        let start = offset
        let b = try byte()
        guard shift < 64 else { throw Damaged(reason: "a number is too long at byte \(start)") }
        v |= UInt64(b & 0x7F) << shift
        if b < 0x80 { return v }
        shift += 7
      }
    }

    /// A count or length: at most the bytes left, so a damaged value cannot ask for more.
    mutating func count() throws -> Int {
      let at = offset
      let n = try varint()
      guard n <= UInt64(bytes.count - offset) else { throw Damaged(reason: "a count of \(n) at byte \(at) is larger than what follows") }
      return Int(n)
    }

    mutating func text() throws -> String {
      let n = try count()
      defer { offset += n }
      return String(decoding: bytes[offset..<offset + n], as: UTF8.self)
    }

    mutating func json() throws -> JSONValue {
      let at = offset
      let s = try text()
      do { return try JSONParser.parse(s) } catch { throw Damaged(reason: "the JSON at byte \(at) does not parse") }
    }

    mutating func runs() throws -> JSONValue {
      let n = try count()
      var out: [JSONValue] = []
      out.reserveCapacity(n)
      var previous: Int64 = 0
      for _ in 0..<n {
        let z = try varint()
        let first = previous &+ (Int64(bitPattern: z >> 1) ^ -Int64(bitPattern: z & 1))
        let last = first &+ Int64(bitPattern: try varint())
        out.append(.array([.int(first), .int(last)]))
        previous = last
      }
      return .array(out)
    }
  }
}
