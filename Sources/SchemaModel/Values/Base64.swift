/// Standard base64 (RFC 4648, with padding) for `data` attributes, without Foundation.
public enum Base64 {
  private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
  private static let reverse: [UInt8] = {
    var r = [UInt8](repeating: 0xFF, count: 256)
    for (i, c) in alphabet.enumerated() { r[Int(c)] = UInt8(i) }
    return r
  }()

  public static func encode(_ bytes: [UInt8]) -> String {
    var out = [UInt8]()
    out.reserveCapacity((bytes.count + 2) / 3 * 4)
    var i = 0
    while i + 3 <= bytes.count {
      let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
      out += [alphabet[Int(n >> 18 & 63)], alphabet[Int(n >> 12 & 63)], alphabet[Int(n >> 6 & 63)], alphabet[Int(n & 63)]]
      i += 3
    }
    let rest = bytes.count - i
    if rest == 1 {
      let n = UInt32(bytes[i]) << 16
      out += [alphabet[Int(n >> 18 & 63)], alphabet[Int(n >> 12 & 63)], 61, 61]
    } else if rest == 2 {
      let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8
      out += [alphabet[Int(n >> 18 & 63)], alphabet[Int(n >> 12 & 63)], alphabet[Int(n >> 6 & 63)], 61]
    }
    return String(decoding: out, as: UTF8.self)
  }

  /// Decodes padded base64; nil for anything else (wrong length, bad characters, bad padding).
  public static func decode(_ s: String) -> [UInt8]? {
    let b = Array(s.utf8)
    guard b.count % 4 == 0 else { return nil }
    var out = [UInt8]()
    out.reserveCapacity(b.count / 4 * 3)
    var i = 0
    while i < b.count {
      let last = i + 4 == b.count
      let pad = last ? (b[i + 3] == 61 ? (b[i + 2] == 61 ? 2 : 1) : 0) : 0
      var n: UInt32 = 0
      for k in 0..<4 {
        let c = b[i + k]
        if k >= 4 - pad {
          n <<= 6
          continue
        }
        let v = reverse[Int(c)]
        if v == 0xFF { return nil }
        n = n << 6 | UInt32(v)
      }
      out.append(UInt8(n >> 16 & 0xFF))
      if pad < 2 { out.append(UInt8(n >> 8 & 0xFF)) }
      if pad < 1 { out.append(UInt8(n & 0xFF)) }
      i += 4
    }
    return out
  }
}
