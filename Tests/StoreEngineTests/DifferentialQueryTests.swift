import JSONCore
import XCTest

@testable import StoreEngine

#if canImport(Glibc)
  import Glibc
#endif

/// Differential test of the query engine: thousands of random predicates (as format
/// strings with `args`/`variables`), sorts, limits and offsets, run by the store
/// (`query.ids`, `query.count`, `query.fetch`) and by the in-memory evaluator in
/// `Differential/DiffEvaluator.swift`, which implements protocol.md's documented rules.
///
/// - Seed: `MODELSTORE_DIFF_SEED` (decimal or 0x-hex), else a fixed default; printed on
///   failure with everything needed to replay a case by hand.
/// - Cases: `MODELSTORE_DIFF_CASES` (default 3000). `MODELSTORE_DIFF_ALL_FEATURES=1`
///   generates the full-language constructs even when the probe says they are refused.
/// - Constructs of the full predicate language (ANY/ALL/NONE, SUBQUERY, @sum/@avg/@min/
///   @max, key path vs key path, MATCHES) are probed first and generated only when the
///   engine compiles them; the skipped ones are printed.
/// - The store is in memory; `PostgresEngineDifferentialTests` runs the same on a
///   PostgreSQL store (`makeStore`).
class DifferentialQueryTests: XCTestCase {
  static let defaultSeed: UInt64 = 0x5EED_2026_0001
  /// Cases reported in full (the first of each kind of mismatch); `MODELSTORE_DIFF_REPORT`.
  static var maxReported: Int {
    guard let cs = getenv("MODELSTORE_DIFF_REPORT"), let n = Int(String(cString: cs)) else { return 10 }
    return n
  }

  static var seed: UInt64 {
    guard let cs = getenv("MODELSTORE_DIFF_SEED") else { return defaultSeed }
    let s = String(cString: cs).trimmingCharacters(in: .whitespaces)
    if s.lowercased().hasPrefix("0x") { return UInt64(s.dropFirst(2), radix: 16) ?? defaultSeed }
    return UInt64(s) ?? defaultSeed
  }

  static var caseCount: Int {
    guard let cs = getenv("MODELSTORE_DIFF_CASES"), let n = Int(String(cString: cs)) else { return 3000 }
    return n
  }

  static let probes: [(DFeature, String, [String])] = [
    (.any, "Book", ["ANY tags.label == 'x'"]),
    (.all, "Book", ["ALL tags.label == 'x'"]),
    (.none, "Book", ["NONE tags.label == 'x'"]),
    (.subquery, "Book", ["SUBQUERY(tags, $t, $t.label == 'x').@count > 0"]),
    (.sum, "Author", ["books.@sum.pages > 1"]),
    (.avg, "Author", ["books.@avg.pages > 1"]),
    (.min, "Author", ["books.@min.pages > 1"]),
    (.max, "Author", ["books.@max.pages > 1"]),
    (.keyPaths, "Book", ["pages > stock", "pages > price"]),
    (.matches, "Book", ["title MATCHES 'a.*'"]),
  ]

  /// The constructs the engine compiles today.
  private func probe(_ store: Store) -> Set<DFeature> {
    var on: Set<DFeature> = []
    var skipped: [String] = []
    for (feature, entity, texts) in Self.probes {
      var ok = false
      var why = ""
      for text in texts {
        do {
          _ = try store.count(FetchRequest(entity: entity, predicate: try PredicateParser.parse(text)))
          ok = true
          break
        } catch {
          why = "\(error)"
        }
      }
      if ok { on.insert(feature) } else { skipped.append("\(feature.rawValue) (\(texts[0]): \(why))") }
    }
    if getenv("MODELSTORE_DIFF_ALL_FEATURES") != nil {
      // For working on the generator: use every construct, accepted or not.
      print("DifferentialQueryTests: MODELSTORE_DIFF_ALL_FEATURES set: generating every construct")
      return Set(DFeature.allCases)
    }
    print("DifferentialQueryTests: full-language constructs enabled: \(DFeature.allCases.filter(on.contains).map(\.rawValue))")
    if !skipped.isEmpty { print("DifferentialQueryTests: skipped (the engine refuses them):\n  " + skipped.joined(separator: "\n  ")) }
    return on
  }

