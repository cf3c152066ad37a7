/// Stable version hashes, in the spirit of Core Data's `versionHash`: they change exactly
/// when what is stored changes shape, and not for defaults, delete rules, indexes,
/// min/max counts or renaming hints (protocol.md, "Version hashes").
extension Entity {
  /// Hex SHA-256 of a canonical description: name, parent, abstract, then attributes and
  /// relationships sorted by name with the stored facets of each, then uniqueness.
  public var versionHash: String {
    var text = "entity:\(name)|parent:\(parent ?? "")|abstract:\(abstract)"
    for a in attributes.sorted(by: { $0.name < $1.name }) {
      text += "|attr:\(a.name):\(a.type.rawValue):optional=\(a.optional):transient=\(a.transient):unique=\(a.unique)"
    }
    for r in relationships.sorted(by: { $0.name < $1.name }) {
      text += "|rel:\(r.name):\(r.destination):toMany=\(r.toMany):ordered=\(r.ordered):inverse=\(r.inverse ?? "")"
    }
    for u in uniqueness { text += "|unique:\(u.joined(separator: ","))" }
    return SHA256.hex(text)
  }
}

extension Schema {
  /// Hash of the entity hashes in name order: equal exactly when every entity's is.
  public var versionHash: String {
    SHA256.hex(entities.sorted { $0.name < $1.name }.map { "\($0.name)=\($0.versionHash)" }.joined(separator: "\n"))
  }
}
