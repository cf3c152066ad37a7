import DatabaseKit
import Foundation
import JSONCore

/// `MATCHES` inside SQLite: `ms_regexp(pattern, text, flags, offset, place, node)` is 1 when the
/// whole text matches the pattern (ICU, as NSPredicate's MATCHES, through
/// NSRegularExpression), 0 when not, nil when the text is nil. Flags: 1 case-insensitive
/// (`[c]`), 2 diacritic-insensitive (`[d]`, folding both sides as `ms_fold` does).
/// `offset` and `place` (`ErrorPlace.encoded`: the predicate's, or with `node` 1 the JSON-form
/// node's) name the comparison in errors.
///
/// The work of one match is bounded (`budget`): ICU reports progress every `stepsPerTick`
/// steps of its engine, and the match stops with a `predicate` error once the budget is
/// spent, or with `cancelled` as soon as the request is cancelled. Compiled patterns are
/// cached per connection, since the same pattern is applied to every row.
enum RegexMatching {
  private final class Cache {
    var patterns: [String: NSRegularExpression] = [:]
  }

  /// How many distinct patterns a connection keeps compiled.
  private static let cacheLimit = 64
  /// ICU calls back every 10,000 steps of its matching engine (TIMER_INITIAL_VALUE).
  static let stepsPerTick = 10_000
  /// A match may take 100,000 steps, plus 100 per UTF-16 unit of the text: enough for any
  /// pattern that does not backtrack catastrophically, linear in the size of the value.
  static let baseSteps = 100_000
  static let stepsPerUnit = 100

  static func budget(units: Int) -> Int { baseSteps + stepsPerUnit * units }

  /// The pattern as written must compile; it is then wrapped to match the whole text
  /// (`(?:pattern)\z`, the match anchored at the start).
  static func compile(_ pattern: String, flags: Int64) throws -> NSRegularExpression {
    let source = flags & 2 != 0 ? TextFolding.fold(pattern, caseInsensitive: false, diacriticInsensitive: true) : pattern
    let options: NSRegularExpression.Options = flags & 1 != 0 ? [.caseInsensitive] : []
    // (NSRegularExpression refuses the empty pattern, which matches the empty text.)
    do { if !source.isEmpty { _ = try NSRegularExpression(pattern: source, options: options) } } catch {
      // ICU gives no reason; Swift's parser of the same syntax usually does.
      var reason = ""
      do { _ = try Regex(source) } catch { reason = ": \(error)" }
      throw RegexError("invalid regular expression '\(pattern)'\(reason)")
    }
    // A `\Q` quote left open would swallow the wrapper: close it first.
    let body = endsInsideQuote(source) ? source + "\\E" : source
    if let whole = try? NSRegularExpression(pattern: "(?:" + body + ")\\z", options: options) { return whole }
    // A `#` comment of `(?x)` mode ran to the end: end its line (whitespace in that mode).
    return try NSRegularExpression(pattern: "(?:" + body + "\n)\\z", options: options)
  }

  /// True when `pattern` ends inside `\Q...` (no `\E` after the last `\Q`).
  private static func endsInsideQuote(_ pattern: String) -> Bool {
    var quoted = false
    var escaped = false
    for c in pattern.unicodeScalars {
      if escaped {
        escaped = false
        if quoted { quoted = c != "E" } else if c == "Q" { quoted = true }
      } else if c == "\\" {
        escaped = true
      }
    }
    return quoted
  }

  /// Whether `regex` matches all of `text`, within the budget; throws `predicate` past
  /// it (naming `place`), `cancelled` when `isCancelled` turns true.
  static func wholeMatch(
    _ regex: NSRegularExpression, _ text: String, pattern: String, place: Place, isCancelled: @escaping () -> Bool
  ) throws -> Bool {
    let units = text.utf16.count
    let ticks = budget(units: units) / stepsPerTick
    var spent = 0
    var matched = false
    var failure: StoreError?
    regex.enumerateMatches(in: text, options: [.anchored, .reportProgress, .reportCompletion], range: NSRange(location: 0, length: units)) {
      match, flags, stop in
      if match != nil {
        matched = true
        stop.pointee = true
      } else if flags.contains(.internalError), failure == nil {
        failure = place.error("MATCHES '\(pattern)' failed on a value of \(units) UTF-16 units (ICU's backtracking memory limit)")
      } else if flags.contains(.progress) {
        spent += 1
        if isCancelled() {
          failure = StoreError(.cancelled, "the request was cancelled")
          stop.pointee = true
        } else if spent > ticks {
          failure = place.error(
            "MATCHES '\(pattern)' needed more than \(budget(units: units)) steps on a value of \(units) UTF-16 units "
              + "(the limit is \(baseSteps) plus \(stepsPerUnit) per unit): the pattern backtracks too much")
          stop.pointee = true
        }
      }
    }
    if let failure { throw failure }
    return matched
  }

  /// Where the comparison is, for errors raised while the statement runs.
  struct Place {
    var offset: Int
    /// The predicate's place, or the comparison's node when `node` (the JSON form).
    var place: ErrorPlace
    var node: Bool

    func error(_ message: String) -> StoreError {
      if node { return StoreError(.predicate, at: place, message) }
      return StoreError.predicate(PredicateError(message, offset: offset), at: place)
    }
  }

  static func register(on connection: any DatabaseConnection) throws {
    let cache = Cache()
    try connection.createFunction("ms_regexp", argumentCount: 6) { [weak connection] args in
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
      guard case .integer(let flags) = args[2], case .integer(let offset) = args[3] else {
        throw RegexError("ms_regexp flags and offset must be integers")
      }
      var predicatePlace = ErrorPlace(.where)
      if case .text(let p) = args[4], let decoded = ErrorPlace(encoded: p) { predicatePlace = decoded }
      let key = "\(flags):\(pattern)"
      let regex: NSRegularExpression
      if let cached = cache.patterns[key] {
        regex = cached
      } else {
        regex = try compile(pattern, flags: flags)
        if cache.patterns.count >= cacheLimit { cache.patterns.removeAll() }
        cache.patterns[key] = regex
      }
      let subject = flags & 2 != 0 ? TextFolding.fold(text, caseInsensitive: false, diacriticInsensitive: true) : text
      let place = Place(offset: Int(offset), place: predicatePlace, node: args[5] == .integer(1))
      let matched = try wholeMatch(regex, subject, pattern: pattern, place: place) { connection?.pollInterrupt() ?? false }
      return .integer(matched ? 1 : 0)
    }
  }

  struct RegexError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
  }
}
