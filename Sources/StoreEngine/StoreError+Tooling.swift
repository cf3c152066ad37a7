import CoreDataTooling

extension StoreError {
  /// A failure of the Core Data tooling (a model file missing, unreadable or without a
  /// usable version), as the engine reports it: same kind, message and details.
  /// A tooling error about a request member is placed there (`params.versionOrder: ...`).
  public init(_ e: ToolingError) {
    let kind: Kind
    switch e.kind {
    case .notFound: kind = .notFound
    case .invalidArgument: kind = .invalidArgument
    case .storage: kind = .storage
    case .invalidModel: kind = .invalidModel
    }
    if let argument = e.argument.flatMap(ErrorPlace.Argument.init(rawValue:)) {
      self.init(kind, at: ErrorPlace(argument), e.message, e.details)
    } else {
      self.init(kind, e.message, e.details)
    }
  }
}
