import JSONCore
import StoreEngine

/// A page of objects: a tree per object, or the whole array already written as text.
enum WireObjectList: ResultValue {
  case objects([JSONObject])
  case encoded(EncodedJSON)

  static var resultSchema: JSONValue { [WireObjectJSON].resultSchema }
  var resultJSON: JSONValue {
    switch self {
    case .objects(let list): .array(list.map { .object($0) })
    case .encoded(let text): .encoded(text)
    }
  }
}

/// One section of a sectioned fetch (`Section.json`).
struct SectionJSON: OpenJSON {
  let json: JSONValue
  init(_ json: JSONValue) { self.json = json }
  init(_ section: Section) { json = section.json }
  static var openSchema: JSONValue {
    JSONSchema.describedClosed(
      JSONSchema.object(["key": AnyJSON.resultSchema, "count": JSONSchema.integer, "range": JSONSchema.array(JSONSchema.integer)]),
      "key is the section's value of sectionBy (any JSON value); range is [start, end), half-open, in the page")
  }
}

/// `query.fetch`.
struct QueryFetchResult: ResultObject {
  let objects: WireObjectList
  let sections: [SectionJSON]?
  static let component: String? = "FetchResult"
  init(_ result: FetchResult) {
    objects = result.encoded.map { .encoded($0) } ?? .objects(result.objects)
    sections = result.sections?.map(SectionJSON.init)
  }
  static var members: [ResultMember<Self>] { [.init("objects", \.objects), .init(ifPresent: "sections", \.sections)] }
}

/// `query.observe`: the subscription, the history token it starts at, and the first page.
struct QueryObserveResult: ResultObject {
  let subscription: String
  let token: Int64
  let objects: WireObjectList
  let sections: [SectionJSON]?
  static var members: [ResultMember<Self>] {
    [
      .init("subscription", \.subscription), .init("token", \.token), .init("objects", \.objects),
      .init(ifPresent: "sections", \.sections),
    ]
  }
}

/// `query.count`.
struct CountResult: ResultObject {
  let count: Int
  static var members: [ResultMember<Self>] { [.init("count", \.count)] }
}

/// `query.ids`.
struct IDsResult: ResultObject {
  let ids: [String]
  static var members: [ResultMember<Self>] { [.init("ids", \.ids)] }
}

/// A predicate's JSON form (`PredicateJSON`; protocol.md, "Predicates as JSON").
struct PredicateFormJSON: OpenJSON {
  let json: JSONValue
  init(_ json: JSONValue) { self.json = json }
  static var openSchema: JSONValue {
    JSONSchema.described(JSONSchema.object, "a predicate in its JSON form (protocol.md, Predicates): one operator node, nested")
  }
}

/// `query.parse`: null for an empty predicate.
struct QueryParseResult: ResultObject {
  let predicate: PredicateFormJSON?
  static var members: [ResultMember<Self>] { [.init("predicate", \.predicate)] }
}

/// `query.aggregate`.
struct QueryAggregateResult: ResultObject {
  struct Group: ResultObject {
    let key: OpenObjectJSON
    let values: OpenObjectJSON
    static var members: [ResultMember<Self>] { [.init("key", \.key), .init("values", \.values)] }
  }
  let groups: [Group]
  init(_ groups: [AggregateGroup]) {
    self.groups = groups.map { Group(key: OpenObjectJSON($0.key), values: OpenObjectJSON($0.values)) }
  }
  static var members: [ResultMember<Self>] { [.init("groups", \.groups)] }
}
