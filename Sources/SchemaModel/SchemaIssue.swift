/// One problem found in a schema, with its place, so an editor can point at it.
public struct SchemaIssue: Equatable, Sendable, CustomStringConvertible {
  public enum Severity: String, Sendable { case error, warning }

  public var severity: Severity
  /// A stable word for the kind of problem (`unknownDestination`, `duplicateName`, ...).
  public var code: String
  public var message: String
  /// JSON path into the submitted schema (`schema.entities[1].attributes[0].default`).
  public var path: String
  public var entity: String?
  public var property: String?

  public init(
    _ severity: Severity, _ code: String, _ message: String, path: String, entity: String? = nil,
    property: String? = nil
  ) {
    self.severity = severity
    self.code = code
    self.message = message
    self.path = path
    self.entity = entity
    self.property = property
  }

  public var description: String { "\(severity.rawValue) \(code) at \(path): \(message)" }
}
