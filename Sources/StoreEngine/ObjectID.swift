/// An object's identity on the wire: `"Entity/pk"`, the concrete entity and the primary
/// key in its hierarchy's table. Stable for the object's lifetime and never reused after
/// a delete (keys are never reused, `_ms_keys`), so a stale id can only miss, never alias.
/// The one place the wire form is built and parsed: in Swift (`text`, `init?(_:)`) and
/// in SQL (`sql`).
public struct ObjectID: Hashable, Sendable, CustomStringConvertible {
  public var entity: String
  public var pk: Int64

  public init(entity: String, pk: Int64) {
    self.entity = entity
    self.pk = pk
  }

  /// Parses `"Entity/123"`; nil when the text is not of that form.
  public init?(_ text: String) {
    guard let slash = text.utf8.lastIndex(of: Self.separatorByte) else { return nil }
    let name = String(text[..<slash])
    let digits = text[text.index(after: slash)...]
    guard !name.isEmpty, !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let pk = Int64(digits), pk > 0
    else { return nil }
    self.entity = name
    self.pk = pk
  }

  public var description: String { Self.text(entity, pk) }

  /// The separator between entity and key, for writers that stream an id's bytes.
  public static let separator = "/"
  public static let separatorByte = UInt8(ascii: "/")

  /// `"Entity/123"`, without making an `ObjectID`.
  @inline(__always)
  public static func text(_ entity: String, _ pk: Int64) -> String { entity + separator + String(pk) }

  /// `"Entity/123"` for a key given as text (`"123"`).
  static func text(_ entity: String, _ pk: Substring) -> String { entity + separator + pk }

  /// The SQL expression building the wire id from an expression giving the entity name
  /// and one giving the key.
  static func sql(entity: String, pk: String) -> String { "\(entity) || '\(separator)' || \(pk)" }

  /// Whether `text` is already a whole id (`"Entity/12"`) rather than a bare key (`"12"`).
  static func isWhole(_ text: some StringProtocol) -> Bool { text.contains(separator) }
}
