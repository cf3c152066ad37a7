import DatabaseKit
import JSONCore
import SchemaModel
import TimeZones

/// A key objects are grouped by: a key path (an attribute, a to-one relationship, or
/// `rel.@count`, through any to-one relationships), or the calendar period of a date
/// attribute in a time zone. Used by `sectionBy` (`query.fetch`) and `groupBy`
/// (`query.aggregate`).
public struct GroupingKey: Equatable, Sendable {
  public var keyPath: String
  public var bucket: DateBucket?
  /// `UTC`, `±HH:MM` or an IANA name; only with `bucket`.
  public var timeZone: String
  /// The member naming this key in aggregate results (`as`); the key path by default.
  public var alias: String?

  public init(keyPath: String, bucket: DateBucket? = nil, timeZone: String = "UTC", alias: String? = nil) {
    self.keyPath = keyPath
    self.bucket = bucket
    self.timeZone = timeZone
    self.alias = alias
  }

  public var name: String { alias ?? keyPath }
}

/// What a grouped or aggregated column holds: how to turn its values into wire values and
/// constants (in `having`) into values comparable with it.
enum ColumnKind: Equatable {
  case attribute(AttributeType)
  /// A to-one key: the destination's primary key, or `Entity/pk` text when the
  /// destination has sub-entities (`polymorphic`).
  case relationship(destination: String, polymorphic: Bool)
  /// A date bucket's text key.
  case bucket
  /// `count`, `@count`: an integer.
  case count
  /// `sum`, `avg`: a number.
  case number
  /// The `sum` of non-integers on an engine that gives NULL for no values
  /// (`SQLDialect.totalOfNoRealsIsNull`): a number, NULL read as 0.
  case total

  func decode(_ v: SQLValue) -> JSONValue {
    switch (self, v) {
    case (.total, .null): return .int(0)
    case (_, .null): return .null
    case (.attribute(let t), _): return t.decode(v)
    case (.relationship(let dest, _), .integer(let pk)): return .string(ObjectID.text(dest, pk))
    case (_, .integer(let i)): return .int(i)
    case (_, .real(let d)): return .double(d)
    case (_, .text(let s)): return .string(s)
    case (_, .blob): return .null
    }
  }

  /// `value` in the stored form of this column, or nil when it cannot be compared with it.
  func encode(_ value: JSONValue) -> SQLValue? {
    switch (self, value) {
    case (_, .null): return .null
    case (.count, .int(let i)), (.number, .int(let i)), (.total, .int(let i)): return .integer(i)
    case (.count, .double(let d)), (.number, .double(let d)), (.total, .double(let d)): return .real(d)
    case (.bucket, .string(let s)): return .text(s)
    case (.relationship(let dest, let polymorphic), .string(let s)):
      guard let id = ObjectID(s) else { return nil }
      if polymorphic { return .text(s) }
      return id.entity == dest ? .integer(id.pk) : nil
    case (.attribute(let t), .int(let i)) where t.isInteger || t == .bool: return .integer(i)
    case (.attribute(let t), .double(let d)) where t.isNumeric || t == .date: return .real(d)
    case (.attribute(.date), .int(let i)): return .real(Double(i))
    case (.attribute(.json), _): return nil
    case (.attribute(let t), _): return try? t.encode(value)
    default: return nil
    }
  }

  /// What a constant should be, for error messages.
  var expected: String {
    switch self {
    case .attribute(let t): return t.rawValue
    case .relationship(let dest, _): return "an id of \(dest)"
    case .bucket: return "a bucket key string"
    case .count: return "an integer"
    case .number, .total: return "a number"
    }
  }
}

/// A grouping key compiled against an entity.
struct GroupedColumn {
  let name: String
  /// The key path's SQL (with its joins in the builder).
  let column: String
  let bucket: DateBucket?
  let timeZone: String
  let kind: ColumnKind

  /// The grouping expression; a bucket binds its unit and zone.
  func sql(_ args: inout TrailingArgs) -> String {
    guard let bucket else { return column }
    let unit = args.bind(.text(bucket.rawValue))
    return args.dialect.dateBucket(column, unit: unit, zone: args.bind(.text(timeZone)))
  }

  /// Decimals are stored as text, so they order by numeric value.
  func orderSQL(_ expr: String, _ dialect: any SQLDialect) -> String {
    if case .attribute(.decimal) = kind { return dialect.castToReal(expr) }
    return expr
  }
}

/// Values bound after a builder's own, numbered from `base + 1`: fragments written once the
/// WHERE clause has taken its numbers (`?N` may be used twice, so a grouping expression
/// repeats verbatim in GROUP BY).
struct TrailingArgs {
  let base: Int
  let dialect: any SQLDialect
  private(set) var values: [SQLValue] = []
  init(after builder: SQLBuilder) {
    base = builder.args.count
    dialect = builder.dialect
  }

  mutating func bind(_ v: SQLValue) -> String {
    values.append(v)
    return dialect.parameter("?\(base + values.count)", v)
  }
}

extension SQLBuilder {
  /// Resolves a grouping key (adding its joins); errors name `path`.
  mutating func groupColumn(_ key: GroupingKey, path: ErrorPlace, zones: TimeZoneCache) throws -> GroupedColumn {
    let (column, kind) = try keyPathColumn(key.keyPath, path: path)
    if case .attribute(.json) = kind {
      throw invalid("json attribute '\(key.keyPath)' cannot be grouped (its stored form is opaque)", path)
    }
    if let bucket = key.bucket {
      guard case .attribute(.date) = kind else {
        throw invalid(
          "'\(bucket.rawValue)' buckets need a date attribute, but '\(key.keyPath)' is \(kind.expected)", path.key("bucket"))
      }
      do { _ = try zones.rules(key.timeZone) } catch let e as TimeZoneRules.LoadError {
        throw StoreError(
          .invalidArgument, at: path.key("timeZone"), "unknown time zone '\(key.timeZone)' (\(e.reason))",
          ["timeZone": .string(key.timeZone)])
      }
      return GroupedColumn(name: key.name, column: column, bucket: bucket, timeZone: key.timeZone, kind: .bucket)
    }
    return GroupedColumn(name: key.name, column: column, bucket: nil, timeZone: key.timeZone, kind: kind)
  }

  /// The SQL of a key path ending in an attribute, a to-one relationship (its key, or
  /// `Entity/pk` for a destination with sub-entities) or `@count`.
  mutating func keyPathColumn(_ keyPath: String, path: ErrorPlace) throws -> (String, ColumnKind) {
    let parts = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    let target: Target
    do { target = try resolve(parts, offset: 0) } catch let e as PredicateError {
      throw invalid(e.message, path)
    }
    switch target {
    case .attribute(let type, let sql): return (sql, .attribute(type))
    case .count(let sql): return (sql, .count)
    case .toOne(let destination, let sql):
      let dest = catalog.plans[destination.name]!
      guard dest.model.root.hasSubentities else { return (sql, .relationship(destination: dest.model.name, polymorphic: false)) }
      let id = dialect.textByCodePoint(
        "(SELECT \(EntityPlan.idExpression(alias: "d", dest: dest.model, codes: catalog.entityCodes)) FROM \(dest.table) d WHERE d.\"_pk\" = \(sql))"
      )
      return (id, .relationship(destination: dest.model.name, polymorphic: true))
    case .selfKey:
      throw invalid("'\(keyPath)' does not name a value", path)
    }
  }

  func invalid(_ message: String, _ path: ErrorPlace) -> StoreError {
    StoreError(.invalidArgument, at: path, message, ["entity": .string(base.model.name)])
  }
}