  /// The store the cases run on: in memory here.
  func makeStore() throws -> Store { try Store(path: nil) }

  /// How many cases to run.
  var cases: Int { Self.caseCount }

  /// Which engine, in messages.
  var engine: String { "SQLite" }

  /// Whether the engine adds doubles as the evaluator does (`DGenerator.exactSumsOfDoubles`).
  var exactSumsOfDoubles: Bool { true }

  func testEngineAgreesWithEvaluator() throws {
    let seed = Self.seed
    let started = DispatchTime.now().uptimeNanoseconds
    var rng = DiffRandom(seed: seed)
    let store = try makeStore()
    defer { store.close() }
    _ = try store.define(DSchema.json)
    try DData.load(into: store, rng: rng.fork())
    let world = try DWorld(store: store)
    let features = probe(store)
    let evaluator = DEvaluator(world: world)

    var reports: [String] = []
    var signatures: [String: Int] = [:]
    var signatureOrder: [String] = []
    var mismatches = 0
    var fetched = 0
    let total = cases
    for n in 0..<total {
      var crng = rng.fork()
      let entity = ["Book", "Author", "Tag"][crng.weighted([60, 28, 12])]
      var gen = DGenerator(rng: crng.fork(), world: world, features: features)
      gen.exactSumsOfDoubles = exactSumsOfDoubles
      let pred: DPred? = crng.chance(0.03) ? nil : gen.predicate(entity)
      let rendered = pred.map { DRenderer.render($0, rng: crng.fork()) }
      let sort = gen.sort(entity)
      let limit = crng.chance(0.5) ? nil : crng.int(in: 0...40)
      let offset = crng.chance(0.55) ? nil : crng.int(in: 0...60)
      let withFetch = n % 4 == 0

      // Expected, from the evaluator.
      let matching = world.all(entity).filter { o in pred.map { evaluator.matches($0, o) } ?? true }
      let ordered = evaluator.sorted(matching, by: sort).map(\.id)
      let from = min(offset ?? 0, ordered.count)
      let expected = Array(ordered[from..<min(ordered.count, from + (limit ?? ordered.count))])

      // Actual, from the store.
      var problems: [String] = []
      var refusal: String?
      do {
        let parsed = try rendered.map { try PredicateParser.parse($0.text, args: $0.args, variables: $0.variables) }
        var request = FetchRequest(entity: entity, predicate: parsed)
        request.sort = sort
        request.limit = limit
        request.offset = offset
        let ids = try store.ids(request)
        if ids != expected { problems.append("ids:\n" + Self.diff(expected: expected, actual: ids)) }
        let count = try store.count(FetchRequest(entity: entity, predicate: parsed))
        if count != matching.count { problems.append("count: expected \(matching.count), actual \(count)") }
        if withFetch {
          fetched += 1
          let objects = try store.fetch(request).map { $0["_id"]?.stringValue ?? "?" }
          if objects != ids { problems.append("fetch and ids disagree:\n" + Self.diff(expected: ids, actual: objects)) }
        }
      } catch {
        problems.append("the engine refused it: \(error)")
        refusal =
          "refused: "
          + (("\(error)".components(separatedBy: " (at character").first ?? "\(error)").components(separatedBy: ": ").last ?? "")
      }
      guard !problems.isEmpty else { continue }
      mismatches += 1
      // Narrow it to one comparison, and group by what that comparison is, so one bug
      // hitting many cases does not hide the others.
      var (signature, narrowed) =
        pred.map { narrow($0, entity: entity, store: store, world: world, evaluator: evaluator, rng: crng.fork()) }
        ?? ("no predicate: sort/limit/offset", "")
      if let refusal, signature == "combination or sort" {
        (signature, narrowed) = (refusal, "")
      } else if signature == "combination or sort" || pred == nil,
        let (sig, text) = narrowSort(sort, entity: entity, store: store, evaluator: evaluator, world: world)
      {
        (signature, narrowed) = (sig, text)
      }
      if signatures[signature] == nil { signatureOrder.append(signature) }
      signatures[signature, default: 0] += 1
      if signatures[signature] == 1 && reports.count < Self.maxReported {
        var r = "• \(signature) — case \(n) (seed 0x\(String(seed, radix: 16))) on \(entity):\n    \(rendered?.summary ?? "no predicate")"
        r += "\n    sort: \(Self.describe(sort)) limit: \(limit.map(String.init) ?? "none") offset: \(offset.map(String.init) ?? "none")"
        r += "\n  " + problems.joined(separator: "\n  ")
        r += narrowed
        reports.append(r)
      }
    }
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
    print(
      "DifferentialQueryTests (\(engine)): seed 0x\(String(seed, radix: 16)), \(total) cases (\(fetched) also via fetch) over "
        + "\(world.pks.values.map(\.count).reduce(0, +)) objects, \(mismatches) mismatching, \(String(format: "%.1f", seconds)) s")
    if !reports.isEmpty {
      let table = signatureOrder.map { "  \(signatures[$0]!) × \($0)" }.joined(separator: "\n")
      XCTFail(
        "\(mismatches) of \(total) cases disagree with the evaluator (seed 0x\(String(seed, radix: 16)); "
          + "rerun with MODELSTORE_DIFF_SEED=0x\(String(seed, radix: 16))), by the first comparison that disagrees alone:\n"
          + table + "\n\nFirst case of each (up to \(Self.maxReported)):\n\n" + reports.joined(separator: "\n\n"))
    }
  }

