import JSONCore

/// The order of a bundle's versions, oldest first, and how it was found. Core Data
/// records no order: a bundle holds version directories and names its current one in
/// `.xccurrentversion`. Version identifiers (`userDefinedModelVersionIdentifier`) do not
/// give one either: in the corpus two of the seven bundles that set them repeat them or
/// let them go back (ArtsyPartner, Kiwix). So the order is given (`versionOrder`) or read
/// from the names:
/// - a name is a family and a version number: `xdrip v12` is `xdrip` 12,
///   `ArtsyFolio v2.5.1` is `ArtsyFolio` 2.5.1, `Model` is `Model` with no number (before
///   `Model 2`), `Modelv4` beside `Model` is `Model` 4, `1.9` is the unnamed family 1.9;
/// - within a family, versions go by number (`Model 10` after `Model 9`, `v2.5.1` before
///   `v2.5.3`);
/// - families: the current version's family is the newest (an app that was renamed numbers
///   its new family again: `ArtsyPartner 5` is older than `ArtsyFolio v1.4`); the others
///   come before it in name order.
/// The confidence says how much the names told: `high` for a given order, one version, or
/// one family (ending with the current version, when one is named); `medium` for two
/// families ordered by the current one; `low` otherwise (more families, several families
/// and no current version, or a current version that is not the newest of its family):
/// check it, or give the order.
public struct VersionOrder: Equatable, Sendable {
  public enum Rule: String, Sendable { case given, names }
  public enum Confidence: String, Sendable { case high, medium, low }

  public var rule: Rule
  public var confidence: Confidence
  public var reason: String

  public var json: JSONValue {
    .object(["rule": .string(rule.rawValue), "confidence": .string(confidence.rawValue), "reason": .string(reason)])
  }

  /// `name` as (family, number): the trailing version number (digits and dots, after an
  /// optional `v`/`V` and separators) and what comes before it, trimmed of separators.
  static func parse(_ name: String) -> (family: String, number: [Int]) {
    let chars = Array(name)
    var end = chars.count
    var start = end
    while start > 0, chars[start - 1].isASCII, chars[start - 1].isNumber || chars[start - 1] == "." { start -= 1 }
    // The number must start and end with a digit ("v2.5.1", not ".5" or "2.").
    while start < end, chars[start] == "." { start += 1 }
    while end > start, chars[end - 1] == "." { end -= 1 }
    guard start < end else { return (name, []) }
    let number = String(chars[start..<end]).split(separator: ".").compactMap { Int($0) }
    var head = start
    if head > 0, chars[head - 1] == "v" || chars[head - 1] == "V" {
      // `v` is a prefix of the number only after a separator or at the start ("xdrip v12", "v3", not "Modelv4"'s "lv").
      if head == 1 || " _-.".contains(chars[head - 2]) { head -= 1 }
    }
    while head > 0, " _-.".contains(chars[head - 1]) { head -= 1 }
    return (String(chars[..<head]), number)
  }

  /// The versions `names` (in any order) from oldest to newest, and how.
  static func byNames(_ names: [String], current: String?) -> ([String], VersionOrder) {
    let parsed = names.map { (name: $0, parts: parse($0)) }
    func precedes(_ a: (name: String, parts: (family: String, number: [Int])), _ b: (name: String, parts: (family: String, number: [Int])))
      -> Bool
    {
      if a.parts.number != b.parts.number { return a.parts.number.lexicographicallyPrecedes(b.parts.number) }
      return ModelFiles.naturalPrecedes(a.name, b.name)
    }
    // `Modelv4` beside `Model`: a `v` glued to the number belongs to it when the family
    // without it exists.
    let plain = Set(parsed.map(\.parts.family))
    func family(_ f: String) -> String {
      guard let last = f.last, last == "v" || last == "V", plain.contains(String(f.dropLast())) else { return f }
      return String(f.dropLast())
    }
    var families: [String: [(name: String, parts: (family: String, number: [Int]))]] = [:]
    for p in parsed { families[family(p.parts.family), default: []].append(p) }
    let currentFamily = current.map { family(parse($0).family) }
    let familyOrder = families.keys.sorted {
      if ($0 == currentFamily) != ($1 == currentFamily) { return $1 == currentFamily }
      return ModelFiles.naturalPrecedes($0, $1)
    }
    let ordered = familyOrder.flatMap { families[$0]!.sorted(by: precedes).map(\.name) }
    let quoted = familyOrder.map { $0.isEmpty ? "numbers only" : "'\($0)'" }.joined(separator: ", ")
    let order: VersionOrder
    if names.count < 2 {
      order = VersionOrder(rule: .names, confidence: .high, reason: "one version")
    } else if current == nil {
      order = VersionOrder(
        rule: .names, confidence: familyOrder.count == 1 ? .high : .low,
        reason: familyOrder.count == 1
          ? "by version number in the names (no current version is named)"
          : "no current version is named: name families (\(quoted)) in name order, each by version number")
    } else if ordered.last != current {
      order = VersionOrder(
        rule: .names, confidence: .low,
        reason: "the current version '\(current!)' is not the newest of its name family by number; check the order or give it")
    } else if familyOrder.count == 1 {
      order = VersionOrder(rule: .names, confidence: .high, reason: "by version number in the names, ending with the current version")
    } else if familyOrder.count == 2 {
      order = VersionOrder(
        rule: .names, confidence: .medium,
        reason:
          "two name families (\(quoted)): the current version's family is taken as the newer one (an app renamed), each by version number")
    } else {
      order = VersionOrder(
        rule: .names, confidence: .low,
        reason:
          "\(familyOrder.count) name families (\(quoted)): the current version's family last, the others in name order; check the order or give it"
      )
    }
    return (ordered, order)
  }

  /// `given` checked against the versions: every one exactly once, by its name (with or
  /// without `.xcdatamodel`).
  static func given(_ given: [String], versions: [String], bundle: String) throws -> [String] {
    let names = given.map { $0.hasSuffix(".xcdatamodel") ? String($0.dropLast(".xcdatamodel".count)) : $0 }
    let unknown = names.filter { !versions.contains($0) }
    var seen: Set<String> = []
    let repeated = names.filter { !seen.insert($0).inserted }
    let missing = versions.filter { !names.contains($0) }
    guard unknown.isEmpty, repeated.isEmpty, missing.isEmpty else {
      var problems: [String] = []
      if !unknown.isEmpty { problems.append("names no version \(list(unknown))") }
      if !repeated.isEmpty { problems.append("repeats \(list(repeated))") }
      if !missing.isEmpty { problems.append("leaves out \(list(missing))") }
      throw ToolingError(
        .invalidArgument,
        "the version order \(problems.joined(separator: ", ")); give every version of '\(bundle)' once: \(list(versions))",
        ["versions": .array(versions.map { .string($0) })], argument: "versionOrder")
    }
    return names
  }

  private static func list(_ names: [String]) -> String { names.map { "'\($0)'" }.joined(separator: ", ") }
}
