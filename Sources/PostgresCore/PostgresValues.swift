import DatabaseKit

/// How the connection converts between the engine's `SQLValue`s and PostgreSQL's types:
/// a bound value by the type PostgreSQL inferred for its parameter, a result column by its
/// type (CONTRIBUTING.md, "Database seam"). Values travel in PostgreSQL's text format,
/// except blobs for `bytea` and `uuid` parameters, which go as binary (the bytes as they are).
enum PostgresType {
  // The built-in type OIDs (src/include/catalog/pg_type.dat; fixed for every server).
  static let bool: UInt32 = 16
  static let bytea: UInt32 = 17
  static let int8: UInt32 = 20
  static let int2: UInt32 = 21
  static let int4: UInt32 = 23
  static let text: UInt32 = 25
  static let oid: UInt32 = 26
  static let float4: UInt32 = 700
  static let float8: UInt32 = 701
  static let unknown: UInt32 = 705
  static let numeric: UInt32 = 1700
  static let uuid: UInt32 = 2950

  /// The name of a type in messages.
  static func name(_ oid: UInt32) -> String {
    switch oid {
    case bool: return "boolean"
    case bytea: return "bytea"
    case int8: return "bigint"
    case int2: return "smallint"
    case int4: return "integer"
    case text: return "text"
    case float4: return "real"
    case float8: return "double precision"
    case numeric: return "numeric"
    case uuid: return "uuid"
    default: return "type \(oid)"
    }
  }
}

/// What a result column's values become.
enum ColumnKind: Sendable {
  /// int2, int4, int8, oid: `.integer`.
  case integer
  /// boolean: `.integer` 0 or 1.
  case boolean
  /// float4, float8: `.real`.
  case real
  /// uuid: a 16-byte `.blob`.
  case uuid
  /// bytea: `.blob`.
  case bytes
  /// numeric, text and every other type: `.text` (PostgreSQL's text form).
  case text

  init(oid: UInt32) {
    switch oid {
    case PostgresType.int2, PostgresType.int4, PostgresType.int8, PostgresType.oid: self = .integer
    case PostgresType.bool: self = .boolean
    case PostgresType.float4, PostgresType.float8: self = .real
    case PostgresType.uuid: self = .uuid
    case PostgresType.bytea: self = .bytes
    default: self = .text
    }
  }
}

/// A bound value as it goes to libpq.
enum WireParameter {
  case null
  case text([UInt8])
  case binary([UInt8])
}

enum ValueConversion {
  /// `value` for a parameter of type `oid` (`index` is 1-based, for messages).
  static func parameter(_ value: SQLValue, type oid: UInt32, index: Int) throws -> WireParameter {
    switch value {
    case .null: return .null
    case .integer(let i):
      switch oid {
      case PostgresType.bool: return .text(i == 0 ? [UInt8(ascii: "f")] : [UInt8(ascii: "t")])
      case PostgresType.uuid, PostgresType.bytea: throw mismatch("an integer", oid, index)
      default: return .text(Array(String(i).utf8))
      }
    case .real(let d):
      switch oid {
      case PostgresType.int2, PostgresType.int4, PostgresType.int8, PostgresType.oid:
        // An integral real is the integer; another one has no value of the type.
        guard d.rounded() == d, let i = Int64(exactly: d) else { throw mismatch("the real \(d)", oid, index) }
        return .text(Array(String(i).utf8))
      case PostgresType.bool: return .text(d == 0 ? [UInt8(ascii: "f")] : [UInt8(ascii: "t")])
      case PostgresType.uuid, PostgresType.bytea: throw mismatch("a real", oid, index)
      default: return .text(Array(realText(d).utf8))
      }
    case .text(let s):
      if s.utf8.contains(0) {
        throw PostgresError(
          sqlState: "22021", message: "text with a NUL character cannot be bound to parameter $\(index) (PostgreSQL text has none)")
      }
      // Text for a bytea parameter is its UTF-8 bytes (as SQLite keeps text in a BLOB column).
      return oid == PostgresType.bytea ? .binary(Array(s.utf8)) : .text(Array(s.utf8))
    case .blob(let bytes):
      switch oid {
      case PostgresType.bytea: return .binary(bytes)
      case PostgresType.uuid:
        guard bytes.count == 16 else { throw mismatch("a blob of \(bytes.count) bytes", oid, index) }
        return .binary(bytes)
      default: throw mismatch("a blob", oid, index)
      }
    }
  }

  private static func mismatch(_ what: String, _ oid: UInt32, _ index: Int) -> PostgresError {
    PostgresError(sqlState: "22023", message: "\(what) cannot be bound to parameter $\(index) of type \(PostgresType.name(oid))")
  }

  /// A double in PostgreSQL's input syntax: Swift's shortest form that reads back exactly.
  static func realText(_ d: Double) -> String {
    if d.isNaN { return "NaN" }
    if d.isInfinite { return d < 0 ? "-Infinity" : "Infinity" }
    return "\(d)"
  }

  // MARK: - Reading text-format values

  /// An integer in text form (`-12`), or nil when the text is not one.
  static func integer(_ p: UnsafePointer<UInt8>, _ n: Int) -> Int64? {
    var i = 0
    var negative = false
    if n > 0 && (p[0] == UInt8(ascii: "-") || p[0] == UInt8(ascii: "+")) {
      negative = p[0] == UInt8(ascii: "-")
      i = 1
    }
    guard i < n else { return nil }
    var value: Int64 = 0
    while i < n {
      let d = p[i] &- UInt8(ascii: "0")
      guard d < 10 else { return nil }
      let (m, o1) = value.multipliedReportingOverflow(by: 10)
      let (s, o2) = negative ? m.subtractingReportingOverflow(Int64(d)) : m.addingReportingOverflow(Int64(d))
      guard !o1, !o2 else { return nil }
      value = s
      i += 1
    }
    return value
  }

  /// A double in PostgreSQL's output syntax (`1.5`, `1e-05`, `Infinity`, `NaN`).
  static func real(_ s: String) -> Double? {
    switch s {
    case "Infinity": return .infinity
    case "-Infinity": return -.infinity
    case "NaN": return .nan
    default: return Double(s)
    }
  }

  /// The 16 bytes of a uuid in text form (`a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11`).
  static func uuidBytes(_ p: UnsafePointer<UInt8>, _ n: Int) -> [UInt8]? {
    var out: [UInt8] = []
    out.reserveCapacity(16)
    var high: UInt8?
    for i in 0..<n {
      let c = p[i]
      if c == UInt8(ascii: "-") { continue }
      guard let v = hex(c) else { return nil }
      if let h = high {
        out.append(h << 4 | v)
        high = nil
      } else {
        high = v
      }
    }
    return out.count == 16 && high == nil ? out : nil
  }

  /// The bytes of a bytea in text form: `\x` and hex digits (bytea_output = hex, which the
  /// connection sets).
  static func byteaBytes(_ p: UnsafePointer<UInt8>, _ n: Int) -> [UInt8]? {
    guard n >= 2, p[0] == UInt8(ascii: "\\"), p[1] == UInt8(ascii: "x"), n % 2 == 0 else { return nil }
    var out = [UInt8](repeating: 0, count: (n - 2) / 2)
    var i = 2
    var k = 0
    while i < n {
      guard let h = hex(p[i]), let l = hex(p[i + 1]) else { return nil }
      out[k] = h << 4 | l
      k += 1
      i += 2
    }
    return out
  }

  /// The value of a hex digit.
  static func hex(_ c: UInt8) -> UInt8? {
    switch c {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
    default: return nil
    }
  }
}
