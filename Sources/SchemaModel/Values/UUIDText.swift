#if canImport(Glibc)
  import Glibc
#endif

/// Canonical UUID text (uppercase, as Foundation's `uuidString`) and random v4 UUIDs.
public enum UUIDText {
  /// The canonical uppercase form of a UUID string in any case, or nil if it is not one.
  public static func canonical(_ s: String) -> String? {
    guard s.utf8.count == 36 else { return nil }
    // Already canonical (the common case: ids this store wrote): no new string.
    if isCanonical(s.utf8) { return s }
    let b = Array(s.utf8)
    var out = [UInt8]()
    out.reserveCapacity(36)
    for (i, c) in b.enumerated() {
      if i == 8 || i == 13 || i == 18 || i == 23 {
        guard c == 45 else { return nil }
        out.append(c)
      } else if (c >= 48 && c <= 57) || (c >= 65 && c <= 70) {
        out.append(c)
      } else if c >= 97 && c <= 102 {
        out.append(c - 32)
      } else {
        return nil
      }
    }
    return String(decoding: out, as: UTF8.self)
  }

  private static func isCanonical(_ u: String.UTF8View) -> Bool {
    var i = 0
    for c in u {
      if i == 8 || i == 13 || i == 18 || i == 23 {
        if c != 45 { return false }
      } else if !((c >= 48 && c <= 57) || (c >= 65 && c <= 70)) {
        return false
      }
      i += 1
    }
    return true
  }

  /// A new random (version 4) UUID from the system CSPRNG (getrandom on Linux).
  public static func random() -> String { text(randomBytes()) }

  /// The 16 bytes of a new random (version 4) UUID: its stored form.
  public static func randomBytes() -> [UInt8] {
    var rng = SystemRandomNumberGenerator()
    var bytes = [UInt8](repeating: 0, count: 16)
    for half in 0..<2 {
      let word = rng.next()
      for k in 0..<8 { bytes[half * 8 + k] = UInt8(truncatingIfNeeded: word >> (8 * UInt64(k))) }
    }
    bytes[6] = bytes[6] & 0x0F | 0x40
    bytes[8] = bytes[8] & 0x3F | 0x80
    return bytes
  }

  /// The canonical text of 16 bytes (uppercase, dashes after bytes 4, 6, 8 and 10).
  public static func text(_ bytes: [UInt8]) -> String {
    String(unsafeUninitializedCapacity: 36) { text(bytes, into: $0) }
  }

  /// Writes the 36 bytes of `text(bytes)` at the start of `out` and returns 36.
  public static func text(_ bytes: [UInt8], into out: UnsafeMutableBufferPointer<UInt8>) -> Int {
    precondition(bytes.count == 16, "a UUID has 16 bytes")
    precondition(out.count >= 36)
    let hex: StaticString = "0123456789ABCDEF"
    var n = 0
    for (i, byte) in bytes.enumerated() {
      if i == 4 || i == 6 || i == 8 || i == 10 {
        out[n] = 45
        n += 1
      }
      out[n] = hex.utf8Start[Int(byte >> 4)]
      out[n + 1] = hex.utf8Start[Int(byte & 15)]
      n += 2
    }
    return n
  }

  /// The 16 bytes of a UUID string in any case, or nil if it is not one. Byte order is
  /// the text's order, so stored blobs sort exactly as the canonical text.
  public static func bytes(_ s: String) -> [UInt8]? {
    guard s.utf8.count == 36 else { return nil }
    var s = s
    return s.withUTF8 { text -> [UInt8]? in
      var out = [UInt8](repeating: 0, count: 16)
      let ok = out.withUnsafeMutableBufferPointer { out -> Bool in
        // Pairs of hex digits; the dashes fall between pairs (groups of 8, 4, 4, 4, 12).
        var i = 0
        var n = 0
        while i < 36 {
          if i == 8 || i == 13 || i == 18 || i == 23 {
            guard text[i] == 45 else { return false }
            i += 1
            continue
          }
          guard let high = hexValue(text[i]), let low = hexValue(text[i + 1]) else { return false }
          out[n] = high << 4 | low
          n += 1
          i += 2
        }
        return true
      }
      return ok ? out : nil
    }
  }

  @inline(__always)
  private static func hexValue(_ c: UInt8) -> UInt8? {
    switch c {
    case 48...57: return c - 48
    case 65...70: return c - 55
    case 97...102: return c - 87
    default: return nil
    }
  }
}

/// The wall clock in seconds since 1970 (CLOCK_REALTIME), rounded to the millisecond.
public func currentTimeSeconds() -> Double {
  var ts = timespec()
  clock_gettime(CLOCK_REALTIME, &ts)
  return ((Double(ts.tv_sec) * 1000 + Double(ts.tv_nsec / 1_000_000))).rounded() / 1000
}
