import CoreDataTooling

extension StoreError {
  /// A failure of the Core Data tooling (a model file missing, unreadable or without a
  /// usable version), as the engine reports it: same kind, message and details.
  public init(_ e: ToolingError) {
    switch e.kind {
    case .notFound: self.init(.notFound, e.message, e.details)
    case .invalidArgument: self.init(.invalidArgument, e.message, e.details)
    case .storage: self.init(.storage, e.message, e.details)
    case .invalidModel: self.init(.invalidModel, e.message, e.details)
    }
  }
}
