import JSONCore

/// What one stage did or, in a dry run, would do: its steps with the rows each touched,
/// the stored data it drops, and what stops it.
public struct MigrationReport {
  public struct Step {
    public var action: String
    public var rows: Int?
    public init(_ action: String, rows: Int? = nil) {
      self.action = action
      self.rows = rows
    }
    public var json: JSONValue {
      var o: JSONObject = ["action": .string(action)]
      if let rows { o.append("rows", .int(Int64(rows))) }
      return .object(o)
    }
  }

  public var steps: [Step] = []
  /// `{entity, attribute?|relationship?, count, message}` per kind of value dropped.
  public var dataLoss: [JSONValue] = []
  /// `{entity, attribute?, message, ids?}` per reason the stage cannot run.
  public var blockers: [JSONValue] = []
  /// The error that stopped a dry run of the stage, when one did: the last blocker, kept
  /// typed so that the caller names its places.
  public var failure: StoreError?

  public init() {}

  /// `blockers`, then `failure` as `{message}` with its places written by `render`. A
  /// blocker that is data loss gets `dataLossAdvice`, naming the permission.
  public func blockers(rendering render: (ErrorPlace) -> String) -> [JSONValue] {
    let advice = Self.dataLossAdvice.rendered(render)
    let listed: [JSONValue] = blockers.map { b in
      guard dataLoss.contains(b), case .object(var o) = b else { return b }
      o["message"] = .string((o["message"]?.stringValue ?? "") + advice)
      return .object(o)
    }
    guard let failure else { return listed }
    return listed + [.object(["message": .string(failure.text.rendered(render))])]
  }

  /// What a refusal for lost data adds: how to accept it.
  public static let dataLossAdvice: ErrorText = " (accepted with \(place: ErrorPlace(.allowDataLoss)))"

  static func place(
    _ entity: String, _ message: String, attribute: String? = nil, relationship: String? = nil, count: Int? = nil, ids: [String] = []
  )
    -> JSONValue
  {
    var o: JSONObject = ["entity": .string(entity)]
    if let attribute { o.append("attribute", .string(attribute)) }
    if let relationship { o.append("relationship", .string(relationship)) }
    if let count { o.append("count", .int(Int64(count))) }
    o.append("message", .string(message))
    if !ids.isEmpty { o.append("ids", .array(ids.map { .string($0) })) }
    return .object(o)
  }
}
