import SchemaModel

extension ImportedModel {
  /// Gives each version's schema SwiftData's `originalName`s: the name of the same element
  /// (paired by renaming identifier, Core Data's way: `SchemaMapping`) in the version
  /// before it in `versions`' order; the first version, and one after a version that could
  /// not be read, take each renaming identifier as the previous name. Versions keep their
  /// renaming identifiers, so any two of them still pair as Core Data pairs them.
  mutating func resolveOriginalNames() {
    var previous: Schema?
    for k in versions.indices {
      guard let schema = versions[k].readSchema else {
        previous = nil
        continue
      }
      versions[k].readSchema = schema.withOriginalNames(from: previous)
      previous = schema
    }
  }
}
