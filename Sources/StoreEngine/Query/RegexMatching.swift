import SQLiteCore

/// `MATCHES` inside SQLite: `ms_regexp(pattern, text, flags)` is 1 when the whole text
/// matches the pattern (Swift `Regex`, ICU-style syntax), 0 when not, nil when the text is
/// nil. Flags: 1 case-insensitive (`[c]`), 2 diacritic-insensitive (`[d]`, folding both
/// sides as `ms_fold` does). Compiled patterns are cached per connection, since the same
/// pattern is applied to every row.
enum RegexMatching {
  private final class Cache {
    var patterns: [String: Regex<AnyRegexOutput>] = [:]
  }

  /// How many distinct patterns a connection keeps compiled.
  private static let cacheLimit = 64

  static func compile(_ pattern: String, flags: Int64) throws -> Regex<AnyRegexOutput> {
    let source = flags & 2 != 0 ? TextFolding.fold(pattern, caseInsensitive: false, diacriticInsensitive: true) : pattern
    // Unicode scalars, not characters: like ICU (NSPredicate's engine), and like every other
    // operator here, "É" and "E\u{301}" are different text unless [d] folds them.
    let regex = try Regex(source).matchingSemantics(.unicodeScalar)
    return flags & 1 != 0 ? regex.ignoresCase() : regex
  }

  static func register(on connection: Connection) throws {
    let cache = Cache()
    try connection.createFunction("ms_regexp", argumentCount: 3) { args in
      guard case .text(let pattern) = args[0] else {
        if case .null = args[0] { return .null }
        throw RegexError("MATCHES needs a string pattern")
      }
      let text: String
      switch args[1] {
      case .null: return .null
      case .text(let s): text = s
      case .integer(let i): text = String(i)
      case .real(let d): text = String(d)
      case .blob: return .integer(0)
      }
      guard case .integer(let flags) = args[2] else { throw RegexError("ms_regexp flags must be an integer") }
      let key = "\(flags):\(pattern)"
      let regex: Regex<AnyRegexOutput>
      if let cached = cache.patterns[key] {
        regex = cached
      } else {
        do { regex = try compile(pattern, flags: flags) } catch { throw RegexError("invalid regular expression '\(pattern)': \(error)") }
        if cache.patterns.count >= cacheLimit { cache.patterns.removeAll() }
        cache.patterns[key] = regex
      }
      let subject = flags & 2 != 0 ? TextFolding.fold(text, caseInsensitive: false, diacriticInsensitive: true) : text
      return .integer((try? regex.wholeMatch(in: subject)) != nil ? 1 : 0)
    }
  }

  struct RegexError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
  }
}
