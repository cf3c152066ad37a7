import JSONCore
import SchemaModel

/// A value of an Apple property list, as the `bplist00` format encodes it.
public indirect enum PlistValue: Equatable {
  case null
  case bool(Bool)
  case int(Int64)
  case real(Double)
  /// Seconds since 2001-01-01 00:00:00 UTC (Core Data's reference date).
  case date(Double)
  case data([UInt8])
  case string(String)
  /// A keyed-archiver object reference.
  case uid(UInt64)
  case array([PlistValue])
  case dict([(key: String, value: PlistValue)])

  /// Seconds from 1970-01-01 to 2001-01-01, the reference date of `.date` (and of Core Data).
  public static let referenceDateOffset = 978_307_200.0

  public static func == (a: PlistValue, b: PlistValue) -> Bool {
    switch (a, b) {
    case (.null, .null): return true
    case (.bool(let x), .bool(let y)): return x == y
    case (.int(let x), .int(let y)): return x == y
    case (.real(let x), .real(let y)), (.date(let x), .date(let y)): return x == y
    case (.data(let x), .data(let y)): return x == y
    case (.string(let x), .string(let y)): return x == y
    case (.uid(let x), .uid(let y)): return x == y
    case (.array(let x), .array(let y)): return x == y
    case (.dict(let x), .dict(let y)): return x.count == y.count && zip(x, y).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    default: return false
    }
  }

  public subscript(key: String) -> PlistValue? {
    if case .dict(let members) = self { return members.first { $0.key == key }?.value }
    return nil
  }

  /// The JSON form shown to clients: data as base64, dates as ISO 8601, uids as integers.
  public var json: JSONValue {
    switch self {
    case .null: return .null
    case .bool(let b): return .bool(b)
    case .int(let i): return .int(i)
    case .real(let d): return d.isFinite ? .double(d) : .string(String(d))
    case .date(let d): return ISODate.wireValue(d + Self.referenceDateOffset)
    case .data(let b): return .string(Base64.encode(b))
    case .string(let s): return .string(s)
    case .uid(let u): return .int(Int64(truncatingIfNeeded: u))
    case .array(let items): return .array(items.map(\.json))
    case .dict(let members): return .object(JSONObject(members.map { .init($0.key, $0.value.json) }))
    }
  }
}

/// Why a binary property list could not be read; `offset` is the byte it concerns.
public struct PlistError: Error, CustomStringConvertible {
  public var message: String
  public var offset: Int
  /// How many values the read had materialized when it stopped (at most one past
  /// `BinaryPlist.maxValues`).
  public var valuesRead = 0
  public var description: String { "binary plist: \(message) (byte \(offset))" }
}

/// Reads Apple's binary property list format (`bplist00`), as Core Data writes the
/// metadata in `Z_METADATA.Z_PLIST`. Every offset is bounds-checked and nesting is
/// limited, so a damaged or hostile plist gives an error, never a crash or a loop.
///
/// Objects may be shared (a collection refers to other objects by number, and any number
/// of references may name one object), so a few hundred bytes can describe a tree of
/// billions of values ("billion laughs"). The tree is materialized, so its size is what is
/// bounded: at most `maxValues` values and `maxContentBytes` bytes of string and data
/// content, each counted every time a reference reaches it. Past either, the plist is
/// refused; the work and memory of a read are linear in these bounds and the input size.
public struct BinaryPlist {
  private let bytes: [UInt8]
  private let offsets: [Int]
  private let refSize: Int
  /// What the read has materialized so far (a class, so the recursion shares it).
  private let spent = Budget()
  static let maxDepth = 64
  /// Values in the materialized tree, every use of a shared object counted. Real Core Data
  /// metadata holds a few dozen.
  static let maxValues = 100_000
  /// Bytes of string and data content in the materialized tree (UTF-16 strings count two
  /// per unit), every use of a shared object counted.
  static let maxContentBytes = 16 << 20

  private final class Budget {
    var values = 0
    var contentBytes = 0
  }

  public static func parse(_ bytes: [UInt8]) throws -> PlistValue {
    let reader = try BinaryPlist(bytes)
    let top = try reader.trailerTop()
    do {
      return try reader.object(top, depth: 0)
    } catch var e as PlistError {
      e.valuesRead = reader.spent.values
      throw e
    }
  }

  /// Counts `values` values and `content` bytes of content about to be materialized at `at`.
  private func spend(_ at: Int, values: Int = 0, content: Int = 0) throws {
    spent.values += values
    spent.contentBytes += content
    guard spent.values <= Self.maxValues else {
      throw PlistError(
        message: "expands to more than \(Self.maxValues) values (each use of a shared object counts)", offset: at)
    }
    guard spent.contentBytes <= Self.maxContentBytes else {
      throw PlistError(
        message: "expands to more than \(Self.maxContentBytes) bytes of strings and data (each use of a shared object counts)",
        offset: at)
    }
  }

  private init(_ bytes: [UInt8]) throws {
    self.bytes = bytes
    guard bytes.count >= 40, Array(bytes[0..<8]) == Array("bplist00".utf8) else {
      throw PlistError(message: "not a binary plist (no 'bplist00' header)", offset: 0)
    }
    let t = bytes.count - 32
    let offsetSize = Int(bytes[t + 6])
    refSize = Int(bytes[t + 7])
    let count = Self.uint(bytes[(t + 8)..<(t + 16)])
    let tableStart = Self.uint(bytes[(t + 24)..<(t + 32)])
    guard (1...8).contains(offsetSize), (1...8).contains(refSize), count > 0, count < UInt64(bytes.count),
      tableStart < UInt64(t), UInt64(t) - tableStart >= count * UInt64(offsetSize)
    else { throw PlistError(message: "damaged trailer", offset: t) }
    var offsets: [Int] = []
    offsets.reserveCapacity(Int(count))
    for i in 0..<Int(count) {
      let at = Int(tableStart) + i * offsetSize
      let o = Self.uint(bytes[at..<(at + offsetSize)])
      guard o >= 8, o < UInt64(tableStart) else { throw PlistError(message: "object \(i) has offset \(o) outside the file", offset: at) }
      offsets.append(Int(o))
    }
    self.offsets = offsets
  }

