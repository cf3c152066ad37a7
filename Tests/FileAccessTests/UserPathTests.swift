import FileAccess
import Foundation
import XCTest

final class UserPathTests: XCTestCase {
  var dir: String!

  override func setUpWithError() throws {
    dir = NSTemporaryDirectory() + "userpath-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
  }

  override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

  private func reason(_ body: () throws -> Void) -> FileAccessError.Reason? {
    do {
      try body()
      return nil
    } catch let e as FileAccessError {
      return e.reason
    } catch {
      XCTFail("not a FileAccessError: \(error)")
      return nil
    }
  }

  func testEmptyPathsAndPathsWithNULAreRefusedNotCut() {
    XCTAssertEqual(reason { try UserPath.check("") }, .invalidPath)
    XCTAssertEqual(reason { try UserPath.check("bk\u{0}.txt") }, .invalidPath)
    XCTAssertEqual(reason { _ = try UserPath.createNew(dir + "/bk\u{0}.txt") }, .invalidPath)
    XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/bk"), "nothing is created under the cut name")
    XCTAssertEqual(reason { _ = try UserPath.readAll(dir + "/x\u{0}", maxBytes: 10) }, .invalidPath)
    XCTAssertEqual(UserPath.printable("bk\u{0}.txt"), "bk\\0.txt")
  }

  func testStatusTellsFilesDirectoriesDevicesAndDanglingLinks() throws {
    let file = dir + "/f"
    XCTAssertTrue(FileManager.default.createFile(atPath: file, contents: Data("abc".utf8)))
    XCTAssertEqual(try UserPath.status(file), .regular(size: 3))
    XCTAssertEqual(try UserPath.status(dir), .directory)
    XCTAssertEqual(try UserPath.status("/dev/zero"), .special("character device"))
    XCTAssertEqual(try UserPath.status(dir + "/none"), .missing)
    try FileManager.default.createSymbolicLink(atPath: dir + "/dangling", withDestinationPath: dir + "/none")
    XCTAssertEqual(try UserPath.status(dir + "/dangling"), .danglingLink)
    try FileManager.default.createSymbolicLink(atPath: dir + "/link", withDestinationPath: file)
    XCTAssertEqual(try UserPath.status(dir + "/link"), .regular(size: 3), "a link to a file is that file")
  }

  func testReadAllRefusesSpecialFilesAndStopsAtTheLimit() throws {
    XCTAssertEqual(reason { _ = try UserPath.readAll("/dev/zero", maxBytes: 1 << 20) }, .notRegularFile)
    XCTAssertEqual(reason { _ = try UserPath.readAll(dir, maxBytes: 1 << 20) }, .notRegularFile)
    XCTAssertEqual(reason { _ = try UserPath.readAll(dir + "/none", maxBytes: 1) }, .notFound)
    let file = dir + "/big"
    XCTAssertTrue(FileManager.default.createFile(atPath: file, contents: Data(repeating: 65, count: 100_000)))
    XCTAssertEqual(try UserPath.readAll(file, maxBytes: 100_000).count, 100_000, "exactly at the limit is read")
    do {
      _ = try UserPath.readAll(file, maxBytes: 99_999)
      XCTFail("read past the limit")
    } catch let e as FileAccessError {
      XCTAssertEqual(e.reason, .tooLarge)
      XCTAssertEqual(e.limit, 99_999)
    }
  }

  func testCreateNewNeverOverwritesNorFollowsALink() throws {
    let file = dir + "/new"
    let fd = try UserPath.createNew(file)
    close(fd)
    XCTAssertEqual(reason { _ = try UserPath.createNew(file) }, .exists)
    let victim = dir + "/victim"
    try FileManager.default.createSymbolicLink(atPath: dir + "/dangling", withDestinationPath: victim)
    XCTAssertEqual(reason { _ = try UserPath.createNew(dir + "/dangling") }, .exists)
    XCTAssertFalse(FileManager.default.fileExists(atPath: victim), "the link's target was not created")
    XCTAssertEqual(reason { _ = try UserPath.createNew(dir) }, .exists)
    XCTAssertEqual(reason { _ = try UserPath.createNew(dir + "/no/such/dir/f") }, .notFound)
  }
}
