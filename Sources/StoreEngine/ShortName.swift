/// Names that must fit PostgreSQL's identifiers (at most 63 bytes; the server cuts longer
/// ones silently, so two long names alike in their first 63 bytes would be one): a longer
/// name is given a short form, the longest prefix of whole characters that leaves room,
/// `_`, and 16 hex digits of a hash of the whole name, so it stays distinct and is the same
/// every time.
enum ShortName {
  /// PostgreSQL's `NAMEDATALEN - 1`.
  static let limit = 63

  static func fit(_ name: String, limit: Int = ShortName.limit) -> String {
    guard name.utf8.count > limit else { return name }
    let suffix = "_" + hex(fnv1a(name))
    var prefix = ""
    var bytes = 0
    for c in name {
      let n = c.utf8.count
      guard bytes + n + suffix.utf8.count <= limit else { break }
      prefix.append(c)
      bytes += n
    }
    return prefix + suffix
  }

  /// FNV-1a, 64 bits, of the name's UTF-8 bytes.
  static func fnv1a(_ text: String) -> UInt64 {
    var h: UInt64 = 0xcbf2_9ce4_8422_2325
    for b in text.utf8 {
      h ^= UInt64(b)
      h = h &* 0x0000_0100_0000_01B3
    }
    return h
  }

  private static func hex(_ value: UInt64) -> String {
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: 16 - digits.count) + digits
  }
}
