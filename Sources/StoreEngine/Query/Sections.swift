import JSONCore

/// One section of a fetched page, as NSFetchedResultsController groups objects: a run of
/// consecutive objects sharing the section key.
public struct Section: Equatable, Sendable {
  /// The wire value of the key (a date bucket's text key, an id for a to-one, nil).
  public var key: JSONValue
  /// Index of the section's first object in the page.
  public var start: Int
  public var count: Int
  /// One past the section's last object.
  public var end: Int { start + count }

  public init(key: JSONValue, start: Int, count: Int) {
    self.key = key
    self.start = start
    self.count = count
  }

  /// `{key, count, range: [start, end]}`, the range half-open.
  public var json: JSONValue {
    .object(["key": key, "count": .int(Int64(count)), "range": .array([.int(Int64(start)), .int(Int64(end))])])
  }
}

/// What `query.fetch` returns: the page and, with `sectionBy`, its sections.
public struct FetchResult {
  /// The objects, unless they were asked for already encoded (then empty).
  public var objects: [JSONObject]
  /// The objects as one encoded JSON array, when the fetch was asked to encode them.
  public var encoded: EncodedJSON?
  public var sections: [Section]?
}

extension FetchRequest {
  /// The sort that groups objects by section: as NSFetchedResultsController requires, the
  /// first sort key must be the section key path; when it is not, that key path is put
  /// first, ascending (a date bucket's key path sorts by the date, which keeps each
  /// period together in either direction).
  var sortGroupingSections: [SortKey] {
    guard let s = sectionBy else { return sort }
    if let first = sort.first, first.keyPath == s.keyPath { return sort }
    return [SortKey(keyPath: s.keyPath)] + sort
  }
}

enum Sections {
  /// Runs of equal keys, in order.
  static func runs(_ keys: [JSONValue]) -> [Section] {
    var out: [Section] = []
    for (i, k) in keys.enumerated() {
      if let last = out.last, last.key == k {
        out[out.count - 1].count += 1
      } else {
        out.append(Section(key: k, start: i, count: 1))
      }
    }
    return out
  }
}
