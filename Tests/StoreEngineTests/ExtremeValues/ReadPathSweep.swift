import JSONCore
import SQLiteCore
import SchemaModel
import XCTest

@testable import StoreEngine

/// The values a column of any declared type can hold in SQLite, written as SQL expressions
/// so that nothing of the engine touches them on the way in: the largest and smallest
/// integers, infinities, reals far beyond any calendar, text where numbers are expected,
/// blobs where text is, text that is not UTF-8, and the NaN a bind turns into NULL.
enum ExtremeValues {
  static let sql: [String] = [
    "9e999", "-9e999", "1e300", "-1e300", "1e19", "-1e19", "1e14", "-1e14", "9223372036854775807", "-9223372036854775808",
    "'9223372036854775808'", "-0.0", "4.9e-324", "0", "1", "''", "'abc'", "'2026-01-01T00:00:00Z'", "'1e400'", "x''",
    "x'fffe00c3'", "CAST(x'fffe00c3' AS TEXT)", "x'000102030405060708090a0b0c0d0e0f'", "?",
  ]
  /// Bound to the `?` above: SQLite stores a NaN as NULL.
  static let nan: SQLValue = .real(.nan)

  /// The time zones sections and groups are asked in: fixed offsets at both limits, zones
  /// with summer time after their last transition, and a half-hour summer time.
  static let zones = ["UTC", "+18:00", "-18:00", "Europe/Paris", "America/New_York", "Australia/Lord_Howe"]
}

/// Runs every read path of the engine over `entity` of `store` and checks each answer is
/// well-formed JSON (written and read back) or a StoreError other than a bare storage
/// error. Returns how many answers were results and how many errors.
final class ReadPathSweep {
  let store: Store
  let entity: String
  var results = 0
  var errors: [String] = []
  let file: StaticString
  let line: UInt

  init(_ store: Store, _ entity: String, file: StaticString = #filePath, line: UInt = #line) {
    self.store = store
    self.entity = entity
    self.file = file
    self.line = line
  }

  /// `body`'s answer, checked; nil when it was an error.
  @discardableResult
  func check<T>(_ what: String, _ body: () throws -> T, _ json: (T) -> JSONValue) -> T? {
    do {
      let value = try body()
      let text = JSONWriter.encodeString(json(value))
      XCTAssertNoThrow(try JSONParser.parse(text), "\(what): the answer is not valid JSON: \(text.prefix(300))", file: file, line: line)
      results += 1
      return value
    } catch let e as StoreError {
      XCTAssertNotEqual(e.kind, .storage, "\(what): \(e.message)", file: file, line: line)
      XCTAssertFalse(e.message.isEmpty, what, file: file, line: line)
      errors.append("\(what): \(e.kind.rawValue)")
      return nil
    } catch {
      XCTFail("\(what): \(error)", file: file, line: line)
      return nil
    }
  }

  func run() throws {
    let model = try XCTUnwrap(store.schema?.entities.first { $0.name == entity }, file: file, line: line)
    let attributes = model.attributes.filter { !$0.transient }
    let relationships = model.relationships.map(\.name)
    let objects = check("fetch", { try store.fetch(FetchRequest(entity: entity)) }) { .array($0.map { .object($0) }) } ?? []
    let ids = objects.compactMap { $0["_id"]?.stringValue }
    for id in ids { check("get \(id)", { try store.get(id: id, include: relationships) }) { .object($0) } }
    check("get ids", { try store.get(ids: ids) }) { .array($0.map { .object($0) }) }
    check("count", { try store.count(FetchRequest(entity: entity)) }) { .int(Int64($0)) }

    for a in attributes {
      for ascending in [true, false] {
        var r = FetchRequest(entity: entity)
        r.sort = [SortKey(keyPath: a.name, ascending: ascending)]
        r.select = [a.name]
        r.include = relationships
        check("sort \(a.name) \(ascending)", { try store.fetchWithSections(r, encoded: ascending) }, Self.json)
        check("live query sorted by \(a.name)", { try LiveQuery.start(r, on: store).1 }, Self.json)
      }
      sections(a)
      aggregates(a)
      predicates(a)
    }
    let sink = MemorySink(limit: 1 << 26)
    if check("export", { try store.export(ExportOptions(entities: [entity], layout: .ndjson), to: sink) }, { _ in .null }) != nil {
      for (n, line) in sink.bytes.split(separator: UInt8(ascii: "\n")).enumerated() {
        XCTAssertNoThrow(try JSONParser.parse(String(decoding: line, as: UTF8.self)), "export line \(n + 1)", file: file, line: self.line)
      }
    }
    check("history", { try store.history().map { try $0.json() } }) { .array($0) }
  }

