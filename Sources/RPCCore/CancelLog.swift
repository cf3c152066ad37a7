import JSONCore

/// The `$/cancelRequest`s read but not yet reached by the dispatcher: each one's request
/// id and its position in the input. A cancellation applies to a request with that id
/// read before it, so once the dispatcher reaches position `seq` every cancellation at or
/// before it is spent.
///
/// Cancellations arrive in input order, so they age out from the front of a queue, and a
/// count per id answers "is a later cancellation of this id waiting?" in constant time:
/// a flood of a million `$/cancelRequest`s (read far ahead of the messages being handled)
/// costs the same per message as one.
struct CancelLog {
  /// A request id as a dictionary key (JSON-RPC ids are strings or numbers).
  enum Key: Hashable {
    case string(String)
    case int(Int64)
    case double(UInt64)
    case other(String)

    init(_ id: JSONValue) {
      switch id {
      case .string(let s): self = .string(s)
      case .int(let i): self = .int(i)
      case .double(let d): self = .double(d.bitPattern)
      default: self = .other(JSONWriter.encodeString(id))
      }
    }
  }

  private var queue: [(key: Key, seq: Int)] = []
  private var head = 0
  private var waiting: [Key: Int] = [:]

  var isEmpty: Bool { head == queue.count }

  mutating func append(_ id: JSONValue, seq: Int) {
    let key = Key(id)
    queue.append((key, seq))
    waiting[key, default: 0] += 1
  }

  /// Forgets every cancellation at or before `seq`.
  mutating func spend(through seq: Int) {
    while head < queue.count && queue[head].seq <= seq {
      let key = queue[head].key
      if let n = waiting[key], n > 1 { waiting[key] = n - 1 } else { waiting[key] = nil }
      head += 1
    }
    if head == queue.count {
      queue.removeAll(keepingCapacity: queue.count <= 1024)
      head = 0
    } else if head > 4096 && head * 2 > queue.count {
      queue.removeFirst(head)
      head = 0
    }
  }

  /// True when a cancellation of `id` waits, that is, one read after the position last spent.
  func contains(_ id: JSONValue) -> Bool { waiting[Key(id)] != nil }
}