  /// Runs each comparison of a mismatching predicate alone, and negated (how nil is
  /// treated shows best under NOT), and reports the first one the engine and the evaluator
  /// disagree on, with the objects concerned. Returns a signature of that comparison
  /// (what it compares, how) to group mismatches by, and the report text.
  private func narrow(_ pred: DPred, entity: String, store: Store, world: DWorld, evaluator: DEvaluator, rng: DiffRandom) -> (
    String, String
  ) {
    var rng = rng
    for leaf in pred.leaves.prefix(24) {
      for candidate in [leaf, .not(leaf)] {
        let rendered = DRenderer.render(candidate, rng: rng.fork())
        let expected = Set(world.all(entity).filter { evaluator.matches(candidate, $0) }.map(\.id))
        let actual: Set<String>
        do {
          let p = try PredicateParser.parse(rendered.text, args: rendered.args, variables: rendered.variables)
          actual = Set(try store.ids(FetchRequest(entity: entity, predicate: p)))
        } catch {
          return ("refused: " + Self.construct(leaf), "\n  narrowed to: \(rendered.summary)\n    refused: \(error)")
        }
        if expected != actual {
          let onlyExpected = world.all(entity).filter { expected.contains($0.id) && !actual.contains($0.id) }
          let onlyActual = world.all(entity).filter { actual.contains($0.id) && !expected.contains($0.id) }
          var s = "\n  narrowed to: \(rendered.summary)"
          s += "\n    expected only (\(onlyExpected.count)): \(onlyExpected.prefix(3).map(world.describe))"
          s += "\n    engine only (\(onlyActual.count)): \(onlyActual.prefix(3).map(world.describe))"
          return (Self.signature(leaf), s)
        }
      }
    }
    return ("combination or sort", "\n  (no single comparison disagrees on its own: the combination or the sort does)")
  }

