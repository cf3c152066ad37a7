import JSONCore
import SchemaModel
import XCTest

@testable import StoreEngine

// The fixed model of the differential test and the evaluator's copy of the data.
//
//   Author (name, nick?, born?, rating?)  mentor -> Author (to-one, no inverse)
//     books <->> Book.author
//   Book (title, subtitle?, pages, stock?, price? decimal, rating?, published? bool, released? date)
//     tags <<->> Tag.books
//   Tag (label, weight?)

/// Attribute types the model uses.
enum DType: String { case string, int, double, decimal, date, bool }

/// A value as the evaluator sees it. Numbers of every kind (int, double, date seconds,
/// bool 0/1, primary keys, counts) are doubles: all stay far below 2^53.
enum DVal: Equatable, CustomStringConvertible {
  case null
  case num(Double)
  case text(String)
  /// Canonical decimal text: equality on the text, ordering on its numeric value.
  case dec(String)

  var isNull: Bool { self == .null }
  var description: String {
    switch self {
    case .null: return "nil"
    case .num(let d): return d == d.rounded() && abs(d) < 1e15 ? String(Int64(d)) : "\(d)"
    case .text(let s): return "\"\(s.unicodeScalars.map { $0.isASCII ? String($0) : "\\u{\(String($0.value, radix: 16))}" }.joined())\""
    case .dec(let s): return "dec(\(s))"
    }
  }
}

/// One object of the snapshot.
struct DObj {
  let entity: String
  let pk: Int64
  var attrs: [String: DVal] = [:]
  var one: [String: Int64] = [:]  // to-one: absent means nil
  var many: [String: [Int64]] = [:]
  var id: String { "\(entity)/\(pk)" }
}

/// What a key path ends in.
enum DKind: Equatable {
  case attr(DType)
  case toOne(String)  // destination entity
  case count
}

struct DKey: Equatable {
  var path: [String]
  var kind: DKind
  var text: String { path.joined(separator: ".") }
  var isString: Bool { kind == .attr(.string) }
}

/// The schema, as data the generator and evaluator walk.
enum DSchema {
  static let entities = ["Author", "Book", "Tag"]
  static let attributes: [String: [(name: String, type: DType)]] = [
    "Author": [("name", .string), ("nick", .string), ("born", .date), ("rating", .double)],
    "Book": [
      ("title", .string), ("subtitle", .string), ("pages", .int), ("stock", .int), ("price", .decimal), ("rating", .double),
      ("published", .bool), ("released", .date),
    ],
    "Tag": [("label", .string), ("weight", .int)],
  ]
  static let toOne: [String: [String: String]] = ["Author": ["mentor": "Author"], "Book": ["author": "Author"], "Tag": [:]]
  static let toMany: [String: [String: String]] = ["Author": ["books": "Book"], "Book": ["tags": "Tag"], "Tag": ["books": "Book"]]

  static func type(_ entity: String, _ attribute: String) -> DType? { attributes[entity]?.first { $0.name == attribute }?.type }

  static var json: JSONValue {
    schema(
      entity(
        "Author",
        [attr("name", "string"), attr("nick", "string", optional: true), attr("born", "date", optional: true), attr("rating", "double", optional: true)],
        relationships: [rel("books", "Book", inverse: "author", toMany: true), rel("mentor", "Author", optional: true)]),
      entity(
        "Book",
        [
          attr("title", "string"), attr("subtitle", "string", optional: true), attr("pages", "int"), attr("stock", "int", optional: true),
          attr("price", "decimal", optional: true), attr("rating", "double", optional: true), attr("published", "bool", optional: true),
          attr("released", "date", optional: true, indexed: true),
        ],
        relationships: [rel("author", "Author", inverse: "books", optional: true), rel("tags", "Tag", inverse: "books", toMany: true)]),
      entity("Tag", [attr("label", "string"), attr("weight", "int", optional: true)], relationships: [rel("books", "Book", inverse: "tags", toMany: true)]))
  }

