import JSONCore
import RPCCore
import StoreEngine

/// `query.fetch`, `query.observe`, `query.unobserve`, `query.count`, `query.ids`, `query.aggregate`, `query.parse`.
enum QueryHandlers {
  static func methods(_ s: Session) -> [MethodEntry] {
    [
      MethodEntry(QueryFetchParams.self) { p, _ in
        QueryFetchResult(try s.requireStore().fetchWithSections(p.request, encoded: true))
      },
      MethodEntry(QueryObserveParams.self) { p, _ in
        let (id, first, token) = try s.observe(p.request)
        return QueryObserveResult(
          subscription: id, token: token, objects: .objects(first.objects), sections: first.sections?.map(SectionJSON.init))
      },
      MethodEntry(QueryUnobserveParams.self) { p, _ in
        guard s.unobserve(p.subscription) else {
          throw StoreError(.notFound, "no subscription '\(p.subscription)'", ["subscription": .string(p.subscription)])
        }
        return NullResult()
      },
      MethodEntry(QueryCountParams.self) { p, _ in CountResult(count: try s.requireStore().count(p.request)) },
      MethodEntry(QueryIdsParams.self) { p, _ in IDsResult(ids: try s.requireStore().ids(p.request)) },
      MethodEntry(QueryParseParams.self) { p, _ in
        QueryParseResult(predicate: p.predicate.map { PredicateFormJSON(PredicateJSON.encode($0)) })
      },
      MethodEntry(QueryAggregateParams.self) { p, _ in QueryAggregateResult(try s.requireStore().aggregate(p.request)) },
    ]
  }
}
