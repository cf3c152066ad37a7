import JSONCore
import RPCCore
import StoreEngine

/// `store.open`, `store.info`, `store.backup`, `store.check`.
enum StoreHandlers {
  static func methods(_ s: Session) -> [MethodEntry] {
    [
      MethodEntry(StoreOpenParams.self) { p, _ in
        try s.requireNoMigration("store.open")
        let store = try InterchangeHandlers.openCoreData(p) ?? Store(path: p.path, options: p.options)
        s.closeStore()
        s.store = store
        return StoreInfoJSON(try store.info())
      },
      MethodEntry(StoreInfoParams.self) { _, _ in StoreInfoJSON(try s.requireStore().info()) },
      MethodEntry(StoreBackupParams.self) { p, _ in
        let (path, bytes) = try s.requireStore().backup(to: p.to)
        return StoreBackupResult(path: path, bytes: bytes)
      },
      MethodEntry(StoreCheckParams.self) { _, _ in StoreCheckJSON(try s.requireStore().check()) },
    ]
  }
}
