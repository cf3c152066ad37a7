import JSONCore
import RPCCore
import StoreEngine

/// What a transport lets its clients do with the method table. `modelstore serve` lets
/// them do everything (`.unrestricted`); `modelstore studio`'s HTTP transport keeps a page
/// inside its one store (`storeOnly`) and, with `--read-only` or a Core Data store,
/// refuses every write (`readOnly`). The refusals are decided from what each method's
/// params type states (`MethodParams.effect`, params described as `JSONSchema.filePath`),
/// never from a list of names, and happen before the method reads its params: a refused
/// request runs nothing.
public struct MethodPolicy: Sendable {
  /// Refuses the methods whose effect is `.writes`, with `readOnly` (-32010).
  public var readOnly: Bool
  /// Refuses the methods whose effect is `.session` (`store.open`, `shutdown`, `exit`) and
  /// every request whose params name a file (`x-filePath`), with `notAllowed` (-32016).
  public var storeOnly: Bool
  /// Named in refusals: who restricts (`modelstore studio`).
  public var transport: String

  public init(readOnly: Bool = false, storeOnly: Bool = false, transport: String = "this transport") {
    self.readOnly = readOnly
    self.storeOnly = storeOnly
    self.transport = transport
  }

  public static let unrestricted = MethodPolicy()

  /// `entry` as this policy lets clients call it: unchanged, refused whatever its params,
  /// or refused when its params name a file.
  func apply(to entry: MethodEntry) -> MethodEntry {
    let method = entry.name
    let transport = self.transport
    if readOnly && entry.params.effect == .writes {
      return entry.replacingHandler { _, _ in
        throw RPCError(
          code: ErrorCodes.code(.readOnly), message: "\(transport) serves this store read-only: \(method) writes", kind: "readOnly")
      }
    }
    guard storeOnly else { return entry }
    if entry.params.effect == .session {
      return entry.replacingHandler { _, _ in
        throw ErrorCodes.notAllowed("\(transport) serves one store for the whole session: \(method) is not available", [:])
      }
    }
    let fileMembers = entry.params.shape.members.filter { Self.mentionsFiles($0.schema) }
    guard !fileMembers.isEmpty else { return entry }
    let handler = entry.handler
    return entry.replacingHandler { params, context in
      for member in fileMembers {
        guard let value = params.value(member.key), Self.namesFile(value, schema: member.schema) else { continue }
        let path = params.child(member.key)
        throw ErrorCodes.notAllowed(
          "\(path): \(transport) reaches no file but its store, and \(method) would open the file this names", ["path": .string(path)])
      }
      return try handler(params, context)
    }
  }

  /// True when a value of `schema` may name a file somewhere inside it.
  static func mentionsFiles(_ schema: JSONValue) -> Bool {
    guard case .object(let s) = schema else { return false }
    if s["x-filePath"] == .bool(true) { return true }
    return s.members.contains { m in
      switch m.value {
      case .object: return mentionsFiles(m.value)
      case .array(let a): return a.contains(where: mentionsFiles)
      default: return false
      }
    }
  }

  /// True when `value`, read by `schema`, holds a string the schema marks as a file path:
  /// the member itself, an alternative of `oneOf`, a property of an object, an item.
  static func namesFile(_ value: JSONValue, schema: JSONValue) -> Bool {
    guard case .object(let s) = schema else { return false }
    if s["x-filePath"] == .bool(true), case .string = value { return true }
    for alternative in s["oneOf"]?.arrayValue ?? [] where namesFile(value, schema: alternative) { return true }
    if case .object(let properties)? = s["properties"], case .object(let o) = value {
      for m in o.members { if let p = properties[m.key], namesFile(m.value, schema: p) { return true } }
    }
    if let items = s["items"], case .array(let a) = value { return a.contains { namesFile($0, schema: items) } }
    return false
  }
}

extension MethodEntry {
  /// The same method (name, params, description) served by `handler`.
  func replacingHandler(_ handler: @escaping MethodHandler) -> MethodEntry {
    MethodEntry(params: params, handler: handler)
  }
}
