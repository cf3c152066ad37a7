#if canImport(Glibc)
  import Glibc
#endif

/// Serializes `JSONValue`s straight to UTF-8 bytes.
///
/// Encoding is done in Swift rather than through jansson: measured with callgrind,
/// jansson's parse of one insert request already costs about as much as SQLite's whole
/// INSERT, and a jansson tree per reply would add an allocation per member; this writer
/// appends straight into the output buffer. Swift strings are always valid UTF-8, so
/// nothing is lost. Output is compact and never contains a raw newline, so one value is
/// one line.
/// Non-finite doubles (JSON input cannot carry them) are written as `null`.
public struct JSONWriter {
  public var bytes: [UInt8]

  public init(capacity: Int = 256) {
    bytes = []
    bytes.reserveCapacity(capacity)
  }

  public static func encode(_ value: JSONValue) -> [UInt8] {
    var w = JSONWriter()
    w.write(value)
    return w.bytes
  }

  public static func encodeString(_ value: JSONValue) -> String {
    String(decoding: encode(value), as: UTF8.self)
  }

  public mutating func write(_ value: JSONValue) {
    switch value {
    case .null: writeRaw("null")
    case .bool(let b): writeRaw(b ? "true" : "false")
    case .int(let i): writeInt(i)
    case .double(let d): writeDouble(d)
    case .string(let s): writeString(s)
    case .array(let items):
      bytes.append(UInt8(ascii: "["))
      for (i, item) in items.enumerated() {
        if i > 0 { bytes.append(UInt8(ascii: ",")) }
        write(item)
      }
      bytes.append(UInt8(ascii: "]"))
    case .object(let o): write(o)
    case .encoded(let text):
      // Room for the rest of a reply around it too: appending past an exact fit would
      // copy the whole (megabytes for a large save's reply) into a buffer twice as big.
      if bytes.capacity < bytes.count + text.bytes.count { bytes.reserveCapacity(bytes.count + text.bytes.count + 4096) }
      bytes.append(contentsOf: text.bytes)
    }
  }

  public mutating func write(_ o: JSONObject) {
    bytes.append(UInt8(ascii: "{"))
    for (i, m) in o.members.enumerated() {
      if i > 0 { bytes.append(UInt8(ascii: ",")) }
      writeString(m.key)
      bytes.append(UInt8(ascii: ":"))
      write(m.value)
    }
    bytes.append(UInt8(ascii: "}"))
  }

  public mutating func writeRaw(_ s: StaticString) {
    s.withUTF8Buffer { bytes.append(contentsOf: $0) }
  }

  public mutating func writeInt(_ i: Int64) {
    if i >= 0 && i < 10 {
      bytes.append(UInt8(ascii: "0") + UInt8(i))
      return
    }
    var buf: (UInt64, UInt64, UInt64) = (0, 0, 0)
    let magnitude = i.magnitude
    withUnsafeMutableBytes(of: &buf) { raw in
      var n = magnitude
      var pos = raw.count
      repeat {
        pos -= 1
        raw[pos] = UInt8(ascii: "0") + UInt8(n % 10)
        n /= 10
      } while n > 0
      if i < 0 {
        pos -= 1
        raw[pos] = UInt8(ascii: "-")
      }
      bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[pos...]))
    }
  }

  public mutating func writeDouble(_ d: Double) {
    guard d.isFinite else {
      writeRaw("null")
      return
    }
    if d == d.rounded(.towardZero) && abs(d) < 1e15 {
      // Integral values keep a fraction so they read back as numbers of the same kind.
      writeInt(Int64(d))
      writeRaw(".0")
      return
    }
    bytes.append(contentsOf: d.description.utf8)
  }

  private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

  public mutating func writeString(_ s: String) {
    var s = s
    s.withUTF8 { writeString(utf8: $0) }
  }

  /// Writes a string given as valid UTF-8 bytes (quoted and escaped like `writeString`).
  public mutating func writeString(utf8: UnsafeBufferPointer<UInt8>) {
    bytes.append(UInt8(ascii: "\""))
    do {
      var start = 0
      var i = 0
      let n = utf8.count
      while i < n {
        // Eight bytes at a time while none needs escaping (no control character, quote
        // or backslash): the usual case for text.
        if i + 8 <= n {
          let word = UnsafeRawPointer(utf8.baseAddress! + i).loadUnaligned(as: UInt64.self)
          if !Self.needsEscape(word) {
            i += 8
            continue
          }
        }
        let c = utf8[i]
        i += 1
        if c >= 0x20 && c != UInt8(ascii: "\"") && c != UInt8(ascii: "\\") { continue }
        let at = i - 1
        if start < at { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<at])) }
        start = i
        bytes.append(UInt8(ascii: "\\"))
        switch c {
        case UInt8(ascii: "\""): bytes.append(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): bytes.append(UInt8(ascii: "\\"))
        case 0x0A: bytes.append(UInt8(ascii: "n"))
        case 0x0D: bytes.append(UInt8(ascii: "r"))
        case 0x09: bytes.append(UInt8(ascii: "t"))
        case 0x08: bytes.append(UInt8(ascii: "b"))
        case 0x0C: bytes.append(UInt8(ascii: "f"))
        default:
          bytes.append(contentsOf: [UInt8(ascii: "u"), 0x30, 0x30, Self.hex[Int(c >> 4)], Self.hex[Int(c & 0xF)]])
        }
      }
      if start < n { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...])) }
    }
    bytes.append(UInt8(ascii: "\""))
  }

  /// True when one of the word's eight bytes is below 0x20, a quote or a backslash.
  @inline(__always)
  private static func needsEscape(_ w: UInt64) -> Bool {
    let ones: UInt64 = 0x0101_0101_0101_0101
    let high: UInt64 = 0x8080_8080_8080_8080
    func hasZero(_ x: UInt64) -> Bool { (x &- ones) & ~x & high != 0 }
    // Bytes >= 0x80 (UTF-8 sequences) can make `below` report a false positive, which
    // only sends the word through the byte loop.
    let below = (w &- 0x2020_2020_2020_2020) & ~w & high != 0
    return below || hasZero(w ^ 0x2222_2222_2222_2222) || hasZero(w ^ 0x5C5C_5C5C_5C5C_5C5C)
  }
}

extension JSONValue: CustomStringConvertible {
  public var description: String { JSONWriter.encodeString(self) }
}
