import JSONCore

/// One finding of a Core Data model import: something ModelStore cannot express (a
/// warning: the import goes on without it) or cannot accept (an error: the version has no
/// usable schema). It names the file, the line and column of the XML element, and the
/// entity and property, so an editor can point at it.
public struct ModelImportIssue: Equatable, Sendable, CustomStringConvertible {
  public enum Severity: String, Sendable { case error, warning }

  public var severity: Severity
  /// A stable word for the kind of finding (`transformable`, `derivedAttribute`, `invalidName`, ...).
  public var code: String
  public var message: String
  public var file: String
  public var line: Int?
  public var column: Int?
  public var entity: String?
  public var property: String?

  public init(
    _ severity: Severity, _ code: String, _ message: String, file: String, line: Int? = nil, column: Int? = nil,
    entity: String? = nil, property: String? = nil
  ) {
    self.severity = severity
    self.code = code
    self.message = message
    self.file = file
    self.line = line
    self.column = column
    self.entity = entity
    self.property = property
  }

  /// `file:line:column: severity: message [code]`, the form compilers print.
  public var description: String {
    var place = file
    if let line { place += ":\(line)" }
    if let column { place += ":\(column)" }
    return "\(place): \(severity.rawValue): \(message) [\(code)]"
  }

  public var json: JSONValue {
    var o: JSONObject = ["severity": .string(severity.rawValue), "code": .string(code), "message": .string(message), "file": .string(file)]
    if let line { o.append("line", .int(Int64(line))) }
    if let column { o.append("column", .int(Int64(column))) }
    if let entity { o.append("entity", .string(entity)) }
    if let property { o.append("property", .string(property)) }
    return .object(o)
  }
}
