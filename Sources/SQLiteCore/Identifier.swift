/// Quoting for SQL identifiers. Every generated name goes through here, so a name can
/// never break out of its quotes: embedded `"` are doubled.
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