  /// Key paths a comparison or sort may use, per entity: attributes, to-one paths (one
  /// and two hops), the to-one itself, and `@count` of to-manys (also behind a to-one).
  static let keys: [String: [DKey]] = {
    var out: [String: [DKey]] = [:]
    for e in entities {
      var ks: [DKey] = []
      func add(_ prefix: [String], _ entity: String, depth: Int) {
        for a in attributes[entity]! { ks.append(DKey(path: prefix + [a.name], kind: .attr(a.type))) }
        for (r, _) in toMany[entity]!.sorted(by: { $0.key < $1.key }) { ks.append(DKey(path: prefix + [r, "@count"], kind: .count)) }
        for (r, dest) in toOne[entity]!.sorted(by: { $0.key < $1.key }) {
          ks.append(DKey(path: prefix + [r], kind: .toOne(dest)))
          if depth < 2 { add(prefix + [r], dest, depth: depth + 1) }
        }
      }
      add([], e, depth: 0)
      out[e] = ks
    }
    return out
  }()
}

// MARK: - Dates (independent of the engine's ISODate)

enum DDate {
  static func daysFromCivil(_ y0: Int, _ m: Int, _ d: Int) -> Int {
    let y = m <= 2 ? y0 - 1 : y0
    let era = (y >= 0 ? y : y - 399) / 400
    let yoe = y - era * 400
    let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
    return era * 146097 + doe - 719468
  }

  static func civil(_ z0: Int) -> (Int, Int, Int) {
    let z = z0 + 719468
    let era = (z >= 0 ? z : z - 146096) / 146097
    let doe = z - era * 146097
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
    let mp = (5 * doy + 2) / 153
    let d = doy - (153 * mp + 2) / 5 + 1
    let m = mp < 10 ? mp + 3 : mp - 9
    return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
  }

  static func pad(_ v: Int, _ w: Int) -> String {
    let s = String(v)
    return String(repeating: "0", count: max(0, w - s.count)) + s
  }

  /// `YYYY-MM-DDTHH:MM:SS.sss` + zone, for an instant given in milliseconds, written in
  /// the zone `offsetMinutes` east of UTC ("Z" when nil).
  static func iso(millis: Int64, offsetMinutes: Int? = nil, dateOnly: Bool = false) -> String {
    let local = millis + Int64((offsetMinutes ?? 0) * 60_000)
    var days = local / 86_400_000
    var rem = local % 86_400_000
    if rem < 0 {
      rem += 86_400_000
      days -= 1
    }
    let (y, m, d) = civil(Int(days))
    let date = "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))"
    if dateOnly { return date }
    let r = Int(rem)
    var s = "\(date)T\(pad(r / 3_600_000, 2)):\(pad(r / 60_000 % 60, 2)):\(pad(r / 1000 % 60, 2)).\(pad(r % 1000, 3))"
    if let o = offsetMinutes {
      s += (o < 0 ? "-" : "+") + pad(abs(o) / 60, 2) + ":" + pad(abs(o) % 60, 2)
    } else {
      s += "Z"
    }
    return s
  }

  /// Parses the store's output form `YYYY-MM-DDTHH:MM:SS.sssZ` to seconds.
  static func parseOutput(_ s: String) -> Double? {
    let b = Array(s.utf8)
    guard b.count == 24, b[23] == UInt8(ascii: "Z") else { return nil }
    func n(_ from: Int, _ len: Int) -> Int { b[from..<from + len].reduce(0) { $0 * 10 + Int($1 - 48) } }
    let days = daysFromCivil(n(0, 4), n(5, 2), n(8, 2))
    let ms = Int64(days) * 86_400_000 + Int64(n(11, 2) * 3_600_000 + n(14, 2) * 60_000 + n(17, 2) * 1000 + n(20, 3))
    return Double(ms) / 1000
  }
}

// MARK: - Decimals

enum DDecimal {
  /// The canonical text of a decimal input (as protocol.md's wire encoding describes it).
  static func canonical(_ s: String) -> String {
    var t = Substring(s)
    var neg = false
    if t.first == "+" || t.first == "-" {
      neg = t.first == "-"
      t = t.dropFirst()
    }
    let parts = t.split(separator: ".", omittingEmptySubsequences: false)
    var ip = String(parts[0].drop { $0 == "0" })
    var fp = parts.count > 1 ? String(parts[1]) : ""
    while fp.last == "0" { fp.removeLast() }
    if ip.isEmpty { ip = "0" }
    let body = fp.isEmpty ? ip : ip + "." + fp
    return (neg && body != "0" ? "-" : "") + body
  }

