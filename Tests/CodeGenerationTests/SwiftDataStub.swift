/// The SwiftData API surface the generated code uses, for `SwiftDataTypeChecker`: the
/// declarations with SwiftData's own signatures (macro parameters, option members, migration
/// stages), marked with the release that added them as availability domains (`SwiftData18`,
/// `SwiftData26`), and the macros' expansions, done by `macroPlugin`.
enum SwiftDataStub {
  /// Compiled in the same module as the code it checks (custom availability domains defined on
  /// the command line do not survive a module boundary in Swift 6.3), which is named SwiftData
  /// so that `SwiftData.Schema` resolves.
  static let source = #"""
    import Foundation

    public protocol PersistentModel: AnyObject {}
    public final class ModelContext {}

    public final class Schema {
      public struct Version: Sendable { public init(_ major: Int, _ minor: Int, _ patch: Int) {} }
      public struct Attribute {
        public struct Option: Sendable {
          public static var unique: Option { Option() }
          public static var externalStorage: Option { Option() }
          public static var ephemeral: Option { Option() }
          public static var spotlight: Option { Option() }
          public static var allowsCloudEncryption: Option { Option() }
          @available(SwiftData18) public static var preserveValueOnDeletion: Option { Option() }
          public static func transformable(by name: String) -> Option { Option() }
        }
      }
      public struct Relationship {
        public enum DeleteRule: Sendable { case cascade, deny, noAction, nullify }
        public struct Option: Sendable { public static var unique: Option { Option() } }
      }
    }

    public protocol VersionedSchema {
      static var versionIdentifier: Schema.Version { get }
      static var models: [any PersistentModel.Type] { get }
    }

    public enum MigrationStage {
      case lightweight(fromVersion: any VersionedSchema.Type, toVersion: any VersionedSchema.Type)
      case custom(
        fromVersion: any VersionedSchema.Type, toVersion: any VersionedSchema.Type, willMigrate: ((ModelContext) throws -> Void)?,
        didMigrate: ((ModelContext) throws -> Void)?)
    }

    public protocol SchemaMigrationPlan {
      static var schemas: [any VersionedSchema.Type] { get }
      static var stages: [MigrationStage] { get }
    }

    @attached(extension, conformances: PersistentModel)
    @attached(member, names: named(_modelstoreChecks))
    public macro Model() = #externalMacro(module: "SwiftDataMacros", type: "PersistentModelMacro")

    @attached(peer)
    public macro Attribute(_ options: Schema.Attribute.Option..., originalName: String? = nil, hashModifier: String? = nil) =
      #externalMacro(module: "SwiftDataMacros", type: "AttributeMacro")

    @attached(peer)
    public macro Relationship(
      _ options: Schema.Relationship.Option..., deleteRule: Schema.Relationship.DeleteRule = .nullify, minimumModelCount: Int? = 0,
      maximumModelCount: Int? = 0, originalName: String? = nil, inverse: AnyKeyPath? = nil, hashModifier: String? = nil
    ) = #externalMacro(module: "SwiftDataMacros", type: "RelationshipMacro")

    @attached(peer)
    public macro Transient() = #externalMacro(module: "SwiftDataMacros", type: "TransientMacro")

    @available(SwiftData18)
    @freestanding(declaration)
    public macro Unique<T>(_ constraints: [PartialKeyPath<T>]...) = #externalMacro(module: "SwiftDataMacros", type: "UniqueMacro")

    @available(SwiftData18)
    @freestanding(declaration)
    public macro Index<T>(_ indices: [PartialKeyPath<T>]...) = #externalMacro(module: "SwiftDataMacros", type: "IndexMacro")

    /// What `@Model` on a class that inherits or is inherited from names: class inheritance of
    /// models came with SwiftData 26.
    @available(SwiftData26) public enum _SwiftDataClassInheritance {}

    /// What `@Model` expands to calls for each `@Relationship(inverse:)`: the inverse property can hold the
    /// declaring object, and the declared property the inverse's owner.
    public func _modelstoreLink<M: AnyObject>(_ slot: inout M?, _ object: M) {}
    public func _modelstoreLink<M: AnyObject>(_ slot: inout [M], _ object: M) {}
    public func _modelstoreLink<M: AnyObject>(_ slot: inout [M]?, _ object: M) {}
    """#

  /// The macros' expansions, as a compiler plugin executable (the compiler's plugin protocol:
  /// 8-byte little-endian length, then a JSON message). `@Model` adds the `PersistentModel`
  /// conformance where the class does not inherit it, and a method `_modelstoreChecks()` that
  /// names `_SwiftDataClassInheritance` when the class inherits or may be inherited from (is not
  /// `final`), and for each `@Relationship(inverse: \Root.property) var name` links a `Root` and
  /// `self` both ways, so that the compiler checks the inverse exists and has the right type.
  /// (Done by `@Model` over the class's text, not by `@Relationship`: a macro attached to the
  /// property whose expansion names a member would make resolving a self-inverse key path
  /// circular.) The other macros expand to nothing.
  static let macroPlugin = #"""
    import json, re, struct, sys

    IDENT = r'(`?[A-Za-z_][A-Za-z0-9_]*`?)'

    def model_members(decl):
        code = '\n'.join(l for l in decl.split('\n') if not l.strip().startswith('//'))
        head = code[:code.index('{')]
        cls = re.search(r'\bclass\s+' + IDENT + r'\s*(:)?', head)
        if not cls:
            return ''
        lines = []
        if cls.group(2) or not re.search(r'\bfinal\b', head):
            lines.append('_ = _SwiftDataClassInheritance.self')
        for k, r in enumerate(re.finditer(r'@Relationship\(([^\n]*)\)\s*var\s+' + IDENT, code)):
            inverse = re.search(r'inverse:\s*\\\s*([A-Za-z_][\w.]*)\.' + IDENT, r.group(1))
            if inverse:
                lines.append('func inverse%d(_ other: %s) { _modelstoreLink(&other.%s, self); _modelstoreLink(&self.%s, other) }'
                             % (k, inverse.group(1), inverse.group(2), r.group(2)))
        override = 'override ' if cls.group(2) else ''
        return '%sfunc _modelstoreChecks() {\n  %s\n}' % (override, '\n  '.join(lines))

    def expand(m):
        role, name = m.get('macroRole'), m['macro']['name']
        if name == 'Model' and role == 'extension':
            listed = re.search(r':([^{]*)\{', (m.get('conformanceListSyntax') or {}).get('source', ''))
            missing = listed.group(1).strip() if listed else ''
            return 'extension %s: %s {}' % (m['extendedTypeSyntax']['source'].strip(), missing) if missing else ''
        if name == 'Model' and role == 'member':
            return model_members(m['declSyntax']['source'])
        return ''

    def send(message):
        data = json.dumps(message).encode()
        sys.stdout.buffer.write(struct.pack('<Q', len(data)) + data)
        sys.stdout.buffer.flush()

    while True:
        header = sys.stdin.buffer.read(8)
        if len(header) < 8:
            break
        (size,) = struct.unpack('<Q', header)
        if size == 0:
            continue
        message = json.loads(sys.stdin.buffer.read(size))
        if 'getCapability' in message:
            send({'getCapabilityResult': {'capability': {'protocolVersion': 7}}})
        elif 'expandAttachedMacro' in message:
            send({'expandMacroResult': {'expandedSource': expand(message['expandAttachedMacro']), 'diagnostics': []}})
        else:
            send({'expandMacroResult': {'expandedSource': '', 'diagnostics': []}})
    """#
}
