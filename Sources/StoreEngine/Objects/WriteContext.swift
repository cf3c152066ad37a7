import DatabaseKit
import JSONCore
import SchemaModel

/// Bookkeeping for one atomic write (a request or a whole `context.save`): `$ref`s
/// assigned so far, relationship values waiting for a later `$ref`, and the objects
/// whose required to-ones and to-many counts must hold before the write commits.
final class WriteContext {
  var refs: [String: ObjectID] = [:]
  /// Relationship assignments naming a `$ref` that did not exist yet when they were read.
  var deferred: [(id: ObjectID, values: JSONObject, path: ErrorPlace, index: Int?)] = []
  /// The index of the `context.save` change being applied (nil outside a save); recorded
  /// with deferred work and touched objects so late errors still name their change.
  var currentIndex: Int?
  /// In order of first touch; may hold repeats (de-duplicated when validated).
  var touched: [ObjectID] = []
  var touchedIndex: [Int?] = []
  /// The values bound by the latest insert, in `EntityPlan.insertSQL` order; nil when it
  /// also set to-many relationships or left a reference for later (then the row must be
  /// read back).
  var lastInsertBound: [SQLValue]?
  /// The to-one targets that insert set (the others are null), in `EntityPlan.toOne`
  /// order: the index there, the target and its plan.
  var lastInsertToOne: [(index: Int, target: ObjectID, plan: EntityPlan)] = []
  let allowsRefs: Bool
  /// Set by `Store.writeOpeningLevelOnDemand`: the request has no transaction level of its
  /// own yet, and the insert opens one before its first change unless that change is the
  /// last thing of the request that can fail (`EntityPlan.insertEndsAtItsRow`).
  var levelOnDemand = false
  /// Where the request records its changes when not in `WriteState.requestLog`: the open
  /// client transaction's log, for an insert that opened no level (nothing after its
  /// INSERT can fail, so nothing recorded there is ever taken back).
  var historyLog: ChangeLog?

  init(allowsRefs: Bool = false) { self.allowsRefs = allowsRefs }

  /// When set, only objects of these entities are kept in `touched`: the entities whose
  /// relationships `Store.validateTouched` checks (it skips every other), so that a long
  /// write such as an import does not keep a list growing with objects needing no check.
  var checkedEntities: Set<String>?

  func touch(_ id: ObjectID) {
    if let checkedEntities, !checkedEntities.contains(id.entity) { return }
    touched.append(id)
    touchedIndex.append(currentIndex)
  }
}

/// Thrown while reading a relationship value that names a `$ref` not assigned yet.
struct PendingReference: Error { let ref: String }
