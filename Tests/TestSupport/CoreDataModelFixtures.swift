import Foundation

/// The hand-written Core Data models under Tests/Fixtures/CoreDataModels.
public enum CoreDataModelFixtures {
  public static var directory: String {
    URL(fileURLWithPath: #filePath)
      .deletingLastPathComponent()  // TestSupport
      .deletingLastPathComponent()  // Tests
      .appendingPathComponent("Fixtures/CoreDataModels").path
  }

  /// A CDTask / CDCategory bundle in three versions: v2 adds priority and the category,
  /// v3 renames `done` to `isDone` (elementID) and adds a uniqueness constraint and an index.
  public static var tasksBundle: String { directory + "/Tasks.xcdatamodeld" }
  /// One model that uses every feature the importer maps or reports.
  public static var features: String { directory + "/Features.xcdatamodel" }
  /// A rename chain by renaming identifier (Core Data's `elementID`): `Queue.currentSongIndex`
  /// → `currentIndex` → `position`, `Queue.songs` → `tracks` → `items`, entity `Song` →
  /// `Track` → `Entry`, each later name carrying the first name as its identifier.
  public static var playerBundle: String { directory + "/Player.xcdatamodeld" }
  /// A bundle whose only version is an Xcode 3 binary model.
  public static var legacy: String { directory + "/Legacy.xcdatamodeld" }
}
