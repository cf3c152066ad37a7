import CoreDataTooling
import Diagrams
import JSONCore
import RPCCore
import StoreEngine

/// `model.diagram`: an entity-relationship diagram of a model (`path`, `xml`, `schema`) or
/// of the open store's schemas, one version or two side by side (`ModelDiagrams`).
extension ModelHandlers {
  static func diagramMethods(_ s: Session) -> [MethodEntry] {
    [
      MethodEntry(ModelDiagramParams.self) { p, _ in
        let source = p.source
        // Read once, and only when a version is named or defaulted.
        var read: ModelVersions?
        func versions() throws -> ModelVersions {
          if let read { return read }
          if source.isGiven {
            let origin = source.path.map { "'\($0)'" } ?? (source.xml != nil ? "params.xml" : "params.schema")
            read = ModelVersions.model(try source.load(), origin: origin)
          } else {
            read = try ModelVersions.store(try s.requireStore())
          }
          return read!
        }
        let format = p.format ?? .mermaid
        let drawing = try ModelDiagrams.draw(
          versions, format: format, version: p.version, from: p.from?.ref, to: p.to?.ref,
          measureOn: p.measure == true ? try s.requireStore() : nil, render: \.jsonPath)
        return ModelDiagramResult(
          format: ModelDiagramResult.Format(rawValue: format.rawValue)!, kind: drawing.kind, version: drawing.version, from: drawing.from,
          to: drawing.to, text: String(decoding: drawing.bytes, as: UTF8.self), dataLoss: drawing.dataLoss?.map(MigrationPlaceJSON.init))
      }
    ]
  }
}
