import JSONCore
import RPCCore
import StoreEngine

/// `store.open`.
struct StoreOpenParams: MethodParams {
  static let method = "store.open"
  static let effect = MethodEffect.session
  static let shape = ParamShape(describing: Self.self)
  typealias Result = StoreInfoJSON

  let memory: Bool
  let path: String?
  var options: Store.OpenOptions
  let format: String
  let model: String?
  /// With `model`: the version the store was written with, and the versions' order.
  let modelVersion: String?
  let versionOrder: [String]?
  let readOnly: Bool?
  let create: Bool?

  init(_ r: ParamReader) throws {
    memory = try r.read("memory") ?? false
    path = try r.read("path", schema: JSONSchema.filePath)
    try r.check(
      memory != (path != nil), RPCError.invalidParams("give exactly one of 'path' or 'memory: true'", ["path": "params"]))
    readOnly = try r.read("readOnly")
    create = try r.read("create")
    options = Store.OpenOptions(readOnly: readOnly ?? false, create: create ?? true)
    if let keep: String = try r.read("historyRetention") {
      do { options.historyRetention = try HistoryRetention.parse(keep) } catch let e as StoreError {
        throw RPCError.invalidParams("params.historyRetention: \(e.message)", ["path": "params.historyRetention"])
      }
    }
    format = try r.read("format", schema: JSONSchema.enumeration(["modelstore", "coredata"])) ?? "modelstore"
    model = try r.read("model", schema: JSONSchema.filePath)
    try r.refuseWithout("modelVersion", "model", schema: JSONSchema.string)
    try r.refuseWithout("versionOrder", "model", schema: JSONSchema.array(JSONSchema.string))
    modelVersion = try r.read("modelVersion")
    versionOrder = try r.read("versionOrder")
  }
}

/// `store.info`.
struct StoreInfoParams: NoParams {
  static let method = "store.info"
  static let effect = MethodEffect.reads
  static let shape = ParamShape(describing: Self.self)
  typealias Result = StoreInfoJSON
}

/// `store.backup`.
struct StoreBackupParams: MethodParams {
  static let method = "store.backup"
  static let effect = MethodEffect.reads
  static let shape = ParamShape(describing: Self.self)
  typealias Result = StoreBackupResult
  let to: String
  init(_ r: ParamReader) throws { to = try r.require("to", schema: JSONSchema.filePath) }
}

/// `store.check`.
struct StoreCheckParams: NoParams {
  static let method = "store.check"
  static let effect = MethodEffect.reads
  static let shape = ParamShape(describing: Self.self)
  typealias Result = StoreCheckJSON
}
