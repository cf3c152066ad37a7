import JSONCore
import RPCCore
import StoreEngine

/// `query.fetch`, `query.observe`, `query.unobserve`, `query.count`, `query.ids`, `query.aggregate`, `query.parse`.
enum QueryHandlers {
  static func methods(_ s: Session) -> [MethodEntry] {
    [
      MethodEntry(QueryFetchParams.self) { p, _ in
        let result = try s.requireStore().fetchWithSections(p.request, encoded: true)
        var out: JSONObject = ["objects": result.encoded.map { .encoded($0) } ?? .array(result.objects.map { .object($0) })]
        if let sections = result.sections { out.append("sections", .array(sections.map(\.json))) }
        return .object(out)
      },
      MethodEntry(QueryObserveParams.self) { p, _ in
        let (id, first, token) = try s.observe(p.request)
        var out: JSONObject = ["subscription": .string(id), "token": .int(token), "objects": .array(first.objects.map { .object($0) })]
        if let sections = first.sections { out.append("sections", .array(sections.map(\.json))) }
        return .object(out)
      },
      MethodEntry(QueryUnobserveParams.self) { p, _ in
        guard s.unobserve(p.subscription) else {
          throw StoreError(.notFound, "no subscription '\(p.subscription)'", ["subscription": .string(p.subscription)])
        }
        return .null
      },
      MethodEntry(QueryCountParams.self) { p, _ in .object(["count": .int(Int64(try s.requireStore().count(p.request)))]) },
      MethodEntry(QueryIdsParams.self) { p, _ in .object(["ids": .array(try s.requireStore().ids(p.request).map { .string($0) })]) },
      MethodEntry(QueryParseParams.self) { p, _ in .object(["predicate": p.predicate.map(PredicateJSON.encode) ?? .null]) },
      MethodEntry(QueryAggregateParams.self) { p, _ in QueryAggregateParams.encode(try s.requireStore().aggregate(p.request)) },
    ]
  }
}