  /// Runs each sort key alone (no predicate) and reports the first whose order differs.
  private func narrowSort(_ sort: [SortKey], entity: String, store: Store, evaluator: DEvaluator, world: DWorld) -> (String, String)? {
    for k in sort {
      var r = FetchRequest(entity: entity)
      r.sort = [k]
      let expected = evaluator.sorted(world.all(entity), by: [k]).map(\.id)
      guard let actual = try? store.ids(r), actual != expected else { continue }
      let key = DSchema.keys[entity]!.first { $0.text == k.keyPath }!
      let i = expected.indices.first { expected[$0] != actual[$0] } ?? 0
      let e = world.objects[entity]![ObjectID(expected[i])!.pk]!, a = world.objects[entity]![ObjectID(actual[i])!.pk]!
      let p = k.keyPath.split(separator: ".").map(String.init)
      return (
        "sort by \(Self.kind(key))\(k.caseInsensitive ? " ci" : "")",
        "\n  narrowed to sort: \(Self.describe([k])): first difference at \(i): expected \(e.id) (\(k.keyPath) = \(world.value(e, p))), "
          + "actual \(a.id) (\(k.keyPath) = \(world.value(a, p)))"
      )
    }
    return nil
  }

  static func kind(_ k: DKey) -> String {
    let base: String
    switch k.kind {
    case .attr(let t): base = t.rawValue
    case .toOne: base = "to-one id"
    case .count: base = "@count"
    }
    let hops = k.path.count - (k.kind == .count ? 2 : 1)
    return hops > 0 ? "\(base) through a to-one" : base
  }

  /// The construct a leaf uses, coarsely (for grouping refusals).
  static func construct(_ p: DPred) -> String {
    switch p {
    case .quant(let q, _, _): return q.rawValue
    case .subquery: return "SUBQUERY"
    case .aggregate(_, let fn, _, _, _): return "@" + fn.rawValue
    case .keys: return "key path vs key path"
    case .matches: return "MATCHES"
    default: return signature(p)
    }
  }

  /// What a comparison is, without its values: the key's kind (and whether it goes
  /// through a to-one), the operator family, folding.
  static func signature(_ p: DPred) -> String {
    let kind = Self.kind
    func family(_ op: DOp) -> String { op.isOrdering ? "ordering" : op.rawValue }
    switch p {
    case .cmp(let c):
      var rhs = ""
      if case .one(let l) = c.rhs {
        if l.val.isNull { rhs = " nil" } else if case .text("") = l.val { rhs = " ''" } else if c.op == .in { rhs = " text" }
      }
      return "\(kind(c.key)) \(family(c.op))\(rhs)\(c.c || c.d ? " [folded]" : "")"
    case .quant(let q, let path, let m): return "\(q.rawValue)\(path.count > 1 ? " through a to-one" : "") \(kind(m.key)) \(family(m.op))"
    case .subquery(_, _, _, let op, _): return "SUBQUERY @count \(family(op))"
    case .aggregate(_, let fn, _, let op, _): return "@\(fn.rawValue) \(family(op))"
    case .keys(let l, let op, let c, let d, _): return "key path vs key path \(kind(l)) \(family(op))\(c || d ? " [folded]" : "")"
    case .matches: return "MATCHES"
    default: return "other"
    }
  }

  static func describe(_ sort: [SortKey]) -> String {
    "[" + sort.map { "\($0.keyPath) \($0.ascending ? "asc" : "desc")\($0.caseInsensitive ? " ci" : "")" }.joined(separator: ", ") + "]"
  }

  static func diff(expected: [String], actual: [String]) -> String {
    let e = Set(expected), a = Set(actual)
    var s = "    expected (\(expected.count)): \(expected.prefix(8))\(expected.count > 8 ? "..." : "")"
    s += "\n    actual   (\(actual.count)): \(actual.prefix(8))\(actual.count > 8 ? "..." : "")"
    let onlyE = expected.filter { !a.contains($0) }, onlyA = actual.filter { !e.contains($0) }
    if !onlyE.isEmpty || !onlyA.isEmpty {
      s += "\n    missing: \(onlyE.prefix(6)) unexpected: \(onlyA.prefix(6))"
    } else if let i = expected.indices.first(where: { $0 < actual.count && expected[$0] != actual[$0] }) {
      s += "\n    same ids, order differs first at \(i): expected \(expected[i]), actual \(actual[i])"
    }
    return s
  }
}
