/// Walks a command's arguments: `next()` gives the next one, `value(flag)` the one after a
/// flag, or stops with exit status 2 when it is missing. For the one-shot commands.
struct ArgumentCursor {
  private var iterator: ArraySlice<String>.Iterator

  init(_ arguments: ArraySlice<String>) { iterator = arguments.makeIterator() }

  mutating func next() -> String? { iterator.next() }

  mutating func value(_ flag: String) -> String {
    guard let v = iterator.next() else { fail("\(flag) needs a value") }
    return v
  }
}
