/// How generated Swift code spells the types it uses, given the names it declares itself: a
/// class or struct named like a Swift or Foundation type (an entity `Date`, `Data`, `Schema`)
/// would shadow that type, so the system type is then written with its module
/// (`Foundation.Date`).
struct SwiftTypeSpelling {
  /// Names of the classes and structs the generated code declares.
  let declared: Set<String>

  static let modules: [String: String] = [
    "String": "Swift", "Int": "Swift", "Int16": "Swift", "Int32": "Swift", "Int64": "Swift", "Double": "Swift", "Float": "Swift",
    "Bool": "Swift", "Decimal": "Foundation", "Date": "Foundation", "UUID": "Foundation", "Data": "Foundation", "URL": "Foundation",
    "NSObject": "Foundation", "Schema": "SwiftData", "PersistentModel": "SwiftData", "VersionedSchema": "SwiftData",
    "SchemaMigrationPlan": "SwiftData", "MigrationStage": "SwiftData",
  ]

  init(declaring names: some Sequence<String>) { declared = Set(names) }

  /// `name` (a type of `modules`), qualified when a declared name would shadow it.
  func system(_ name: String) -> String {
    guard declared.contains(name), let module = Self.modules[name] else { return name }
    return "\(module).\(name)"
  }
}

/// A type written in a model file (`customClassName`): a Swift type expression of names,
/// generic arguments, `[T]`, `[K: V]` and `?`, read far enough to know it is one and which
/// names it uses. A module prefix on a plain name (`MyApp.Tag`) is dropped: the generated
/// code lives in the app.
struct DeclaredSwiftType {
  /// The type as the generated code writes it.
  let text: String
  /// The names it uses, in order of appearance.
  let names: [String]

  init?(_ source: String) {
    var reader = TypeReader(Array(source.unicodeScalars))
    guard let text = reader.type(), reader.atEnd else { return nil }
    self.text = text
    names = reader.names
  }

  /// Names the generated code may use without declaring them: Swift's and Foundation's.
  static let systemNames: Set<String> = [
    "Any", "AnyObject", "String", "Substring", "Character", "Int", "Int8", "Int16", "Int32", "Int64", "UInt", "UInt8", "UInt16", "UInt32",
    "UInt64", "Double", "Float", "Bool", "Error", "Array", "Dictionary", "Set", "Optional", "Data", "Date", "URL", "UUID", "Decimal",
    "Locale", "TimeZone", "Calendar", "DateComponents", "IndexSet", "NSObject", "NSArray", "NSMutableArray", "NSDictionary",
    "NSMutableDictionary", "NSSet", "NSMutableSet", "NSOrderedSet", "NSMutableOrderedSet", "NSString", "NSMutableString", "NSNumber",
    "NSDecimalNumber", "NSDate", "NSData", "NSMutableData", "NSURL", "NSUUID", "NSNull", "NSValue", "NSError", "NSAttributedString",
    "NSMutableAttributedString", "NSIndexSet", "NSTimeZone", "NSLocale", "NSCoding", "NSSecureCoding",
  ]

  /// A recursive-descent reader of the grammar above, nesting at most `maxDepth` deep (the
  /// text comes from a model file: a hostile one must not exhaust the stack).
  private struct TypeReader {
    static let maxDepth = 16
    let s: [Unicode.Scalar]
    var i = 0
    var depth = 0
    var names: [String] = []
    init(_ s: [Unicode.Scalar]) { self.s = s }

    var atEnd: Bool {
      mutating get {
        skipSpace()
        return i == s.count
      }
    }

    mutating func skipSpace() { while i < s.count, s[i] == " " { i += 1 } }

    mutating func take(_ c: Unicode.Scalar) -> Bool {
      skipSpace()
      guard i < s.count, s[i] == c else { return false }
      i += 1
      return true
    }

    mutating func identifier() -> String? {
      skipSpace()
      let start = i
      while i < s.count, s[i] == "_" || s[i].properties.isAlphabetic || (i > start && s[i].properties.numericType != nil) { i += 1 }
      return i > start ? String(String.UnicodeScalarView(s[start..<i])) : nil
    }

    mutating func type() -> String? {
      depth += 1
      defer { depth -= 1 }
      guard depth <= Self.maxDepth else { return nil }
      var out: String
      if take("[") {
        guard let key = type() else { return nil }
        if take(":") {
          guard let value = type(), take("]") else { return nil }
          out = "[\(key): \(value)]"
        } else {
          guard take("]") else { return nil }
          out = "[\(key)]"
        }
      } else {
        var path: [String] = []
        var generic = false
        repeat {
          guard let name = identifier() else { return nil }
          var part = name
          if take("<") {
            var args: [String] = []
            repeat {
              guard let a = type() else { return nil }
              args.append(a)
            } while take(",")
            guard take(">") else { return nil }
            part += "<" + args.joined(separator: ", ") + ">"
            generic = true
          }
          path.append(part)
        } while take(".")
        // `MyApp.Tag` is the app's own `Tag`; a generic path is kept as written.
        out = generic ? path.joined(separator: ".") : path.last!
        if !generic { names.append(out) } else { names.append(contentsOf: path.map { String($0.prefix { $0 != "<" }) }) }
      }
      while take("?") { out += "?" }
      return out
    }
  }
}
