/// SQL literals for values that must appear in a statement's text (a column's `DEFAULT`,
/// which cannot be a bound parameter).
extension SQLValue {
  /// The value as an SQLite literal: `NULL`, an integer, a real in Swift's shortest
  /// round-trip form (`1.0`, `1e-05`), a string in single quotes (quotes doubled), a blob
  /// as `X'…'`. Nil when no literal can carry it: a non-finite real, or text with a NUL
  /// character (statement text ends at a NUL). A caller that must be sure the literal
  /// reads back as this value evaluates it (`SELECT literal`) and compares.
  public var sqlLiteral: String? {
    switch self {
    case .null: return "NULL"
    case .integer(let i): return String(i)
    case .real(let d): return d.isFinite ? "\(d)" : nil
    case .text(let s):
      guard !s.utf8.contains(0) else { return nil }
      return StringLiteral.quote(s)
    case .blob(let bytes):
      let hex: [Character] = Array("0123456789ABCDEF")
      var out = "X'"
      out.reserveCapacity(bytes.count * 2 + 3)
      for b in bytes {
        out.append(hex[Int(b >> 4)])
        out.append(hex[Int(b & 15)])
      }
      return out + "'"
    }
  }
}
