import Foundation
import TestSupport
import XCTest

@testable import Studio

/// The page built into the binary is exactly the files under `Studio/`: the same paths,
/// the same bytes, and the generated file is what `scripts/embed-studio-assets.py` writes
/// now (run it after changing the page).
final class EmbeddedAssetsTests: XCTestCase {
  private var studio: URL { ServerProcess.repositoryRoot.appendingPathComponent("Studio") }

  func testEveryFileUnderStudioIsEmbeddedByteForByte() throws {
    var onDisk: [String: Data] = [:]
    let base = studio.standardizedFileURL.path + "/"
    let walker = try XCTUnwrap(FileManager.default.enumerator(at: studio, includingPropertiesForKeys: [.isRegularFileKey]))
    for case let url as URL in walker where (try url.resourceValues(forKeys: [.isRegularFileKey])).isRegularFile == true {
      onDisk[String(url.standardizedFileURL.path.dropFirst(base.count))] = try Data(contentsOf: url)
    }
    XCTAssertNotNil(onDisk["index.html"], "Studio/index.html is the page")
    let embedded = Dictionary(uniqueKeysWithValues: embeddedAssets.map { ($0.path, $0) })
    XCTAssertEqual(Set(embedded.keys), Set(onDisk.keys), "run scripts/embed-studio-assets.py")
    for (path, data) in onDisk {
      XCTAssertEqual(embedded[path].map { Data($0.bytes) }, data, "\(path): run scripts/embed-studio-assets.py")
      XCTAssertEqual(StudioAssets.asset(at: "/assets/\(path)")?.bytes, Array(data), path)
    }
    XCTAssertEqual(StudioAssets.asset(at: "/")?.bytes, onDisk["index.html"].map { Array($0) })
    XCTAssertNil(StudioAssets.asset(at: "/index.html"), "only / and /assets/... name files")
    XCTAssertNil(StudioAssets.asset(at: "/assets/../Package.swift"))
  }

  func testTheGeneratedFileIsUpToDate() throws {
    let script = ServerProcess.repositoryRoot.appendingPathComponent("scripts/embed-studio-assets.py")
    let run = try runProgram(URL(fileURLWithPath: "/usr/bin/env"), ["python3", script.path, "--check"])
    XCTAssertEqual(run.status, 0, run.stderr)
  }
}
