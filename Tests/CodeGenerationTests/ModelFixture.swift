import CoreDataTooling
import Foundation
import XCTest

@testable import CodeGeneration

/// Small Core Data models written inline for the generator's tests: a `contents` document
/// from its entities, and bundles of several versions written to a temporary directory.
enum ModelFixture {
  /// A `contents` document around `body` (entities, composites, fetch requests, configurations).
  static func contents(_ body: String, cloudKit: Bool = false) -> String {
    """
    <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
    <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0"\(cloudKit ? " usedWithCloudKit=\"YES\"" : "")>
    \(body)
    </model>
    """
  }

  /// The SwiftData files of one model version given as its `contents` text.
  static func swiftData(_ body: String, cloudKit: Bool = false) throws -> [CodeGenerator.File] {
    let model = CoreDataModelImporter.importContents(Array(contents(body, cloudKit: cloudKit).utf8), name: "Fixture")
    return try model.generate(.swiftdata).files
  }

  /// A `.xcdatamodeld` bundle named `name` with `versions` (version name, `contents` body), the
  /// last one current; removed when the test ends.
  static func bundle(_ name: String, _ versions: [(String, String)], in test: XCTestCase) throws -> String {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("ms-fixture-\(UUID().uuidString)")
    let bundle = root.appendingPathComponent("\(name).xcdatamodeld")
    for (version, body) in versions {
      let dir = bundle.appendingPathComponent("\(version).xcdatamodel")
      try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
      try contents(body).write(to: dir.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
    }
    let current = """
      <?xml version="1.0" encoding="UTF-8"?>
      <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
      <plist version="1.0"><dict><key>_XCCurrentVersionName</key><string>\(versions.last!.0).xcdatamodel</string></dict></plist>
      """
    try current.write(to: bundle.appendingPathComponent(".xccurrentversion"), atomically: true, encoding: .utf8)
    test.addTeardownBlock { try? FileManager.default.removeItem(at: root) }
    return bundle.path
  }

  /// The file named `name`.
  static func file(_ files: [CodeGenerator.File], _ name: String) -> String {
    files.first { $0.name == name }?.text ?? "(no file \(name) among \(files.map(\.name)))"
  }

  /// The type checker's errors for `files` as one unit (empty when it type-checks).
  static func typeCheckErrors(_ files: [CodeGenerator.File]) throws -> [String] {
    try SwiftDataTypeChecker.check([.init(name: "fixture", files: files)]).failures["fixture"] ?? []
  }

  /// `files` with `old` replaced by `new` in the file named `name`: the code as it would be
  /// without one of the generator's choices, for showing that the checker finds the fault.
  static func editing(_ files: [CodeGenerator.File], _ name: String, _ old: String, _ new: String) -> [CodeGenerator.File] {
    files.map { f in
      f.name == name ? CodeGenerator.File(name: f.name, text: f.text.replacingOccurrences(of: old, with: new)) : f
    }
  }
}
