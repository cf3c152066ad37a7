#if canImport(Glibc)
  import Glibc
#endif

/// A time zone as the offset from UTC in force at each instant, read without Foundation
/// (whose import would cost start-up time): `UTC`, a fixed offset `±HH:MM`, or an IANA
/// name read from the system's compiled tz database (`/usr/share/zoneinfo/NAME`, or
/// `$TZDIR/NAME`), a TZif file (RFC 8536) of version 1 to 4.
///
/// From a TZif file it keeps the transition times and the offset each one starts (the
/// 64-bit block when the file has one) and, past the last transition, follows the
/// footer's POSIX TZ rule (`CET-1CEST,M3.5.0,M10.5.0/3`), so dates after 2037 still
/// switch between winter and summer time.
public final class TimeZoneRules {
  /// The name the client gave (`Europe/Paris`, `+02:00`, `UTC`).
  public let identifier: String
  /// UTC seconds at which a new offset starts, ascending.
  private let transitions: [Int64]
  /// Seconds east of UTC from `transitions[i]` on.
  private let offsets: [Int32]
  /// Seconds east of UTC before the first transition (or always, without transitions).
  private let initialOffset: Int32
  /// The rule past the last transition, from a version 2+ footer.
  private let footer: PosixTimeZone?

  private init(identifier: String, transitions: [Int64], offsets: [Int32], initialOffset: Int32, footer: PosixTimeZone?) {
    self.identifier = identifier
    self.transitions = transitions
    self.offsets = offsets
    self.initialOffset = initialOffset
    self.footer = footer
  }

  /// Seconds to add to UTC seconds `t` to get local wall-clock seconds. Total: the footer
  /// rule is asked only about instants with a calendar date (see `PosixTimeZone.offset`).
  public func offset(at t: Int64) -> Int {
    guard let last = transitions.last else { return footer?.offset(at: t) ?? Int(initialOffset) }
    if t >= last { return footer?.offset(at: t) ?? Int(offsets[offsets.count - 1]) }
    if t < transitions[0] { return Int(initialOffset) }
    // The last transition at or before t.
    var lo = 0
    var hi = transitions.count - 1
    while lo < hi {
      let mid = (lo + hi + 1) / 2
      if transitions[mid] <= t { lo = mid } else { hi = mid - 1 }
    }
    return Int(offsets[lo])
  }

  // MARK: - Loading

  /// Why a time zone could not be loaded, in words for an error message.
  public struct LoadError: Error, CustomStringConvertible {
    public let reason: String
    public init(reason: String) { self.reason = reason }
    public var description: String { reason }
  }

  /// `UTC` (also `GMT`, `Z`), `±HH:MM` / `±HHMM` / `±HH`, or an IANA zone name.
  public static func load(_ id: String) throws -> TimeZoneRules {
    if id == "UTC" || id == "GMT" || id == "Z" { return fixed(id, 0) }
    if let first = id.utf8.first, first == UInt8(ascii: "+") || first == UInt8(ascii: "-") {
      guard let seconds = fixedOffset(id) else {
        throw LoadError(reason: "a fixed offset is written ±HH:MM, from -18:00 to +18:00")
      }
      return fixed(id, seconds)
    }
    guard isSafeName(id) else {
      throw LoadError(reason: "a zone name is made of letters, digits, '_', '-', '+' and '/' (like 'Europe/Paris')")
    }
    let dir = getenv("TZDIR").map { String(cString: $0) } ?? "/usr/share/zoneinfo"
    guard let bytes = readFile(dir + "/" + id) else { throw LoadError(reason: "no such zone in the tz database") }
    guard let rules = parseTZif(bytes, identifier: id) else { throw LoadError(reason: "\(dir)/\(id) is not a TZif file") }
    return rules
  }

  private static func fixed(_ id: String, _ seconds: Int) -> TimeZoneRules {
    TimeZoneRules(identifier: id, transitions: [], offsets: [], initialOffset: Int32(seconds), footer: nil)
  }

  /// `+02:00`, `-0530`, `+05` as seconds east of UTC.
  static func fixedOffset(_ s: String) -> Int? {
    let b = Array(s.utf8)
    guard b.count >= 3 else { return nil }
    let sign = b[0] == UInt8(ascii: "-") ? -1 : 1
    let digits = b[1...].filter { $0 != UInt8(ascii: ":") }
    guard digits.count == 2 || digits.count == 4, digits.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
    if b.count == 6 && b[3] != UInt8(ascii: ":") { return nil }
    if b.count != 3 && b.count != 5 && b.count != 6 { return nil }
    let v = digits.map { Int($0 - 48) }
    let h = v[0] * 10 + v[1]
    let m = digits.count == 4 ? v[2] * 10 + v[3] : 0
    guard m < 60, h * 60 + m <= 18 * 60 else { return nil }
    return sign * (h * 3600 + m * 60)
  }

