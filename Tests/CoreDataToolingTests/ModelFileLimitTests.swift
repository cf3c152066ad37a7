import Foundation
import XCTest

@testable import CoreDataTooling

/// The documented size limit of the model files the importer reads, and devices refused.
final class ModelFileLimitTests: XCTestCase {
  private var dir: String!

  override func setUpWithError() throws {
    dir = NSTemporaryDirectory() + "model-file-limits-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
  }

  override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

  func testModelFilesAreBoundedAndDevicesRefused() throws {
    let path = dir + "/contents"
    XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: nil))
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    try handle.truncate(atOffset: UInt64(ModelFiles.maxFileBytes + 1))
    try handle.close()
    XCTAssertThrowsError(try ModelFiles.read(path)) { XCTAssertEqual(($0 as? ToolingError)?.details["reason"], "tooLarge") }
    XCTAssertThrowsError(try ModelFiles.read("/dev/zero")) { XCTAssertEqual(($0 as? ToolingError)?.details["reason"], "notRegularFile") }
  }
}
