import CoreDataTooling
import StoreEngine

/// How a command names the places of engine errors to a shell user: by the flag (or the
/// file) that gave the value, `--where` rather than JSON-RPC's `params.where`, followed
/// by the steps into it (`PLAN.json: stages[0].custom.from`).
struct CommandPlaces {
  var names: [ErrorPlace.Argument: String]

  init(_ names: [ErrorPlace.Argument: String] = [:]) { self.names = names }

  /// A place: its flag (the argument's name in kebab case after `--`, `allowDataLoss` as
  /// `--allow-data-loss`, unless the command says otherwise) and the steps into the value.
  func render(_ place: ErrorPlace) -> String { (names[place.argument] ?? Self.flag(place.argument)) + place.stepsText }

  /// `--` and the argument's name in kebab case.
  static func flag(_ argument: ErrorPlace.Argument) -> String {
    var out = "--"
    for c in argument.rawValue {
      if c.isUppercase { out += "-" + c.lowercased() } else { out.append(c) }
    }
    return out
  }

  /// An error's message with its places named so.
  func message(_ error: Error) -> String {
    if let e = error as? StoreError { return e.text.rendered(render) }
    if let e = error as? ToolingError { return StoreError(e).text.rendered(render) }
    return "\(error)"
  }
}
