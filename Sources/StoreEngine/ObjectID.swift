/// An object's identity on the wire: `"Entity/pk"`, the concrete entity and the primary
/// key in its hierarchy's table. Stable for the object's lifetime and never reused after
/// a delete (the tables are AUTOINCREMENT), so a stale id can only miss, never alias.
public struct ObjectID: Hashable, Sendable, CustomStringConvertible {
  public var entity: String
  public var pk: Int64

  public init(entity: String, pk: Int64) {
    self.entity = entity
    self.pk = pk
  }

  /// Parses `"Entity/123"`; nil when the text is not of that form.
  public init?(_ text: String) {
    guard let slash = text.utf8.lastIndex(of: UInt8(ascii: "/")) else { return nil }
    let name = String(text[..<slash])
    let digits = text[text.index(after: slash)...]
    guard !name.isEmpty, !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let pk = Int64(digits), pk > 0
    else { return nil }
    self.entity = name
    self.pk = pk
  }

  public var description: String { entity + "/" + String(pk) }
}
