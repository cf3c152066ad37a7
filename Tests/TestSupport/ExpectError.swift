import XCTest

/// Expects `body` to fail with an error of type `E` and returns it.
public func expectError<E: Error, T>(_ type: E.Type, _ body: () throws -> T, file: StaticString = #filePath, line: UInt = #line) -> E? {
  do {
    let v = try body()
    XCTFail("expected \(E.self), got \(v)", file: file, line: line)
  } catch let e as E {
    return e
  } catch {
    XCTFail("expected \(E.self), got \(error)", file: file, line: line)
  }
  return nil
}
