/// Where in a request an error is: the argument the caller gave (a request member) and the
/// steps into it (a member key, an array index, a migration stage). The engine reports
/// places typed; only the transport renders them: `params.changes[3].values.title` for
/// JSON-RPC, `--where` for the command line. `description` is the neutral form
/// (`changes[3].values.title`), the argument's name followed by the steps as in JSON.
public struct ErrorPlace: Hashable, Sendable, CustomStringConvertible {
  /// The request members the engine names in errors.
  public enum Argument: String, Hashable, Sendable, CaseIterable {
    case id, ids, values, on, include, changes
    case `where`, having, sort, select, sectionBy, groupBy, aggregates
    case entities, path, model, to, from, schema, schemas, stages
    /// A version of a model or store, by name (`model.diagram`).
    case version
    /// The Core Data model's versions in order, and the version a store was written with.
    case versionOrder, modelVersion
    /// The permission to drop stored data in a migration (named by a refusal's advice).
    case allowDataLoss
    /// A record of an imported file: the import rewrites it to the record's line or
    /// JSON pointer before the error leaves the engine.
    case record
  }

  public enum Step: Hashable, Sendable {
    /// A member of an object (`.title`).
    case key(String)
    /// An element of an array (`[3]`).
    case index(Int)
    /// A migration stage by its versions (`[1.0→2.0]`), as stages are named once the
    /// chain is resolved.
    case stage(from: String, to: String)
  }

  public var argument: Argument
  public var steps: [Step]

  public init(_ argument: Argument, _ steps: [Step] = []) {
    self.argument = argument
    self.steps = steps
  }

  public func key(_ name: String) -> ErrorPlace { ErrorPlace(argument, steps + [.key(name)]) }
  public func index(_ i: Int) -> ErrorPlace { ErrorPlace(argument, steps + [.index(i)]) }
  public func stage(from: String, to: String) -> ErrorPlace { ErrorPlace(argument, steps + [.stage(from: from, to: to)]) }

  /// The steps as in JSON: `.title`, `[3]`, `[1.0→2.0]` (empty for the argument itself).
  public var stepsText: String {
    var s = ""
    for step in steps {
      switch step {
      case .key(let k): s += ".\(k)"
      case .index(let i): s += "[\(i)]"
      case .stage(let from, let to): s += "[\(from)→\(to)]"
      }
    }
    return s
  }

  public var description: String { argument.rawValue + stepsText }
}

/// An error's message with the places it names kept typed, so the transport renders them
/// (`"\(place: p): expected a string"`). Other interpolations read as in a `String`.
public struct ErrorText: ExpressibleByStringInterpolation, Hashable, Sendable, CustomStringConvertible {
  public enum Part: Hashable, Sendable {
    case text(String)
    case place(ErrorPlace)
  }

  public private(set) var parts: [Part]

  init(parts: [Part]) { self.parts = parts }

  public init(_ text: String) { parts = text.isEmpty ? [] : [.text(text)] }
  public init(stringLiteral value: String) { self.init(value) }
  public init(stringInterpolation: StringInterpolation) { parts = stringInterpolation.parts }

  public struct StringInterpolation: StringInterpolationProtocol {
    var parts: [Part] = []
    public init(literalCapacity: Int, interpolationCount: Int) {}
    public mutating func appendLiteral(_ literal: String) {
      guard !literal.isEmpty else { return }
      if case .text(let last) = parts.last {
        parts[parts.count - 1] = .text(last + literal)
      } else {
        parts.append(.text(literal))
      }
    }
    public mutating func appendInterpolation<T>(_ value: T) { appendLiteral(String(describing: value)) }
    public mutating func appendInterpolation(place: ErrorPlace) { parts.append(.place(place)) }
  }

  /// The text with each place written by `render`.
  public func rendered(_ render: (ErrorPlace) -> String) -> String {
    var s = ""
    for part in parts {
      switch part {
      case .text(let t): s += t
      case .place(let p): s += render(p)
      }
    }
    return s
  }

  public var description: String { rendered(\.description) }

  public static func + (a: ErrorText, b: ErrorText) -> ErrorText {
    var r = a
    for part in b.parts {
      if case .text(let t) = part, case .text(let last) = r.parts.last {
        r.parts[r.parts.count - 1] = .text(last + t)
      } else {
        r.parts.append(part)
      }
    }
    return r
  }
}
