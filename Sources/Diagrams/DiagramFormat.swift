/// What a diagram is written as: text (`mermaid`, `dot`) or a picture Graphviz's `dot` draws
/// from the DOT text (`svg`, `png`).
public enum DiagramFormat: String, CaseIterable, Sendable {
  case mermaid, dot, svg, png

  /// The diagram's bytes in this format (UTF-8 text, except `png`).
  public func render(_ d: Diagram) throws -> [UInt8] {
    switch self {
    case .mermaid: return Array(MermaidWriter.write(d).utf8)
    case .dot: return Array(DotWriter.write(d).utf8)
    case .svg: return try Graphviz.render(DotWriter.write(d), as: .svg)
    case .png: return try Graphviz.render(DotWriter.write(d), as: .png)
    }
  }
}
