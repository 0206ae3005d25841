/// A store that computes derived attributes (`NSDerivedAttributeDescription`) itself: an optional refinement
/// of the store contract, with no requirements of its own; adopting it is the capability.
///
/// The store guarantees:
/// - Every save (`save(_:)`) leaves each derived attribute of the saved rows, and of the rows whose derived
///   values depend on them (a book whose page was added, moved or deleted), equal to its derivation computed
///   from the store's data after the save; values set for derived attributes in a change set are never written.
/// - The values a save changed are reported in `StoreSaveResult.derivedValues`, so contexts can show them.
/// - A batch update, insert or delete (when the store runs them) leaves the derived attributes equal to their
///   derivations from the store's data after the request, as Apple's SQLite triggers do within the statement;
///   `now()` is set on the rows the request writes.
/// - Opening a store computes values that are missing (a store written before its model had them).
///
/// A coordinator refuses to add a store whose backend does not adopt this protocol when the model has derived
/// attributes (134091 naming the store type), as it refuses derivations no store computes; nothing is silently
/// left nil.
///
/// Conformance: `derived/count-and-sum-follow-inserts-moves-and-deletes`,
/// `derived/to-one-key-path-and-lowercase-are-copied`, `derived/now-is-the-time-of-each-save`,
/// `derived/merging-context-sees-the-store's-values`, `derived/after-batch-update`, `derived/after-batch-insert`,
/// `derived/after-batch-delete`, `derived/to-one-of-own-entity`, `derived/aggregates-over-own-entity`.
public protocol DerivedAttributeComputing: PersistentStoreBackend {}
