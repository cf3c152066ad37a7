import JSONCore
import RPCCore
import StoreEngine

/// `query.fetch`, `query.observe`, `query.unobserve`, `query.count`, `query.ids`, `query.aggregate`, `query.parse`.
enum QueryHandlers {
  static func methods(_ s: Session) -> [(String, MethodHandler)] {
    [
      (
        "query.fetch",
        { p, _ in
          let result = try s.requireStore().fetchWithSections(try sectionedRequest(p), encoded: true)
          var out: JSONObject = ["objects": result.encoded.map { .encoded($0) } ?? .array(result.objects.map { .object($0) })]
          if let sections = result.sections { out.append("sections", .array(sections.map(\.json))) }
          return .object(out)
        }
      ),
      (
        "query.observe",
        { p, _ in
          let (id, first, token) = try s.observe(try sectionedRequest(p))
          var out: JSONObject = ["subscription": .string(id), "token": .int(token), "objects": .array(first.objects.map { .object($0) })]
          if let sections = first.sections { out.append("sections", .array(sections.map(\.json))) }
          return .object(out)
        }
      ),
      (
        "query.unobserve",
        { p, _ in
          try p.rejectUnknown(["subscription"])
          let id = try p.requireString("subscription")
          guard s.unobserve(id) else {
            throw StoreError(.notFound, "no subscription '\(id)'", ["subscription": .string(id)])
          }
          return .null
        }
      ),
      (
        "query.count",
        { p, _ in
          try p.rejectUnknown(["entity", "where", "args", "variables", "includeSubentities"])
          return .object(["count": .int(Int64(try s.requireStore().count(try RequestParsing.fetchRequest(p))))])
        }
      ),
      (
        "query.ids",
        { p, _ in
          try p.rejectUnknown(RequestParsing.fetchKeys.filter { $0 != "select" && $0 != "include" && $0 != "toMany" })
          return .object(["ids": .array(try s.requireStore().ids(try RequestParsing.fetchRequest(p)).map { .string($0) })])
        }
      ),
      (
        "query.parse",
        { p, _ in
          try p.rejectUnknown(["where", "args", "variables", "template"])
          guard p.has("where") else {
            throw RPCError.invalidParams("params.where: missing", ["path": "params.where", "expected": "string or object"])
          }
          let template = try p.bool("template") ?? false
          let parsed = try RequestParsing.condition(p, template: template)!
          return .object(["predicate": PredicateJSON.encode(parsed.predicate)])
        }
      ),
      (
        "query.aggregate",
        { p, _ in
          try p.rejectUnknown(RequestParsing.aggregateKeys)
          return RequestParsing.aggregateResult(try s.requireStore().aggregate(try RequestParsing.aggregateRequest(p)))
        }
      ),
    ]
  }

  /// `query.fetch`'s and `query.observe`'s params: a fetch request with `sectionBy`.
  private static func sectionedRequest(_ p: JSONReader) throws -> FetchRequest {
    try p.rejectUnknown(RequestParsing.sectionedFetchKeys)
    var request = try RequestParsing.fetchRequest(p)
    request.sectionBy = try p.value("sectionBy").map {
      try RequestParsing.groupingKey($0, path: "params.sectionBy", allowAlias: false)
    }
    return request
  }
}