  static func value(_ canonical: String) -> Double { Double(canonical)! }
}

// MARK: - The data

/// Pools with repeats, case and diacritic variants, decomposed forms, wildcard and
/// quote characters, Greek, Cyrillic, CJK and the empty string.
enum DPools {
  static let titles = [
    "Emma", "emma", "EMMA", "Émile", "émile", "Emile", "E\u{301}mile", "straße", "STRASSE", "Strasse", "strasse", "Ärger", "ärger",
    "Äpfel", "apfel", "Ωμέγα", "ωμεγα", "ΩΜΕΓΑ", "Αθήνα", "αθηνα", "naïve", "naive", "NAÏVE", "Øre", "øre", "łódź", "Łódź", "lodz",
    "café", "CAFÉ", "cafe", "a*b", "a?b", "[x]", "x]y", "it's", "say \"hi\"", "back\\slash", "", " ", "ab", "abc", "ABC", "abcabc",
    "b", "zz", "日本語", "ﬁne", "İz", "Кириллица", "йод", "ЙОД", "tab\there", "line\nbreak", "100%", "_under_", "Émile Zola",
  ]
  static let names = [
    "Zola", "zola", "Émile Zola", "Emile Zola", "Jane Austen", "jane austen", "Ōe Kenzaburō", "Oe Kenzaburo", "Gauß", "GAUSS", "Gauss",
    "Müller", "MÜLLER", "Muller", "Σωκράτης", "σωκρατης", "Άλφα", "αλφα", "Łukasz", "lukasz", "Ñandú", "nandu", "", "anonymous",
    "O'Brien", "Ἀριστοτέλης", "Emma",
  ]
  static let labels = [
    "classic", "Classic", "CLASSIC", "français", "francais", "FRANÇAIS", "sci-fi", "ß", "SS", "ss", "Ελληνικά", "ελληνικα", "日本", "",
    "a*b", "x[y]", "noir", "Noir",
  ]
  static let decimals: [JSONValue] = [
    "12.50", "12.5", "+7", "007.5", "100", "100.00", "-0.0", "0.05", "1234567.89", "-3.25", "-3.250", "9.99", "10", "0", ".5", "42",
    42, 7, "12345678901234567890.12", "-1000", "0.1", "0.10",
  ]
  static let pages: [Int64] = [0, 1, 7, 42, 100, 120, 249, 250, 448, 474, 592, 1000, -5, 3_000_000_000]
  static let ratings: [Double] = [0, 0.5, 1.25, 2.5, 3.75, 4, 4.5, 5, -1, 0.1, 0.30000000000000004, 0.3, 1e-7, 123456.75]
}