  private func sections(_ a: Attribute) {
    var keys = [GroupingKey(keyPath: a.name)]
    if a.type == .date {
      for zone in ExtremeValues.zones { keys += DateBucket.allCases.map { GroupingKey(keyPath: a.name, bucket: $0, timeZone: zone) } }
    }
    for key in keys {
      var r = FetchRequest(entity: entity)
      r.sectionBy = key
      check("sectionBy \(key)", { try store.fetchWithSections(r) }, Self.json)
      var g = AggregateRequest(entity: entity)
      g.groupBy = [key]
      g.aggregates = [Aggregate(.count, as: "n")]
      check("groupBy \(key)", { try store.aggregate(g) }) { .array($0.map { .object(["key": .object($0.key), "values": .object($0.values)]) }) }
    }
  }

  private func aggregates(_ a: Attribute) {
    for fn in Aggregate.Function.allCases {
      for distinct in fn == .min || fn == .max ? [false] : [false, true] {
        var g = AggregateRequest(entity: entity)
        g.aggregates = [Aggregate(fn, a.name, distinct: distinct, as: "v")]
        check("\(fn)(\(distinct ? "distinct " : "")\(a.name))", { try store.aggregate(g) }) { groups in
          .array(groups.map { .object($0.values) })
        }
      }
    }
  }

  private func predicates(_ a: Attribute) {
    let constant: JSONValue
    switch a.type {
    case .string, .url, .decimal: constant = "1"
    case .int, .int16, .int32, .int64, .bool: constant = 1
    case .double, .float: constant = 1.5
    case .date: constant = "2026-01-01T00:00:00Z"
    case .uuid: constant = "00010203-0405-0607-0809-0A0B0C0D0E0F"
    case .data: constant = "AAEC"
    case .json: constant = .object(["a": 1])
    }
    var forms = ["== nil", "!= nil", "== %@", "!= %@", "< %@", "<= %@", "> %@", ">= %@", "IN {%@}", "BETWEEN {%@, %@}"]
    if [.string, .url, .uuid, .decimal].contains(a.type) {
      forms += ["BEGINSWITH[cd] %@", "CONTAINS[c] %@", "LIKE %@", "ENDSWITH %@"]
    }
    for form in forms {
      let text = "\(a.name) \(form)"
      let args = Array(repeating: constant, count: text.components(separatedBy: "%@").count - 1)
      check("where \(text)", { () -> [JSONObject] in
        let p = try translatingPredicateErrors { try PredicateParser.parse(text, args: args) }
        return try store.fetch(FetchRequest(entity: entity, predicate: p))
      }) { .array($0.map { .object($0) }) }
    }
  }

  /// A predicate the parser refuses is an answer too (a precise predicate error).
  private func translatingPredicateErrors<T>(_ body: () throws -> T) throws -> T {
    do { return try body() } catch let e as PredicateError { throw StoreError(.predicate, e.message) }
  }

  static func json(_ r: FetchResult) -> JSONValue {
    var o: JSONObject = [:]
    o.append("objects", r.encoded.map { .encoded($0) } ?? .array(r.objects.map { .object($0) }))
    if let s = r.sections { o.append("sections", .array(s.map(\.json))) }
    return .object(o)
  }
}
