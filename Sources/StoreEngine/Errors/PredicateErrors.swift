import JSONCore

extension StoreError {
  /// A predicate's problem, found while parsing or while compiling it against an entity:
  /// both read the same. In the text form it is at a character offset of the predicate
  /// `place` holds (`data.offset`, and "(at character N)"); in the JSON form, at the node
  /// `locations` names for the offset (each node's offset is its number there).
  public static func predicate(
    _ e: PredicateError, at place: ErrorPlace, locations: [ErrorPlace]? = nil, entity: String? = nil
  ) -> StoreError {
    var details: JSONObject = [:]
    if let entity { details.append("entity", .string(entity)) }
    if let locations {
      return StoreError(.predicate, at: e.offset < locations.count ? locations[e.offset] : place, e.message, details)
    }
    details.append("offset", .int(Int64(e.offset)))
    return StoreError(.predicate, at: place, "\(e.message) (at character \(e.offset))", details)
  }

  /// A problem of the JSON form found while reading it.
  public static func predicate(_ e: PredicateJSONError) -> StoreError {
    StoreError(.predicate, at: e.path, e.message)
  }
}

extension ErrorPlace {
  /// The place as JSON text, for carrying it through SQL to a function that reports
  /// errors while a statement runs (`ms_regexp`): `["where","or",1]`.
  var encoded: String {
    var items: [JSONValue] = [.string(argument.rawValue)]
    for step in steps {
      switch step {
      case .key(let k): items.append(.string(k))
      case .index(let i): items.append(.int(Int64(i)))
      case .stage(let from, let to): items.append(.array([.string(from), .string(to)]))
      }
    }
    return JSONValue.array(items).description
  }

  init?(encoded text: String) {
    guard case .array(let items)? = try? JSONParser.parse(text), case .string(let a)? = items.first, let argument = Argument(rawValue: a)
    else { return nil }
    var steps: [Step] = []
    for item in items.dropFirst() {
      switch item {
      case .string(let k): steps.append(.key(k))
      case .int(let i): steps.append(.index(Int(i)))
      case .array(let pair) where pair.count == 2:
        steps.append(.stage(from: pair[0].stringValue ?? "", to: pair[1].stringValue ?? ""))
      default: return nil
      }
    }
    self.init(argument, steps)
  }
}
