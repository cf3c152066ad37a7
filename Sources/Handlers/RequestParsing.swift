import JSONCore
import RPCCore
import StoreEngine

/// Param groups several methods share: a predicate with its arguments, a fetch request,
/// a progress token. Each reads its members through the method's `ParamReader`, so they
/// are part of that method's shape.
enum RequestParsing {
  /// `where` (a predicate string or its JSON form, with `args` and `variables`) and, for
  /// the JSON form, the JSON path of each node (`FetchRequest.predicateLocations`); nil
  /// when absent.
  static func condition(_ r: ParamReader, template: Bool = false) throws -> (predicate: Predicate, locations: [ErrorPlace]?)? {
    guard let w = r.value("where", schema: JSONSchema.stringOrObject) else {
      try r.refuseWithout("args", "where", schema: JSONSchema.array(JSONSchema.any))
      try r.refuseWithout("variables", "where", schema: JSONSchema.object)
      return nil
    }
    let args: [JSONValue] = try r.read("args") ?? []
    let variables: JSONObject = try r.read("variables") ?? [:]
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

  /// A fetch request's entity and `where` (what every `*Where` method and query starts with).
  static func filteredRequest(_ r: ParamReader) throws -> FetchRequest {
    let entity: String = try r.require("entity")
    let condition = try condition(r)
    var request = FetchRequest(entity: entity, predicate: condition?.predicate)
    request.predicateLocations = condition?.locations
    return request
  }

  /// The members of a fetch request a method takes, read in this order.
  struct FetchMembers: OptionSet {
    let rawValue: Int
    static let page = FetchMembers(rawValue: 1)  // sort, limit, offset
    static let shape = FetchMembers(rawValue: 2)  // select, include
    static let toMany = FetchMembers(rawValue: 4)
    static let all: FetchMembers = [.page, .shape, .toMany]
  }

  static func fetchRequest(_ r: ParamReader, _ members: FetchMembers) throws -> FetchRequest {
    var request = try filteredRequest(r)
    if members.contains(.page) {
      request.sort = try (r.read("sort") as [SortParam]?)?.map(\.key) ?? []
      request.limit = try r.int("limit", min: 0).map(Int.init)
      request.offset = try r.int("offset", min: 0).map(Int.init)
    }
    if members.contains(.shape) {
      request.select = try r.read("select")
      request.include = try r.read("include") ?? []
    }
    request.includeSubentities = try r.read("includeSubentities") ?? true
    if members.contains(.toMany) { request.toMany = try r.read("toMany") ?? .none }
    return request
  }
}

/// A sort key of a fetch: a key path string (ascending), or `{key, ascending?, caseInsensitive?}`.
struct SortParam: ParamValue {
  let key: SortKey
  static var schema: JSONValue { JSONSchema.oneOf(JSONSchema.string, SortKeyObject.schema) }
  static var expected: String { "object" }
  static var placeholder: SortParam { SortParam(key: SortKey(keyPath: "")) }
  init(key: SortKey) { self.key = key }
  init(param v: JSONValue, path: @autoclosure () -> String) throws {
    if case .string(let keyPath) = v {
      key = SortKey(keyPath: keyPath)
    } else {
      key = try SortKeyObject(param: v, path: path()).key
    }
  }
}

struct SortKeyObject: ParamObject {
  static let shape = ParamShape(describing: Self.self)
  let key: SortKey
  init(_ r: ParamReader) throws {
    key = SortKey(
      keyPath: try r.require("key"), ascending: try r.read("ascending") ?? true, caseInsensitive: try r.read("caseInsensitive") ?? false)
  }
}

/// As in LSP, a progress token is a string or an integer; it is echoed in every `$/progress`.
struct ProgressToken: ParamValue {
  let value: JSONValue
  static var schema: JSONValue { JSONSchema.progressToken }
  static var expected: String { "string or integer" }
  static var placeholder: ProgressToken { ProgressToken(value: .null) }
  init(value: JSONValue) { self.value = value }
  init(param v: JSONValue, path: @autoclosure () -> String) throws {
    switch v {
    case .string, .int: value = v
    default:
      throw RPCError.invalidParams(
        "params.progressToken: expected a string or an integer, got \(v.typeName)",
        ["path": "params.progressToken", "expected": "string or integer"])
    }
  }
}
