import JSONCore
import RPCCore
import StoreEngine

/// `import.coreData` and the `format: "coredata"` option of `store.open`: Core Data SQLite
/// stores (protocol.md, "Core Data stores").
extension InterchangeHandlers {
  static func importCoreData(_ s: Session, _ p: ImportCoreDataParams, _ context: RequestContext) throws -> ImportCoreDataResult {
    let store = try s.requireStore()
    let token = p.progressToken
    let summary = try store.importCoreData(
      path: p.store, model: p.model, modelVersion: p.modelVersion, versionOrder: p.versionOrder,
      progress: context.progressReporter(token: token).map { r in
        { phase, done, total in r.report(done: done, total: total, message: phase.rawValue) }
      })
    return ImportCoreDataResult(summary)
  }

  /// The Core Data store `store.open` names with `format: "coredata"`, or nil for a
  /// ModelStore store (`format` absent or `"modelstore"`).
  static func openCoreData(_ p: StoreOpenParams) throws -> Store? {
    let path = p.path
    switch p.format {
    case "modelstore":
      if p.model != nil { throw RPCError.invalidParams("params.model: only format \"coredata\" takes a model", ["path": "params.model"]) }
      return nil
    case "coredata":
      guard let path else {
        throw RPCError.invalidParams("params.path: format \"coredata\" opens a file; give its path", ["path": "params.path"])
      }
      guard p.readOnly == true else {
        throw RPCError.invalidParams(
          "params.readOnly: a Core Data store is opened in place read-only; give \"readOnly\": true", ["path": "params.readOnly"])
      }
      if p.create == true {
        throw RPCError.invalidParams("params.create: a Core Data store is never created", ["path": "params.create"])
      }
      return try Store.openCoreData(path: path, model: p.model, modelVersion: p.modelVersion, versionOrder: p.versionOrder)
    default:
      throw RPCError.invalidParams(
        "params.format: expected \"modelstore\" or \"coredata\", got '\(p.format)'",
        ["path": "params.format", "expected": "modelstore or coredata", "actual": .string(p.format)])
    }
  }
}
