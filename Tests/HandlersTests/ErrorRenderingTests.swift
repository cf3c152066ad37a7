import Handlers
import JSONCore
import RPCCore
import StoreEngine
import XCTest

/// The engine's typed places in their JSON-RPC form: `params.` and the JSON path, in the
/// message and, where the error gives its place as data, in `data.path`; codes from
/// `ErrorCodes` alone.
final class ErrorRenderingTests: XCTestCase {
  func testPlacesRenderAsJSONPaths() {
    let place = ErrorPlace(.changes).index(3).key("values").key("title")
    XCTAssertEqual(place.jsonPath, "params.changes[3].values.title")
    XCTAssertEqual(ErrorPlace(.stages).stage(from: "1", to: "2").key("transforms").index(0).jsonPath, "params.stages[1→2].transforms[0]")

    let e = StoreError(.validation, at: place, "expected a string", ["entity": "Task"]).rpcError
    XCTAssertEqual(e.code, -32001)
    XCTAssertEqual(e.message, "params.changes[3].values.title: expected a string")
    XCTAssertEqual(e.data, ["kind": "validation", "entity": "Task", "path": "params.changes[3].values.title"])

    let quiet = StoreError(.validation, at: ErrorPlace(.id), "'x' is not an object id", placeInData: false).rpcError
    XCTAssertEqual(quiet.message, "params.id: 'x' is not an object id")
    XCTAssertNil(quiet.data["path"])
  }

  func testPlacesInsideAMessageAreRenderedToo() {
    let other = ErrorPlace(.aggregates).index(0).key("as")
    let e = StoreError(.invalidArgument, at: ErrorPlace(.aggregates).index(1).key("as"), "'n' is already used by \(place: other)")
    XCTAssertEqual(e.rpcError.message, "params.aggregates[1].as: 'n' is already used by params.aggregates[0].as")
    XCTAssertEqual(e.message, "aggregates[1].as: 'n' is already used by aggregates[0].as", "the engine's neutral form")
  }

  func testPredicateParseAndCompileErrorsCarryTheSameData() {
    let parse = StoreError.predicate(PredicateError("expected a value", offset: 7), at: ErrorPlace(.where)).rpcError
    let compile = StoreError.predicate(PredicateError("'x' is not an attribute", offset: 7), at: ErrorPlace(.where), entity: "Task")
      .rpcError
    XCTAssertEqual(parse.data["path"], "params.where")
    XCTAssertEqual(compile.data["path"], "params.where")
    XCTAssertEqual(parse.data["offset"], 7)
    XCTAssertEqual(compile.data["offset"], 7)
    XCTAssertEqual(compile.message, "params.where: 'x' is not an attribute (at character 7)")
    let node = ErrorPlace(.where).key("or").index(1)
    let json = StoreError.predicate(
      PredicateError("'x' is not an attribute", offset: 1), at: ErrorPlace(.where), locations: [ErrorPlace(.where), node])
    XCTAssertEqual(json.rpcError.message, "params.where.or[1]: 'x' is not an attribute")
    XCTAssertEqual(json.rpcError.data["path"], "params.where.or[1]")
    XCTAssertNil(json.rpcError.data["offset"])
  }

  func testEveryKindHasItsCode() {
    for kind in [StoreError.Kind.validation, .constraint, .notFound, .predicate, .invalidArgument, .cancelled, .formatTooOld] {
      XCTAssertEqual(StoreError(kind, "x").rpcError.code, ErrorCodes.codes[kind])
    }
  }
}
