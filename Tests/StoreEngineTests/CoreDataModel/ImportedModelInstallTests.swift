import CoreDataTooling
import XCTest

@testable import StoreEngine

/// The schemas the Core Data model importer reads from the fixtures install in a fresh store.
final class ImportedModelInstallTests: XCTestCase {
  func testEveryVersionOfTheTasksBundleInstalls() throws {
    let model = try CoreDataModelImporter.importModel(at: CoreDataModelFixtures.tasksBundle)
    XCTAssertEqual(model.versions.count, 3)
    // Every version installs in a fresh store.
    for version in model.versions {
      let store = try Store(path: nil)
      XCTAssertNoThrow(try store.define(try XCTUnwrap(version.schema).json), version.name)
    }
  }

  func testTheFeaturesModelInstalls() throws {
    let model = try CoreDataModelImporter.importModel(at: CoreDataModelFixtures.features)
    let schema = try XCTUnwrap(model.current?.schema)
    let store = try Store(path: nil)
    XCTAssertNoThrow(try store.define(schema.json))
  }
}
