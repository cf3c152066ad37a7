import CoreDataTooling
import StoreEngine

/// How a command names the places of engine errors to a shell user: by the flag (or the
/// file) that gave the value, `--where` rather than JSON-RPC's `params.where`, followed
/// by the steps into it (`PLAN.json: stages[0].custom.from`).
struct CommandPlaces {
  var names: [ErrorPlace.Argument: String]

  init(_ names: [ErrorPlace.Argument: String] = [:]) { self.names = names }

  /// A place: its flag (`--` and the argument's name unless the command says otherwise)
  /// and the steps into the value.
  func render(_ place: ErrorPlace) -> String { (names[place.argument] ?? "--\(place.argument.rawValue)") + place.stepsText }

  /// An error's message with its places named so.
  func message(_ error: Error) -> String {
    if let e = error as? StoreError { return e.text.rendered(render) }
    return (error as? ToolingError)?.message ?? "\(error)"
  }
}