/// Generates the data and loads it into the store: one `context.save` with `$ref`s
/// (forward references included), then a few plain inserts and updates.
struct DData {
  static func load(into store: Store, rng r0: DiffRandom) throws {
    var rng = r0
    // A pool of instants (ms), repeats intended: pre-1970, the epoch, half seconds, 9999.
    var instants: [Int64] = [0, -500, 253_402_300_799_999, -6_106_060_800_000]
    for _ in 0..<16 {
      let day = Int64(rng.int(in: -120_000...60_000))
      let ms = rng.pick([0, 0, 0, 500, 123, 999, 43_200_000, 3_600_001] as [Int64])
      instants.append(day * 86_400_000 + ms)
    }
    func dateJSON(_ ms: Int64) -> JSONValue {
      switch rng.int(4) {
      case 0 where ms < 253_000_000_000_000: return .string(DDate.iso(millis: ms, offsetMinutes: rng.pick([60, -300, 330, 0])))
      case 1 where ms % 86_400_000 == 0: return .string(DDate.iso(millis: ms, dateOnly: true))
      default: return .string(DDate.iso(millis: ms))
      }
    }
    let tagCount = 14, authorCount = 50, bookCount = 210
    var changes: [Change] = []
    for i in 0..<tagCount {
      var v: JSONObject = ["label": .string(rng.pick(DPools.labels))]
      if rng.chance(0.7) { v.append("weight", .int(Int64(rng.int(in: -3...10)))) }
      changes.append(.insert(entity: "Tag", ref: "$t\(i)", values: v))
    }
    for i in 0..<authorCount {
      var v: JSONObject = ["name": .string(rng.pick(DPools.names))]
      if rng.chance(0.6) { v.append("nick", .string(rng.pick(rng.chance(0.5) ? DPools.names : DPools.titles))) }
      if rng.chance(0.75) { v.append("born", dateJSON(rng.pick(instants))) }
      if rng.chance(0.7) { v.append("rating", .double(rng.pick(DPools.ratings))) }
      if rng.chance(0.5) { v.append("mentor", .string("$a\(rng.int(authorCount))")) }  // may point forward, or to itself
      changes.append(.insert(entity: "Author", ref: "$a\(i)", values: v))
    }
    for i in 0..<bookCount {
      var v: JSONObject = ["title": .string(rng.pick(DPools.titles)), "pages": .int(rng.pick(DPools.pages))]
      if rng.chance(0.7) { v.append("subtitle", .string(rng.pick(rng.chance(0.3) ? DPools.names : DPools.titles))) }
      if rng.chance(0.6) { v.append("stock", .int(Int64(rng.int(in: -2...500)))) }
      if rng.chance(0.75) { v.append("price", rng.pick(DPools.decimals)) }
      if rng.chance(0.7) { v.append("rating", .double(rng.pick(DPools.ratings))) }
      if rng.chance(0.8) { v.append("published", .bool(rng.chance(0.5))) }
      if rng.chance(0.7) { v.append("released", dateJSON(rng.pick(instants))) }
      if rng.chance(0.85) { v.append("author", .string("$a\(rng.int(authorCount))")) }
      var tags: [JSONValue] = []
      for t in 0..<tagCount where rng.chance(0.12) { tags.append(.string("$t\(t)")) }
      v.append("tags", .array(tags))
      changes.append(.insert(entity: "Book", ref: "$b\(i)", values: v))
    }
    _ = try store.save(changes)
    // A few plain writes: inserts, a to-many assignment from the Author side (inverse
    // upkeep moves books), and updates that set values back to nil.
    for _ in 0..<6 {
      try store.add("Book", ["title": .string(rng.pick(DPools.titles)), "pages": .int(rng.pick(DPools.pages))])
    }
    _ = try store.update(id: "Author/\(1 + rng.int(authorCount))", values: ["books": .array([.string("Book/\(1 + rng.int(bookCount))")])])
    for _ in 0..<5 {
      _ = try store.update(id: "Book/\(1 + rng.int(bookCount))", values: ["price": .null, "published": .null, "author": .null])
    }
    // Always: a mentor without books, so `mentor.books.@count` is 0 for some and nil
    // (no mentor) for others, whatever the seed.
    let lonely = try store.add("Author", ["name": "Émile", "nick": "E\u{301}mile"])
    for _ in 0..<3 { _ = try store.update(id: "Author/\(1 + rng.int(authorCount))", values: ["mentor": .string(lonely)]) }
  }
}

// MARK: - The snapshot the evaluator works on

/// Every object, read back with `query.fetch` (no predicate), so the evaluator sees the
/// stored form (canonical decimals, millisecond dates) and the inverses the store kept.
final class DWorld {
  var objects: [String: [Int64: DObj]] = [:]
  var pks: [String: [Int64]] = [:]
  /// Every distinct value per entity and attribute, for generating right sides.
  var values: [String: [String: [DVal]]] = [:]

  init(store: Store) throws {
    for e in DSchema.entities {
      var map: [Int64: DObj] = [:]
      var seen: [String: [DVal]] = [:]
      var request = FetchRequest(entity: e)
      request.toMany = .ids
      for o in try store.fetch(request) {
        guard let id = o["_id"]?.stringValue, let oid = ObjectID(id) else { throw DError("bad _id in \(o)") }
        var obj = DObj(entity: e, pk: oid.pk)
        for (name, type) in DSchema.attributes[e]! {
          let v = try Self.decode(o[name] ?? .null, type, "\(id).\(name)")
          obj.attrs[name] = v
          if !v.isNull, !(seen[name] ?? []).contains(v) { seen[name, default: []].append(v) }
        }
        for (r, _) in DSchema.toOne[e]! {
          if let s = o[r]?.stringValue { obj.one[r] = ObjectID(s)!.pk }
        }
        for (r, _) in DSchema.toMany[e]! { obj.many[r] = (o[r]?.arrayValue ?? []).compactMap { $0.stringValue.flatMap(ObjectID.init)?.pk } }
        map[oid.pk] = obj
      }
      objects[e] = map
      pks[e] = map.keys.sorted()
      values[e] = seen
    }
    try checkInverses()
  }

