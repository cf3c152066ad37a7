import JSONCore
import SchemaModel

extension SchemaComparison {
  /// The `schemaMismatch` error refusing to import `file` into a store holding `store`, or
  /// nil when they agree. `what` names the incoming schema ("the file's schema"); `extra`
  /// adds details.
  static func refusal(file: Schema, store: Schema, what: String, advice: String = "", _ extra: JSONObject = [:]) -> StoreError? {
    let reasons = reasons(file: file, store: store)
    guard let first = reasons.first else { return nil }
    var details: JSONObject = ["reasons": .array(reasons)]
    for m in extra.members { details.append(m.key, m.value) }
    return StoreError(
      .schemaMismatch,
      "\(what) does not match the store's (\(reasons.count) difference\(reasons.count == 1 ? "" : "s"); first: \(first["message"]?.stringValue ?? ""))\(advice)",
      details)
  }
}
