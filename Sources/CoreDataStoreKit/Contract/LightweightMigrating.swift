/// A store that performs Apple's automatic lightweight migration when it is opened: an optional refinement of
/// the store contract; adopting it is the capability. It adds no requirement of its own: it states what
/// `init(_:)` guarantees when `StoreOpenRequest.allowsLightweightMigration` is true.
///
/// A store saved with another model, opened with `NSMigratePersistentStoresAutomaticallyOption` and
/// `NSInferMappingModelAutomaticallyOption` set and not read-only, is migrated before `init(_:)` returns:
/// - Entities and properties are matched by name, or by `renamingIdentifier` (a chain of renamings across
///   several model versions included, and a store several versions old opens directly with the newest model).
/// - New optional attributes are nil, new entities are empty, dropped attributes are gone; the kept rows keep
///   their keys (so object URIs stay valid), values and relationships.
/// - All at once or not at all: a new required attribute that nothing provides throws 134110
///   (`NSMigrationError`) naming it, a type change the inferred mapping cannot convert throws 134190
///   (`NSInferredMappingModelError`) naming the attribute, and either leaves the store byte for byte as it was.
/// - Afterwards the store is a store of the new model: it opens again with that model and no options.
///
/// A store type that does not adopt this protocol is never migrated: a store saved with another model throws
/// 134100 (`NSPersistentStoreIncompatibleVersionHashError`), as every store does without the options
/// (`add-store/incompatible-model`).
///
/// Conformance: `add-store/lightweight-migration`, `migration/renaming-chain`, `migration/skipping-a-version`,
/// `migration/refusals-leave-the-store`, `composite/lightweight-migration-adds-a-composite-and-an-element`.
public protocol LightweightMigrating: PersistentStoreBackend {}