  private static func decode(_ v: JSONValue, _ type: DType, _ at: String) throws -> DVal {
    switch (type, v) {
    case (_, .null): return .null
    case (.string, .string(let s)): return .text(s)
    case (.int, .int(let i)): return .num(Double(i))
    case (.double, .double(let d)): return .num(d)
    case (.double, .int(let i)): return .num(Double(i))
    case (.decimal, .string(let s)): return .dec(s)
    case (.bool, .bool(let b)): return .num(b ? 1 : 0)
    case (.date, .string(let s)):
      guard let d = DDate.parseOutput(s) else { throw DError("\(at): unreadable date \(s)") }
      return .num(d)
    default: throw DError("\(at): unexpected \(v) for \(type)")
    }
  }

  /// The two sides of each relationship must agree (a sanity check of the snapshot).
  private func checkInverses() throws {
    for b in objects["Book"]!.values {
      if let a = b.one["author"], !(objects["Author"]![a]?.many["books"]?.contains(b.pk) ?? false) {
        throw DError("Book/\(b.pk).author = Author/\(a) but the author does not list it")
      }
      for t in b.many["tags"]! where !(objects["Tag"]![t]?.many["books"]?.contains(b.pk) ?? false) {
        throw DError("Book/\(b.pk) lists Tag/\(t) but not the other way round")
      }
    }
  }

  func all(_ entity: String) -> [DObj] { pks[entity]!.map { objects[entity]![$0]! } }

  /// The value of a key path: to-one hops (nil on a nil link), an attribute, a to-one's
  /// key, or `rel.@count`. Anything reached through a nil to-one is nil, `@count` too.
  func value(_ obj: DObj, _ path: [String]) -> DVal {
    var cur = obj
    for (i, part) in path.enumerated() {
      let last = i == path.count - 1
      if let dest = DSchema.toOne[cur.entity]![part] {
        guard let pk = cur.one[part] else { return .null }
        if last { return .num(Double(pk)) }
        guard let next = objects[dest]![pk] else { return .null }
        cur = next
      } else if DSchema.toMany[cur.entity]![part] != nil {
        precondition(i + 1 < path.count && path[i + 1] == "@count", "to-many \(part) without @count")
        return .num(Double(cur.many[part]!.count))
      } else {
        return cur.attrs[part] ?? .null
      }
    }
    return .null
  }

  /// The members of a to-many reached through `path` (to-one hops, then the to-many);
  /// nil links give no members.
  func members(_ obj: DObj, _ path: [String]) -> [DObj] {
    var cur = obj
    for part in path.dropLast() {
      guard let dest = DSchema.toOne[cur.entity]![part], let pk = cur.one[part], let next = objects[dest]![pk] else { return [] }
      cur = next
    }
    let dest = DSchema.toMany[cur.entity]![path.last!]!
    return cur.many[path.last!]!.map { objects[dest]![$0]! }
  }

  /// The entity a to-many path leads to.
  static func destination(_ entity: String, _ path: [String]) -> String {
    var e = entity
    for part in path { e = DSchema.toOne[e]![part] ?? DSchema.toMany[e]![part]! }
    return e
  }

  func describe(_ obj: DObj) -> String {
    var parts: [String] = []
    for (name, _) in DSchema.attributes[obj.entity]! { parts.append("\(name)=\(obj.attrs[name] ?? .null)") }
    for (r, dest) in DSchema.toOne[obj.entity]!.sorted(by: { $0.key < $1.key }) { parts.append("\(r)=\(obj.one[r].map { "\(dest)/\($0)" } ?? "nil")") }
    for (r, _) in DSchema.toMany[obj.entity]!.sorted(by: { $0.key < $1.key }) { parts.append("\(r)=\(obj.many[r]!)") }
    return "\(obj.id) {" + parts.joined(separator: ", ") + "}"
  }
}

struct DError: Error, CustomStringConvertible {
  var description: String
  init(_ d: String) { description = d }
}
