import JSONCore
import RPCCore
import StoreEngine

/// Param readers shared by several namespaces: predicates, fetch requests, id lists.
enum RequestParsing {
  /// `where` (a predicate string or its JSON form, with `args` and `variables`); nil when absent.
  static func predicate(_ p: JSONReader) throws -> Predicate? { try condition(p)?.predicate }

  /// `where` and, for the JSON form, the place of each node (`FetchRequest.predicateLocations`).
  static func condition(_ p: JSONReader, template: Bool = false) throws -> (predicate: Predicate, locations: [ErrorPlace]?)? {
    guard let w = p.value("where") else {
      try refuseWithout(p, "args", "where")
      try refuseWithout(p, "variables", "where")
      return nil
    }
    let args = try p.array("args") ?? []
    let variables = try p.object("variables")?.object ?? [:]
    switch w {
    case .string(let text):
      do {
        return (try PredicateParser.parse(text, args: args, variables: variables, template: template), nil)
      } catch let e as PredicateError {
        throw StoreError.predicate(e, at: ErrorPlace(.where))
      }
    case .object:
      do {
        let decoded = try PredicateJSONDecoder.decode(
          w, path: ErrorPlace(.where), args: args, variables: variables, template: template)
        return (decoded.predicate, decoded.locations)
      } catch let e as PredicateJSONError {
        throw StoreError.predicate(e)
      }
    default:
      throw RPCError.invalidParams(
        "params.where: expected a predicate string or its JSON form (an object), got \(w.typeName)",
        ["path": "params.where", "expected": "string or object"])
    }
  }

  /// Refuses `key` given without `companion`, the param that gives it a meaning: every
  /// param present is used or refused, never silently dropped.
  static func refuseWithout(_ p: JSONReader, _ key: String, _ companion: String) throws {
    guard p.has(key) && !p.has(companion) else { return }
    throw RPCError.invalidParams("\(p.child(key)) given without \(p.child(companion))", ["path": .string(p.child(key))])
  }

  /// As in LSP, a token is a string or an integer; it is echoed in every `$/progress`.
  static func progressToken(_ p: JSONReader) throws -> JSONValue? {
    guard let token = p.value("progressToken") else { return nil }
    switch token {
    case .string, .int: return token
    default:
      throw RPCError.invalidParams(
        "params.progressToken: expected a string or an integer, got \(token.typeName)",
        ["path": "params.progressToken", "expected": "string or integer"])
    }
  }

  /// A fetch request's entity and `where` (the part `objects.updateWhere` / `deleteWhere` share).
  static func filteredRequest(_ p: JSONReader) throws -> FetchRequest {
    let entity = try p.requireString("entity")
    let condition = try condition(p)
    var r = FetchRequest(entity: entity, predicate: condition?.predicate)
    r.predicateLocations = condition?.locations
    return r
  }

  static let fetchKeys = [
    "entity", "where", "args", "variables", "sort", "limit", "offset", "select", "include", "includeSubentities", "toMany",
  ]

  static func fetchRequest(_ p: JSONReader) throws -> FetchRequest {
    var r = try filteredRequest(p)
    if let sort = try p.array("sort") {
      r.sort = try sort.enumerated().map { i, v in
        if case .string(let key) = v { return SortKey(keyPath: key) }
        let k = try JSONReader(v, path: "params.sort[\(i)]")
        try k.rejectUnknown(["key", "ascending", "caseInsensitive"])
        return SortKey(
          keyPath: try k.requireString("key"), ascending: try k.bool("ascending") ?? true,
          caseInsensitive: try k.bool("caseInsensitive") ?? false)
      }
    }
    r.limit = try p.int("limit", min: 0).map(Int.init)
    r.offset = try p.int("offset", min: 0).map(Int.init)
    r.select = try p.stringArray("select")
    r.include = try p.stringArray("include") ?? []
    r.includeSubentities = try p.bool("includeSubentities") ?? true
    r.toMany = try toMany(p)
    return r
  }

  /// `toMany`: how the objects of the reply carry their to-many relationships; absent or
  /// null is `none`.
  static func toMany(_ p: JSONReader) throws -> ToManyMode {
    guard let v = p.value("toMany") else { return .none }
    if case .string(let s) = v, let mode = ToManyMode(rawValue: s) { return mode }
    let actual: String
    if case .string(let s) = v { actual = "'\(s)'" } else { actual = v.typeName }
    let expected = ToManyMode.allCases.map { "'\($0.rawValue)'" }.joined(separator: ", ")
    throw JSONReadError(
      path: p.child("toMany"), expected: "one of \(expected)", actual: actual,
      message: "\(p.child("toMany")): expected one of \(expected), got \(actual)")
  }

  static func values(_ p: JSONReader) throws -> JSONObject {
    guard let v = p.value("values") else { return [:] }
    guard case .object(let o) = v else {
      throw RPCError.invalidParams("params.values: expected an object, got \(v.typeName)", ["path": "params.values", "expected": "object"])
    }
    return o
  }
}
