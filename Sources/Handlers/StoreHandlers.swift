import JSONCore
import RPCCore
import StoreEngine

/// `store.open`, `store.info`, `store.backup`, `store.check`.
enum StoreHandlers {
  static func methods(_ s: Session) -> [(String, MethodHandler)] {
    [
      (
        "store.open",
        { p, _ in
          try p.rejectUnknown(["path", "memory", "readOnly", "create", "format", "model", "historyRetention"])
          let memory = try p.bool("memory") ?? false
          let path = try p.string("path")
          guard memory != (path != nil) else {
            throw RPCError.invalidParams("give exactly one of 'path' or 'memory: true'", ["path": "params"])
          }
          var options = Store.OpenOptions(readOnly: try p.bool("readOnly") ?? false, create: try p.bool("create") ?? true)
          if let keep = try p.string("historyRetention") {
            do { options.historyRetention = try HistoryRetention.parse(keep) } catch let e as StoreError {
              throw RPCError.invalidParams("params.historyRetention: \(e.message)", ["path": "params.historyRetention"])
            }
          }
          try s.requireNoMigration("store.open")
          let store = try InterchangeHandlers.openCoreData(p, path: path) ?? Store(path: path, options: options)
          s.closeStore()
          s.store = store
          return .object(try store.info())
        }
      ),
      (
        "store.info",
        { p, _ in
          try p.rejectUnknown([])
          return .object(try s.requireStore().info())
        }
      ),
      (
        "store.backup",
        { p, _ in
          try p.rejectUnknown(["to"])
          let (path, bytes) = try s.requireStore().backup(to: try p.requireString("to"))
          return .object(["path": .string(path), "bytes": .int(bytes)])
        }
      ),
      (
        "store.check",
        { p, _ in
          try p.rejectUnknown([])
          return .object(try s.requireStore().check())
        }
      ),
    ]
  }
}