  /// No absolute paths, no `..`: the name can only reach files under the zone directory.
  private static func isSafeName(_ id: String) -> Bool {
    guard !id.isEmpty, id.utf8.count <= 255 else { return false }
    for part in id.split(separator: "/", omittingEmptySubsequences: false) {
      guard !part.isEmpty, part != ".", part != ".." else { return false }
      for c in part.utf8 {
        let ok =
          (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c == UInt8(ascii: "_") || c == UInt8(ascii: "-")
          || c == UInt8(ascii: "+")
        if !ok { return false }
      }
    }
    return true
  }

  private static func readFile(_ path: String) -> [UInt8]? {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var out: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 8192)
    while true {
      let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if n < 0 { return nil }
      if n == 0 { break }
      out.append(contentsOf: chunk[0..<n])
      // Real zone files are a few kilobytes; anything far larger is not one.
      if out.count > 1 << 20 { return nil }
    }
    return out
  }

  // MARK: - TZif

  /// Parses a TZif file: header, v1 data block (32-bit times), and for version 2+ a
  /// second header and data block (64-bit times) followed by the `\nTZ-string\n` footer.
  static func parseTZif(_ b: [UInt8], identifier: String) -> TimeZoneRules? {
    guard let v1 = Header(b, at: 0) else { return nil }
    guard v1.version >= 2 else { return block(b, header: v1, at: 44, timeSize: 4, identifier: identifier, footer: nil) }
    let second = 44 + v1.dataSize(timeSize: 4)
    guard let v2 = Header(b, at: second) else { return nil }
    let data = second + 44
    let footerStart = data + v2.dataSize(timeSize: 8)
    var footer: PosixTimeZone?
    if footerStart < b.count, b[footerStart] == 10, let end = b[(footerStart + 1)...].firstIndex(of: 10), end > footerStart + 1 {
      footer = PosixTimeZone(String(decoding: b[(footerStart + 1)..<end], as: UTF8.self))
    }
    return block(b, header: v2, at: data, timeSize: 8, identifier: identifier, footer: footer)
  }

  private struct Header {
    let version: Int
    let isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt: Int

    init?(_ b: [UInt8], at i: Int) {
      guard i + 44 <= b.count, b[i] == 0x54, b[i + 1] == 0x5A, b[i + 2] == 0x69, b[i + 3] == 0x66 else { return nil }
      version = b[i + 4] == 0 ? 1 : Int(b[i + 4]) - 48
      func count(_ k: Int) -> Int { Int(readUInt32(b, i + 20 + 4 * k)) }
      (isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt) = (count(0), count(1), count(2), count(3), count(4), count(5))
      guard version >= 1, typecnt >= 1 else { return nil }
    }

    func dataSize(timeSize: Int) -> Int {
      timecnt * timeSize + timecnt + typecnt * 6 + charcnt + leapcnt * (timeSize + 4) + isstdcnt + isutcnt
    }
  }

  private static func block(
    _ b: [UInt8], header h: Header, at start: Int, timeSize: Int, identifier: String, footer: PosixTimeZone?
  ) -> TimeZoneRules? {
    guard start + h.dataSize(timeSize: timeSize) <= b.count else { return nil }
    let indexStart = start + h.timecnt * timeSize
    let typeStart = indexStart + h.timecnt
    var typeOffsets: [Int32] = []
    for k in 0..<h.typecnt { typeOffsets.append(Int32(bitPattern: readUInt32(b, typeStart + 6 * k))) }
    var transitions: [Int64] = []
    var offsets: [Int32] = []
    for k in 0..<h.timecnt {
      let t = timeSize == 8 ? Int64(bitPattern: readUInt64(b, start + 8 * k)) : Int64(Int32(bitPattern: readUInt32(b, start + 4 * k)))
      let type = Int(b[indexStart + k])
      guard type < h.typecnt else { return nil }
      transitions.append(t)
      offsets.append(typeOffsets[type])
    }
    return TimeZoneRules(
      identifier: identifier, transitions: transitions, offsets: offsets, initialOffset: typeOffsets[0], footer: footer)
  }

  private static func readUInt32(_ b: [UInt8], _ i: Int) -> UInt32 {
    UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
  }

  private static func readUInt64(_ b: [UInt8], _ i: Int) -> UInt64 {
    UInt64(readUInt32(b, i)) << 32 | UInt64(readUInt32(b, i + 4))
  }
}

/// The zones a store has loaded, each read from disk once. Owned by the store and used
/// on its thread only (by request validation and by the `ms_bucket` SQL function).
public final class TimeZoneCache {
  private var zones: [String: TimeZoneRules] = [:]
  /// The zone of the previous call: a query asks for one zone row after row.
  private var last: TimeZoneRules?

  public init() {}

  public func rules(_ id: String) throws -> TimeZoneRules {
    if let last, last.identifier == id { return last }
    if let z = zones[id] {
      last = z
      return z
    }
    let z = try TimeZoneRules.load(id)
    zones[id] = z
    last = z
    return z
  }
}