  private func trailerTop() throws -> Int {
    let t = bytes.count - 32
    let top = Self.uint(bytes[(t + 16)..<(t + 24)])
    guard top < UInt64(offsets.count) else { throw PlistError(message: "top object \(top) does not exist", offset: t + 16) }
    return Int(top)
  }

  private static func uint(_ s: ArraySlice<UInt8>) -> UInt64 { s.reduce(0) { $0 << 8 | UInt64($1) } }

  private func need(_ at: Int, _ n: Int) throws {
    guard n >= 0, at >= 0, at <= bytes.count - n else { throw PlistError(message: "value runs past the end of the data", offset: at) }
  }

  /// The length of a collection, string or data object, and where its content starts.
  private func length(_ at: Int, _ low: UInt8) throws -> (Int, Int) {
    if low != 0x0F { return (Int(low), at + 1) }
    try need(at + 1, 1)
    let marker = bytes[at + 1]
    guard marker >> 4 == 0x1 else { throw PlistError(message: "bad length marker", offset: at + 1) }
    let n = 1 << Int(marker & 0x0F)
    guard n <= 8 else { throw PlistError(message: "length wider than 8 bytes", offset: at + 1) }
    try need(at + 2, n)
    let value = Self.uint(bytes[(at + 2)..<(at + 2 + n)])
    guard value < UInt64(bytes.count) else { throw PlistError(message: "length \(value) exceeds the data", offset: at + 1) }
    return (Int(value), at + 2 + n)
  }

  private func ref(_ at: Int) throws -> Int {
    try need(at, refSize)
    let r = Self.uint(bytes[at..<(at + refSize)])
    guard r < UInt64(offsets.count) else { throw PlistError(message: "reference to object \(r), which does not exist", offset: at) }
    return Int(r)
  }

  private func object(_ index: Int, depth: Int) throws -> PlistValue {
    let at = offsets[index]
    guard depth < Self.maxDepth else { throw PlistError(message: "nested deeper than \(Self.maxDepth)", offset: at) }
    try spend(at, values: 1)
    let marker = bytes[at]
    let low = marker & 0x0F
    switch marker >> 4 {
    case 0x0:
      switch marker {
      case 0x00: return .null
      case 0x08: return .bool(false)
      case 0x09: return .bool(true)
      default: throw PlistError(message: "unknown marker 0x\(String(marker, radix: 16))", offset: at)
      }
    case 0x1:
      let n = 1 << Int(low)
      guard n <= 16 else { throw PlistError(message: "integer wider than 16 bytes", offset: at) }
      try need(at + 1, n)
      // 16-byte integers hold 64-bit values in their low half.
      let start = at + 1 + max(0, n - 8)
      let raw = Self.uint(bytes[start..<(at + 1 + n)])
      return .int(n >= 8 ? Int64(bitPattern: raw) : Int64(raw))
    case 0x2, 0x3:
      let n = marker >> 4 == 0x3 ? 8 : 1 << Int(low)
      try need(at + 1, n)
      let raw = Self.uint(bytes[(at + 1)..<(at + 1 + n)])
      let d: Double
      if n == 4 {
        d = Double(Float(bitPattern: UInt32(raw)))
      } else if n == 8 {
        d = Double(bitPattern: raw)
      } else {
        throw PlistError(message: "real of \(n) bytes", offset: at)
      }
      return marker >> 4 == 0x3 ? .date(d) : .real(d)
    case 0x4:
      let (n, start) = try length(at, low)
      try need(start, n)
      try spend(at, content: n)
      return .data(Array(bytes[start..<(start + n)]))
    case 0x5:
      let (n, start) = try length(at, low)
      try need(start, n)
      try spend(at, content: n)
      return .string(String(decoding: bytes[start..<(start + n)], as: UTF8.self))
    case 0x6:
      let (n, start) = try length(at, low)
      try need(start, n * 2)
      try spend(at, content: n * 2)
      var units: [UInt16] = []
      units.reserveCapacity(n)
      for i in 0..<n { units.append(UInt16(bytes[start + 2 * i]) << 8 | UInt16(bytes[start + 2 * i + 1])) }
      return .string(String(decoding: units, as: UTF16.self))
    case 0x8:
      let n = Int(low) + 1
      try need(at + 1, n)
      return .uid(Self.uint(bytes[(at + 1)..<(at + 1 + n)]))
    case 0xA, 0xC:
      let (n, start) = try length(at, low)
      try need(start, n * refSize)
      var items: [PlistValue] = []
      for i in 0..<n { items.append(try object(try ref(start + i * refSize), depth: depth + 1)) }
      return .array(items)
    case 0xD:
      let (n, start) = try length(at, low)
      try need(start, 2 * n * refSize)
      var members: [(key: String, value: PlistValue)] = []
      for i in 0..<n {
        guard case .string(let key) = try object(try ref(start + i * refSize), depth: depth + 1) else {
          throw PlistError(message: "dictionary key \(i) is not a string", offset: start + i * refSize)
        }
        members.append((key, try object(try ref(start + (n + i) * refSize), depth: depth + 1)))
      }
      return .dict(members)
    default:
      throw PlistError(message: "unknown marker 0x\(String(marker, radix: 16))", offset: at)
    }
  }
}
