/// Naming rules shared by Core Data and SwiftData, checked before any name reaches SQL.
public enum Names {
  public static let maxLength = 128

  /// Property names that collide with NSManagedObject / PersistentModel members or with
  /// ModelStore's own wire keys.
  public static let reservedPropertyNames: Set<String> = [
    "description", "entity", "objectID", "isDeleted", "isInserted", "isUpdated", "isFault", "hasChanges",
    "managedObjectContext", "modelContext", "persistentModelID", "hash", "hashValue", "class", "self",
    "superclass", "debugDescription",
  ]

  /// A plain ASCII identifier: a letter, then letters, digits or underscores.
  public static func isIdentifier(_ s: String) -> Bool {
    guard let first = s.utf8.first, s.utf8.count <= maxLength else { return false }
    guard isLetter(first) else { return false }
    return s.utf8.allSatisfy { isLetter($0) || ($0 >= 48 && $0 <= 57) || $0 == 95 }
  }

  /// Why `name` cannot name an entity (Core Data: must start with an uppercase letter), or nil.
  public static func entityNameProblem(_ name: String) -> String? {
    if !isIdentifier(name) { return "'\(name)' is not an identifier (a letter, then letters, digits or '_', at most \(maxLength))" }
    if let f = name.utf8.first, !(f >= 65 && f <= 90) { return "entity name '\(name)' must start with an uppercase letter" }
    if name.lowercased().hasPrefix("sqlite_") { return "entity name '\(name)' uses the reserved prefix 'sqlite_'" }
    return nil
  }

  /// Why `name` cannot name an attribute or relationship (must start lowercase), or nil.
  public static func propertyNameProblem(_ name: String) -> String? {
    if !isIdentifier(name) { return "'\(name)' is not an identifier (a letter, then letters, digits or '_', at most \(maxLength))" }
    if let f = name.utf8.first, !(f >= 97 && f <= 122) { return "property name '\(name)' must start with a lowercase letter" }
    if reservedPropertyNames.contains(name) { return "'\(name)' is reserved (it clashes with a Core Data / SwiftData member)" }
    return nil
  }

  private static func isLetter(_ c: UInt8) -> Bool { (c >= 65 && c <= 90) || (c >= 97 && c <= 122) }
}
