/// Quoting for SQL identifiers. Every generated name goes through here, so a name can
/// never break out of its quotes: embedded `"` are doubled. This is standard SQL's
/// delimited identifier, read the same way by SQLite and PostgreSQL (which keep the case
/// of a quoted name), so it is not a question for the dialect.
public enum Identifier {
  public static func quote(_ name: String) -> String {
    var out = "\""
    for ch in name.unicodeScalars {
      if ch == "\"" { out.unicodeScalars.append(ch) }
      out.unicodeScalars.append(ch)
    }
    out += "\""
    return out
  }
}
