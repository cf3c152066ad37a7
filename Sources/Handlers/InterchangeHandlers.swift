import JSONCore
import RPCCore
import StoreEngine

/// `export.json` and `import.json`: the JSON bridge (protocol.md, "Interchange format").
enum InterchangeHandlers {
  /// Largest export answered inline; above it the client must give `path`, so a reply
  /// never holds a whole large store.
  static let inlineLimit = 8 << 20

  static func methods(_ s: Session) -> [MethodEntry] {
    [
      MethodEntry(ExportJSONParams.self) { p, context in try export(s, p, context) },
      MethodEntry(ImportJSONParams.self) { p, context in try importJSON(s, p, context) },
      MethodEntry(ImportCoreDataParams.self) { p, context in try importCoreData(s, p, context) },
    ]
  }

  private static func export(_ s: Session, _ p: ExportJSONParams, _ context: RequestContext) throws -> ExportJSONResult {
    let store = try s.requireStore()
    let options = p.options
    let token = p.progressToken
    let path = p.path
    let memory = path == nil ? MemorySink(limit: inlineLimit) : nil
    let sink: ByteSink = try memory ?? FileSink.create(path: path!, place: ErrorPlace(.path))
    let summary = try store.export(
      options, to: sink,
      progress: context.progressReporter(token: token).map { r in { done, total in r.report(done: done, total: total, message: "export") } }
    )
    return ExportJSONResult(
      format: options.layout, objects: summary.objects, counts: ResultMap(summary.counts.map { ($0.entity, $0.count) }),
      bytes: summary.bytes, data: memory.map { String(decoding: $0.bytes, as: UTF8.self) }, path: memory == nil ? path : nil)
  }

  private static func importJSON(_ s: Session, _ p: ImportJSONParams, _ context: RequestContext) throws -> ImportJSONResult {
    let store = try s.requireStore()
    let token = p.progressToken
    let mode = p.mode
    let summary = try store.importObjects(
      p.input, mode: mode,
      progress: context.progressReporter(token: token).map { r in
        { phase, done, total in r.report(done: done, total: total, message: phase.rawValue, percentage: phase.percentage(done, total)) }
      })
    return ImportJSONResult(summary)
  }
}

extension ImportPhase {
  /// An import's share done (for LSP's work-done progress): the rows pass is the first
  /// half (unknown while an ndjson file's count is), the links pass the second.
  func percentage(_ done: Int, _ total: Int?) -> Int? {
    guard let total else { return nil }
    let half = total > 0 ? done * 50 / total : 50
    return self == .rows ? half : 50 + half
  }
}
