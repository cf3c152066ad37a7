/// The engine writes SQLite's parameters, `?` and `?NNN`; PostgreSQL numbers them `$n`.
/// The rewrite follows SQLite's numbering (a bare `?` is one more than the largest number
/// so far) and leaves quoted text alone: string literals (`'...'`, `E'...'` with its
/// backslash escapes), dollar-quoted strings and comments. A `?` anywhere else is a
/// parameter, so PostgreSQL's `?`-operators of jsonb are not written (`jsonb_exists` is).
/// A quoted identifier longer than PostgreSQL's 63 bytes is written in its short form
/// (`Identifier.fitted`), where PostgreSQL would cut it (and two long names alike in their
/// first 63 bytes would be one); shorter ones stay as they are.
enum Placeholders {
  /// `sql` with `$n` parameters (unless `parameters` is false) and long identifiers
  /// fitted, and how many parameters it takes (the largest number).
  static func rewrite(_ sql: String, parameters: Bool = true) -> (sql: String, count: Int) {
    let s = Array(sql.utf8)
    let limit = PostgresDialect.identifierBytes
    let hasParameters = parameters && s.contains(UInt8(ascii: "?"))
    guard hasParameters || (s.count > limit + 2 && s.contains(UInt8(ascii: "\""))) else { return (sql, 0) }
    var out: [UInt8] = []
    out.reserveCapacity(s.count + 8)
    var largest = 0
    var i = 0
    let n = s.count
    func isWordByte(_ c: UInt8) -> Bool {
      (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z")) || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z"))
        || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) || c == UInt8(ascii: "_") || c >= 0x80
    }
    /// Copies through the closing `quote` (doubled quotes stay inside; backslashes escape when `escapes`).
    func copyQuoted(_ quote: UInt8, escapes: Bool) {
      out.append(s[i])
      i += 1
      while i < n {
        let c = s[i]
        out.append(c)
        i += 1
        if escapes && c == UInt8(ascii: "\\") && i < n {
          out.append(s[i])
          i += 1
        } else if c == quote {
          if i < n && s[i] == quote {
            out.append(s[i])
            i += 1
          } else {
            return
          }
        }
      }
    }
    while i < n {
      let c = s[i]
      switch c {
      case UInt8(ascii: "'"):
        let escapes = i > 0 && (s[i - 1] == UInt8(ascii: "E") || s[i - 1] == UInt8(ascii: "e")) && (i < 2 || !isWordByte(s[i - 2]))
        copyQuoted(c, escapes: escapes)
      case UInt8(ascii: "\""):
        let start = out.count
        copyQuoted(c, escapes: false)
        if out.count - start > limit + 2 && out.last == UInt8(ascii: "\"") {
          let name = String(decoding: out[(start + 1)..<(out.count - 1)], as: UTF8.self).replacing("\"\"", with: "\"")
          if name.utf8.count > limit {
            out.removeSubrange(start...)
            out += Array(Identifier.quote(Identifier.fitted(name, limit: limit)).utf8)
          }
        }
      case UInt8(ascii: "-") where i + 1 < n && s[i + 1] == UInt8(ascii: "-"):
        while i < n && s[i] != UInt8(ascii: "\n") {
          out.append(s[i])
          i += 1
        }
      case UInt8(ascii: "/") where i + 1 < n && s[i + 1] == UInt8(ascii: "*"):
        // Block comments nest in PostgreSQL.
        var depth = 0
        repeat {
          if s[i] == UInt8(ascii: "/") && i + 1 < n && s[i + 1] == UInt8(ascii: "*") {
            depth += 1
            out += [s[i], s[i + 1]]
            i += 2
          } else if s[i] == UInt8(ascii: "*") && i + 1 < n && s[i + 1] == UInt8(ascii: "/") {
            depth -= 1
            out += [s[i], s[i + 1]]
            i += 2
          } else {
            out.append(s[i])
            i += 1
          }
        } while i < n && depth > 0
      case UInt8(ascii: "$") where i == 0 || !isWordByte(s[i - 1]):
        // A dollar quote `$tag$ ... $tag$` (the tag is empty or a word not starting with a digit).
        var j = i + 1
        while j < n && isWordByte(s[j]) && !(j == i + 1 && s[j] >= UInt8(ascii: "0") && s[j] <= UInt8(ascii: "9")) { j += 1 }
        guard j < n && s[j] == UInt8(ascii: "$") else {
          out.append(c)
          i += 1
          break
        }
        let tag = Array(s[i...j])
        out += tag
        i = j + 1
        while i < n {
          if s[i] == UInt8(ascii: "$") && i + tag.count <= n && Array(s[i..<(i + tag.count)]) == tag {
            out += tag
            i += tag.count
            break
          }
          out.append(s[i])
          i += 1
        }
      case UInt8(ascii: "?") where parameters:
        i += 1
        var number = 0
        var digits = 0
        while i < n && s[i] >= UInt8(ascii: "0") && s[i] <= UInt8(ascii: "9") {
          number = number * 10 + Int(s[i] - UInt8(ascii: "0"))
          digits += 1
          i += 1
        }
        if digits == 0 { number = largest + 1 }
        largest = max(largest, number)
        out += Array("$\(number)".utf8)
      default:
        out.append(c)
        i += 1
      }
    }
    return (String(decoding: out, as: UTF8.self), largest)
  }
}
