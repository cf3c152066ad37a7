import CLibPQ
import DatabaseKit

/// One row of a result in PostgreSQL's text format, read by each column's type
/// (`ColumnKind`): integers and booleans as integers, floats as reals, uuid and bytea as
/// blobs, everything else as text. Reading a column as another class converts as SQLite
/// does (text to a number by its leading digits, a number to its text). Valid only inside
/// the callback it is passed to.
struct PostgresRow: ResultRow {
  let result: OpaquePointer
  var row: Int32
  let kinds: [ColumnKind]

  var count: Int { kinds.count }

  func isNull(_ i: Int) -> Bool { PQgetisnull(result, row, Int32(i)) != 0 }

  /// The column's bytes in text format (not NUL-terminated for bytea's sake).
  private func bytes(_ i: Int) -> UnsafeBufferPointer<UInt8> {
    let n = Int(PQgetlength(result, row, Int32(i)))
    let p = UnsafeRawPointer(PQgetvalue(result, row, Int32(i))!).assumingMemoryBound(to: UInt8.self)
    return UnsafeBufferPointer(start: p, count: n)
  }

  func int(_ i: Int) -> Int64 {
    if isNull(i) { return 0 }
    let b = bytes(i)
    switch kinds[i] {
    case .integer: return ValueConversion.integer(b.baseAddress!, b.count) ?? 0
    case .boolean: return b.first == UInt8(ascii: "t") ? 1 : 0
    case .real: return Self.integer(ofReal: double(i))
    case .uuid, .bytes: return 0
    case .text:
      if let v = ValueConversion.integer(b.baseAddress!, b.count) { return v }
      return Self.integer(ofReal: Self.leadingReal(text(i)))
    }
  }

  func double(_ i: Int) -> Double {
    if isNull(i) { return 0 }
    switch kinds[i] {
    case .integer, .boolean: return Double(int(i))
    case .real: return ValueConversion.real(text(i)) ?? 0
    case .uuid, .bytes: return 0
    case .text: return Self.leadingReal(text(i))
    }
  }

  func text(_ i: Int) -> String {
    if isNull(i) { return "" }
    switch kinds[i] {
    case .boolean: return int(i) == 1 ? "1" : "0"
    case .uuid, .bytes: return String(decoding: blob(i), as: UTF8.self)
    default: return String(decoding: bytes(i), as: UTF8.self)
    }
  }

  func blob(_ i: Int) -> [UInt8] {
    if isNull(i) { return [] }
    let b = bytes(i)
    switch kinds[i] {
    case .uuid: return ValueConversion.uuidBytes(b.baseAddress!, b.count) ?? Array(b)
    case .bytes: return ValueConversion.byteaBytes(b.baseAddress!, b.count) ?? Array(b)
    case .boolean: return Array(text(i).utf8)
    default: return Array(b)
    }
  }

  func storageClass(_ i: Int) -> StorageClass {
    if isNull(i) { return .null }
    switch kinds[i] {
    case .integer, .boolean: return .integer
    case .real: return .real
    case .uuid, .bytes: return .blob
    case .text: return .text
    }
  }

  func value(_ i: Int) -> SQLValue {
    if isNull(i) { return .null }
    switch kinds[i] {
    case .integer, .boolean: return .integer(int(i))
    case .real: return .real(double(i))
    case .uuid, .bytes: return .blob(blob(i))
    case .text: return .text(text(i))
    }
  }

  func withASCIIText(_ i: Int, _ body: (UnsafeBufferPointer<UInt8>) -> Void) -> Bool {
    if isNull(i) {
      body(UnsafeBufferPointer(start: nil, count: 0))
      return true
    }
    guard kinds[i] != .boolean, kinds[i] != .uuid, kinds[i] != .bytes else { return false }
    let b = bytes(i)
    guard !b.contains(where: { $0 >= 0x80 }) else { return false }
    body(b)
    return true
  }

  /// SQLite's reading of text as a number: the longest leading part that is one, else 0.
  static func leadingReal(_ s: String) -> Double {
    let trimmed = s.drop { $0 == " " }
    var end = trimmed.endIndex
    while end > trimmed.startIndex {
      if let d = Double(trimmed[..<end]) { return d }
      end = trimmed.index(before: end)
    }
    return 0
  }

  /// A real as an integer, as SQLite converts: toward zero, clamped to 64 bits.
  static func integer(ofReal d: Double) -> Int64 {
    if d.isNaN { return 0 }
    if d >= 9_223_372_036_854_775_807.0 { return .max }
    if d <= -9_223_372_036_854_775_808.0 { return .min }
    return Int64(d)
  }
}
