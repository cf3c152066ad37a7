/// Quoting for SQL identifiers. Every generated name goes through here, so a name can
/// never break out of its quotes: embedded `"` are doubled. This is standard SQL's
/// delimited identifier, read the same way by SQLite and PostgreSQL (which keep the case
/// of a quoted name), so it is not a question for the dialect.
public enum Identifier {
  public static func quote(_ name: String) -> String { enclosed(name, in: "\"") }

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
