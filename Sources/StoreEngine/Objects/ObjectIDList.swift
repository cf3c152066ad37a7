/// Object ids in order, kept as runs of consecutive keys of one entity: the ids a save
/// inserts one after another take one run, whatever their number (100,000 inserts are
/// 100,000 ObjectIDs, 2.4 MB, as an array).
public struct ObjectIDList: Sequence, Equatable, ExpressibleByArrayLiteral {
  private var runs: [(entity: String, first: Int64, last: Int64)] = []
  public private(set) var count = 0

  public init() {}
  public init(arrayLiteral ids: ObjectID...) { for id in ids { append(id) } }

  public var isEmpty: Bool { count == 0 }

  /// The entity of each run (at most one name per id).
  public var entities: [String] { runs.map(\.entity) }

  public mutating func append(_ id: ObjectID) {
    count += 1
    if let last = runs.indices.last, runs[last].last &+ 1 == id.pk, runs[last].entity == id.entity {
      runs[last].last = id.pk
    } else {
      runs.append((id.entity, id.pk, id.pk))
    }
  }

  public mutating func append(contentsOf ids: some Sequence<ObjectID>) { for id in ids { append(id) } }

  public func makeIterator() -> AnyIterator<ObjectID> {
    var run = 0
    var next = runs.first?.first ?? 0
    return AnyIterator {
      guard run < runs.count else { return nil }
      let id = ObjectID(entity: runs[run].entity, pk: next)
      if next == runs[run].last {
        run += 1
        if run < runs.count { next = runs[run].first }
      } else {
        next += 1
      }
      return id
    }
  }

  public static func == (a: ObjectIDList, b: ObjectIDList) -> Bool { a.count == b.count && a.elementsEqual(b) }
}
