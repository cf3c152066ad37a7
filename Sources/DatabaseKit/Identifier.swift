/// Quoting for SQL identifiers. Every generated name goes through here, so a name can
/// never break out of its quotes: embedded `"` are doubled. This is standard SQL's
/// delimited identifier, read the same way by SQLite and PostgreSQL (which keep the case
/// of a quoted name), so it is not a question for the dialect.
public enum Identifier {
  public static func quote(_ name: String) -> String { enclosed(name, in: "\"") }

  /// `name` when it is at most `limit` bytes of UTF-8; else its short form: the longest
  /// prefix of whole characters that leaves room, `_`, and 16 lowercase hex digits of the
  /// 64-bit FNV-1a hash of the whole name. The same name gets the same short form every
  /// time, and two names alike in their first bytes get different ones (PostgreSQL cuts an
  /// identifier at 63 bytes silently, so that two long names would otherwise be one).
  public static func fitted(_ name: String, limit: Int) -> String {
    guard name.utf8.count > limit else { return name }
    var h: UInt64 = 0xcbf2_9ce4_8422_2325
    for b in name.utf8 {
      h ^= UInt64(b)
      h = h &* 0x0000_0100_0000_01B3
    }
    let digits = String(h, radix: 16)
    let suffix = "_" + String(repeating: "0", count: 16 - digits.count) + digits
    var prefix = ""
    var bytes = 0
    for c in name {
      guard bytes + c.utf8.count + suffix.utf8.count <= limit else { break }
      prefix.append(c)
      bytes += c.utf8.count
    }
    return prefix + suffix
  }

  /// `text` between `quote`s, each `quote` in it doubled. By code point: a quote followed
  /// by a combining mark is one Character, and still a quote to the database.
  static func enclosed(_ text: String, in quote: Unicode.Scalar) -> String {
    var out = String.UnicodeScalarView()
    out.append(quote)
    for u in text.unicodeScalars {
      if u == quote { out.append(u) }
      out.append(u)
    }
    out.append(quote)
    return String(out)
  }
}

/// Quoting for SQL string literals, where a value cannot be bound (DDL defaults, names in
/// generated SQL): embedded `'` are doubled; standard SQL, read the same way by SQLite and
/// by PostgreSQL with `standard_conforming_strings` on (which its connection sets).
public enum StringLiteral {
  public static func quote(_ text: String) -> String { Identifier.enclosed(text, in: "'") }
}
