/// One element of an XML document as `XMLReader` builds it: enough of the XML data model
/// for Core Data's model files (`contents`) and property lists, with the position of the
/// start tag so that every finding can point at its line.
public struct XMLElement: Equatable, Sendable {
  public struct Attribute: Equatable, Sendable {
    public var name: String
    public var value: String
    public init(name: String, value: String) {
      self.name = name
      self.value = value
    }
  }

  public var name: String
  /// In document order; names are unique within one element.
  public var attributes: [Attribute]
  public var children: [XMLElement]
  /// The character data directly inside this element (text and CDATA, references resolved).
  public var text: String
  /// 1-based position of the `<` of the start tag; the column counts characters.
  public var line: Int
  public var column: Int

  public init(name: String, attributes: [Attribute] = [], children: [XMLElement] = [], text: String = "", line: Int = 1, column: Int = 1) {
    self.name = name
    self.attributes = attributes
    self.children = children
    self.text = text
    self.line = line
    self.column = column
  }

  public subscript(attribute name: String) -> String? { attributes.first { $0.name == name }?.value }

  public func children(named name: String) -> [XMLElement] { children.filter { $0.name == name } }

  public func firstChild(named name: String) -> XMLElement? { children.first { $0.name == name } }
}

/// A malformed document, with the 1-based line and column where reading stopped.
public struct XMLError: Error, Equatable, CustomStringConvertible {
  public var message: String
  public var line: Int
  public var column: Int

  public init(_ message: String, line: Int, column: Int) {
    self.message = message
    self.line = line
    self.column = column
  }

  public var description: String { "\(line):\(column): \(message)" }
}
