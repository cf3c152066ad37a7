import JSONCore

/// ISO 8601 dates without Foundation (whose formatters are slow and whose import costs
/// start-up time). Wire form: `YYYY-MM-DDTHH:MM:SS.sssZ`, always UTC, milliseconds.
/// Stored form: seconds since 1970-01-01T00:00:00Z as a double, rounded to the millisecond.
public enum ISODate {
  /// Parses `YYYY-MM-DD`, `YYYY-MM-DDTHH:MM[:SS[.fff...]]` with `Z` or `±HH:MM` / `±HHMM`
  /// (no zone means UTC). Returns seconds since 1970, rounded to the millisecond.
  public static func parse(_ s: String) -> Double? {
    var s = s
    return s.withUTF8 { parse(utf8: $0) }
  }

  /// The parse proper, over the string's bytes in place (no copy: it runs for every date
  /// written).
  static func parse(utf8 b: UnsafeBufferPointer<UInt8>) -> Double? {
    var i = 0
    func digits(_ n: Int) -> Int? {
      guard i + n <= b.count else { return nil }
      var v = 0
      for k in 0..<n {
        let c = b[i + k]
        guard c >= 48 && c <= 57 else { return nil }
        v = v * 10 + Int(c - 48)
      }
      i += n
      return v
    }
    func expect(_ c: UInt8) -> Bool {
      guard i < b.count, b[i] == c else { return false }
      i += 1
      return true
    }
    var sign = 1
    if i < b.count, b[i] == UInt8(ascii: "-") {
      sign = -1
      i += 1
    }
    guard let y0 = digits(4), expect(45), let mo = digits(2), expect(45), let d = digits(2) else { return nil }
    let y = sign * y0
    guard (1...12).contains(mo), d >= 1, d <= daysInMonth(y, mo) else { return nil }
    var h = 0, mi = 0, sec = 0
    var fracMillis = 0.0
    var offset = 0
    if i < b.count {
      guard b[i] == UInt8(ascii: "T") || b[i] == UInt8(ascii: "t") || b[i] == UInt8(ascii: " ") else { return nil }
      i += 1
      guard let hh = digits(2), expect(58), let mm = digits(2) else { return nil }
      h = hh
      mi = mm
      if expect(58) {
        guard let ss = digits(2) else { return nil }
        sec = ss
        if expect(46) || expect(44) {
          var scale = 100.0
          var any = false
          while i < b.count, b[i] >= 48, b[i] <= 57 {
            fracMillis += Double(b[i] - 48) * scale
            scale /= 10
            i += 1
            any = true
          }
          guard any else { return nil }
        }
      }
      guard h <= 23, mi <= 59, sec <= 60 else { return nil }
      if i < b.count {
        if b[i] == UInt8(ascii: "Z") || b[i] == UInt8(ascii: "z") {
          i += 1
        } else if b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") {
          let neg = b[i] == UInt8(ascii: "-")
          i += 1
          guard let oh = digits(2) else { return nil }
          _ = expect(58)
          guard let om = digits(2), oh <= 23, om <= 59 else { return nil }
          offset = (oh * 3600 + om * 60) * (neg ? -1 : 1)
        } else {
          return nil
        }
      }
      guard i == b.count else { return nil }
    }
    let days = daysFromCivil(y, mo, d)
    let whole = Double(days * 86400 + h * 3600 + mi * 60 + sec - offset)
    return (whole * 1000 + fracMillis).rounded() / 1000
  }

  /// The largest magnitude of seconds since 1970 that has a calendar date (about 3.17
  /// million years either way): every calendar computation on a date in range fits in
  /// 64-bit integers. A stored value beyond it (1e300, ±inf, a foreign writer's garbage)
  /// has no date.
  public static let maxSeconds = 1e14

  /// True when `seconds` is a finite number of seconds within `maxSeconds` of 1970.
  @inline(__always)
  public static func hasCalendarDate(_ seconds: Double) -> Bool { seconds.isFinite && abs(seconds) < maxSeconds }

  /// The wire form of a stored date: its ISO 8601 text when it has a calendar date;
  /// otherwise the stored number itself (`null` when not finite, as every non-finite
  /// number is written), so nothing traps and nothing is made up.
  public static func wireValue(_ seconds: Double) -> JSONValue {
    if hasCalendarDate(seconds) { return .string(format(seconds)) }
    return seconds.isFinite ? .double(seconds) : .null
  }

  /// Formats seconds since 1970 as `YYYY-MM-DDTHH:MM:SS.sssZ` (a hot path of every
  /// read: written byte by byte, no string interpolation).
  public static func format(_ seconds: Double) -> String {
    guard hasCalendarDate(seconds) else { return "invalid date" }
    return String(unsafeUninitializedCapacity: maxFormattedLength) { format(seconds, into: $0) }
  }

  /// The most bytes `format` writes: a sign, 7 digits of year (within `maxSeconds` of 1970
  /// is within 3.17 million years) and 20 more.
  public static let maxFormattedLength = 28

  /// Writes the bytes of `format(seconds)` at the start of `buf` (at least
  /// `maxFormattedLength` long) and returns how many; `seconds` must have a calendar date.
  public static func format(_ seconds: Double, into buf: UnsafeMutableBufferPointer<UInt8>) -> Int {
    precondition(hasCalendarDate(seconds) && buf.count >= maxFormattedLength)
    let totalMillis = Int64((seconds * 1000).rounded())
    var days = totalMillis / 86_400_000
    var rem = totalMillis % 86_400_000
    if rem < 0 {
      rem += 86_400_000
      days -= 1
    }
    let (y, m, d) = civilFromDays(Int(days))
    let h = Int(rem / 3_600_000), mi = Int(rem / 60_000 % 60), s = Int(rem / 1000 % 60), ms = Int(rem % 1000)
    var yearDigits = 4
    var more = abs(y) / 10_000
    while more > 0 {
      yearDigits += 1
      more /= 10
    }
    var i = 0
    func put(_ v: Int, _ width: Int) {
      var v = v
      var k = width - 1
      while k >= 0 {
        buf[i + k] = UInt8(48 + v % 10)
        v /= 10
        k -= 1
      }
      i += width
    }
    func sep(_ c: UInt8) {
      buf[i] = c
      i += 1
    }
    if y < 0 { sep(45) }
    put(abs(y), yearDigits)
    sep(45)
    put(m, 2)
    sep(45)
    put(d, 2)
    sep(84)
    put(h, 2)
    sep(58)
    put(mi, 2)
    sep(58)
    put(s, 2)
    sep(46)
    put(ms, 3)
    sep(90)
    return i
  }

  static func isLeap(_ y: Int) -> Bool { (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 }

  static func daysInMonth(_ y: Int, _ m: Int) -> Int {
    switch m {
    case 2: return isLeap(y) ? 29 : 28
    case 4, 6, 9, 11: return 30
    default: return 31
    }
  }

  /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
  public static func daysFromCivil(_ y0: Int, _ m: Int, _ d: Int) -> Int {
    let y = m <= 2 ? y0 - 1 : y0
    let era = (y >= 0 ? y : y - 399) / 400
    let yoe = y - era * 400
    let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
    return era * 146097 + doe - 719468
  }

  /// The civil date of a day count since 1970-01-01.
  public static func civilFromDays(_ z0: Int) -> (Int, Int, Int) {
    let z = z0 + 719468
    let era = (z >= 0 ? z : z - 146096) / 146097
    let doe = z - era * 146097
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
    let y = yoe + era * 400
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
    let mp = (5 * doy + 2) / 153
    let d = doy - (153 * mp + 2) / 5 + 1
    let m = mp < 10 ? mp + 3 : mp - 9
    return (m <= 2 ? y + 1 : y, m, d)
  }
}
