import SchemaModel

/// A POSIX TZ rule (`std offset [dst [offset] ,start[/time],end[/time]]`), as found in
/// the footer of a TZif file: how a zone keeps switching after its last listed transition.
///
/// Examples: `CET-1CEST,M3.5.0,M10.5.0/3` (Europe/Paris), `EST5EDT,M3.2.0,M11.1.0`
/// (America/New_York), `<+10>-10` (no summer time), `IST-1GMT0,M10.5.0,M3.5.0/1`
/// (Europe/Dublin, "negative" summer time). All three date forms are read: `Jn` (1...365,
/// February 29 never counted), `n` (0...365) and `Mm.w.d`; times may be negative or
/// beyond 24 hours (version 3). A summer-time name without a rule is not supported: such a
/// footer is ignored and the zone keeps the last listed offset.
struct PosixTimeZone {
  /// Seconds east of UTC in standard time (POSIX writes the opposite sign).
  let standardOffset: Int
  let daylight: Daylight?

  struct Daylight {
    let offset: Int
    let start: Rule
    let end: Rule
  }

  struct Rule {
    enum Day {
      case julianNoLeap(Int)
      case zeroBased(Int)
      case monthWeekDay(month: Int, week: Int, weekday: Int)
    }
    let day: Day
    /// Local wall-clock seconds after midnight of `day` (02:00 when not written).
    let time: Int
  }

  init?(_ text: String) {
    var p = Parser(Array(text.utf8))
    guard p.skipName(), let std = p.offset() else { return nil }
    standardOffset = -std
    if p.atEnd {
      daylight = nil
      return
    }
    guard p.skipName() else { return nil }
    var dst = standardOffset + 3600
    if !p.atEnd && !p.peek(",") {
      guard let o = p.offset() else { return nil }
      dst = -o
    }
    guard p.consume(","), let start = p.rule(), p.consume(","), let end = p.rule(), p.atEnd else { return nil }
    daylight = Daylight(offset: dst, start: start, end: end)
  }

  /// Seconds east of UTC in force at UTC seconds `t`. Instants beyond `ISODate.maxSeconds`
  /// (no calendar date) take the rule at that bound, so the arithmetic below stays far
  /// inside 64 bits (offsets and rule times are under 168 hours).
  func offset(at t0: Int64) -> Int {
    guard let d = daylight else { return standardOffset }
    let bound = Int64(ISODate.maxSeconds)
    let t = min(max(t0, -bound), bound)
    let localDays = Int((t + Int64(standardOffset)).floorDiv(86400))
    let year = CivilDate.fromDays(localDays).year
    // Summer time starts at a standard-time wall clock and ends at a summer-time one.
    let start = Int64(d.start.dayNumber(year) * 86400 + d.start.time - standardOffset)
    let end = Int64(d.end.dayNumber(year) * 86400 + d.end.time - d.offset)
    let inDaylight = start < end ? (start <= t && t < end) : !(end <= t && t < start)
    return inDaylight ? d.offset : standardOffset
  }

  /// Reads the TZ grammar left to right.
  private struct Parser {
    let b: [UInt8]
    var i = 0
    init(_ b: [UInt8]) { self.b = b }

    var atEnd: Bool { i >= b.count }
    func peek(_ c: Character) -> Bool { i < b.count && b[i] == c.asciiValue! }
    mutating func consume(_ c: Character) -> Bool {
      guard peek(c) else { return false }
      i += 1
      return true
    }

    /// `<+03>` or three or more letters.
    mutating func skipName() -> Bool {
      if consume("<") {
        while i < b.count && b[i] != UInt8(ascii: ">") { i += 1 }
        return consume(">")
      }
      let start = i
      while i < b.count, (b[i] | 0x20) >= 97, (b[i] | 0x20) <= 122 { i += 1 }
      return i - start >= 3
    }

    mutating func number() -> Int? {
      let start = i
      var v = 0
      while i < b.count, b[i] >= 48, b[i] <= 57, i - start < 6 {
        v = v * 10 + Int(b[i] - 48)
        i += 1
      }
      return i > start ? v : nil
    }

    /// `[+|-]hh[:mm[:ss]]` in seconds, POSIX sign (positive west of Greenwich).
    mutating func offset() -> Int? {
      var sign = 1
      if consume("-") { sign = -1 } else { _ = consume("+") }
      guard let h = number(), h <= 167 else { return nil }
      var s = h * 3600
      if consume(":") {
        guard let m = number(), m < 60 else { return nil }
        s += m * 60
        if consume(":") {
          guard let sec = number(), sec < 60 else { return nil }
          s += sec
        }
      }
      return sign * s
    }

    mutating func rule() -> Rule? {
      let day: Rule.Day
      if consume("J") {
        guard let n = number(), (1...365).contains(n) else { return nil }
        day = .julianNoLeap(n)
      } else if consume("M") {
        guard let m = number(), (1...12).contains(m), consume("."), let w = number(), (1...5).contains(w), consume("."),
          let d = number(), d <= 6
        else { return nil }
        day = .monthWeekDay(month: m, week: w, weekday: d)
      } else {
        guard let n = number(), n <= 365 else { return nil }
        day = .zeroBased(n)
      }
      var time = 7200
      if consume("/") {
        guard let t = offset() else { return nil }
        time = t
      }
      return Rule(day: day, time: time)
    }
  }
}

extension PosixTimeZone.Rule {
  /// Days since 1970-01-01 of this rule's day in `year`.
  func dayNumber(_ year: Int) -> Int {
    let jan1 = ISODate.daysFromCivil(year, 1, 1)
    switch day {
    case .julianNoLeap(let n):
      return jan1 + n - 1 + (CivilDate.isLeap(year) && n >= 60 ? 1 : 0)
    case .zeroBased(let n):
      return jan1 + n
    case .monthWeekDay(let month, let week, let weekday):
      let first = ISODate.daysFromCivil(year, month, 1)
      var d = first + (weekday - CivilDate.weekday(first) + 7) % 7 + 7 * (week - 1)
      // Week 5 means the last such weekday of the month.
      while d >= first + CivilDate.daysInMonth(year, month) { d -= 7 }
      return d
    }
  }
}
