import JSONCore
import RPCCore
import StoreEngine

/// `query.fetch`, `query.count`, `query.ids`.
enum QueryHandlers {
  static func methods(_ s: Session) -> [(String, MethodHandler)] {
    [
      (
        "query.fetch",
        { p, _ in
          try p.rejectUnknown(RequestParsing.fetchKeys)
          let objects = try s.requireStore().fetch(try RequestParsing.fetchRequest(p))
          return .object(["objects": .array(objects.map { .object($0) })])
        }
      ),
      (
        "query.count",
        { p, _ in
          try p.rejectUnknown(["entity", "where", "args", "variables", "includeSubentities"])
          return .object(["count": .int(Int64(try s.requireStore().count(try RequestParsing.fetchRequest(p))))])
        }
      ),
      (
        "query.ids",
        { p, _ in
          try p.rejectUnknown(RequestParsing.fetchKeys.filter { $0 != "select" && $0 != "include" })
          return .object(["ids": .array(try s.requireStore().ids(try RequestParsing.fetchRequest(p)).map { .string($0) })])
        }
      ),
    ]
  }
}
