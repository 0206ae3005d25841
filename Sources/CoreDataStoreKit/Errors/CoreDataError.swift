/// Builds the `NSError`s this package throws: always `NSCocoaErrorDomain`, Apple's code, and a
/// description that names the problem. Every thrown error in the package comes from here.
public enum CoreDataError {
    /// An error with Apple's `code` and a message; extra userInfo entries are merged in.
    public static func make(_ code: Int, _ message: String, userInfo: [String: Any] = [:]) -> NSError {
        var info = userInfo
        info[NSLocalizedDescriptionKey] = message
        return NSError(domain: NSCocoaErrorDomain, code: code, userInfo: info)
    }

    /// A request or option a store does not support (134091).
    public static func unsupported(_ what: String) -> NSError {
        make(NSPersistentStoreUnsupportedRequestTypeError, "Unsupported: \(what).")
    }

    /// A store type that no one registered (134000).
    public static func unknownStoreType(_ type: String) -> NSError {
        make(NSPersistentStoreInvalidTypeError, "Unknown store type \"\(type)\": no store class is registered for it.")
    }

    /// A file that is not a store of the expected type (134000), left as it was.
    public static func notAStore(_ url: URL?, type: String, reason: String) -> NSError {
        make(NSPersistentStoreInvalidTypeError,
             "The file at \(url?.path ?? "<no URL>") is not a \(type) store: \(reason).",
             userInfo: url.map { [NSFilePathErrorKey: $0.path, NSURLErrorKey: $0] } ?? [:])
    }

    /// A store file of the right type whose contents are damaged (259, `NSFileReadCorruptFileError`).
    public static func corruptStore(_ url: URL?, type: String, reason: String) -> NSError {
        make(NSFileReadCorruptFileError,
             "The \(type) store at \(url?.path ?? "<no URL>") is damaged: \(reason).",
             userInfo: url.map { [NSFilePathErrorKey: $0.path, NSURLErrorKey: $0] } ?? [:])
    }

    /// A store whose recorded model does not match the coordinator's model (134100).
    public static func incompatibleModel(_ url: URL?, reason: String) -> NSError {
        make(NSPersistentStoreIncompatibleVersionHashError,
             "The model used to open the store at \(url?.path ?? "<no URL>") is incompatible with the one used to create it: \(reason).",
             userInfo: url.map { [NSURLErrorKey: $0] } ?? [:])
    }

    /// A failure to open or create a store (134080).
    public static func openFailed(_ url: URL?, reason: String) -> NSError {
        make(NSPersistentStoreOpenError, "Could not open the store at \(url?.path ?? "<no URL>"): \(reason).",
             userInfo: url.map { [NSURLErrorKey: $0] } ?? [:])
    }

    /// A failure while writing a save (134030).
    public static func saveFailed(_ reason: String, underlying: Error? = nil) -> NSError {
        make(NSPersistentStoreSaveError, "The save failed: \(reason).",
             userInfo: underlying.map { [NSUnderlyingErrorKey: $0] } ?? [:])
    }

    /// A save or batch request that would give two objects of an entity's inheritance tree the same values
    /// for a uniqueness constraint (133021, `NSManagedObjectConstraintMergeError`).
    public static func uniquenessViolation(entity: String, properties: [String]) -> NSError {
        make(NSManagedObjectConstraintMergeError,
             "The save violates a uniqueness constraint: two \(entity) objects would have the same \(properties.joined(separator: ", ")).")
    }

    /// 133021 for a batch insert's row that a uniqueness constraint matches with a stored object of another
    /// entity (a subentity or superentity sharing the constrained properties): updating that row would leave it
    /// an object of the wrong entity. Names the entity and every constraint it has.
    public static func batchInsertConflictWithOtherEntity(_ entity: NSEntityDescription) -> NSError {
        var constraints: [String] = []
        var current: NSEntityDescription? = entity
        while let declaring = current {
            constraints += declaring.uniquenessConstraints.map { $0.compactMap { $0 as? String }.joined(separator: ", ") }
            current = declaring.superentity
        }
        return make(NSManagedObjectConstraintMergeError,
                    "The batch insert cannot update a saved object of another entity: a new \(entity.name ?? "") object has its values for a uniqueness constraint (\(constraints.joined(separator: "; "))).")
    }

    /// A store that failed with an error outside Apple's domain (a backend throwing its own error type): the
    /// error with Apple's `code` (the coordinator uses 134030 for writes, 134070 for reads), naming the
    /// operation, with the backend's error under `NSUnderlyingErrorKey`; extra userInfo entries are merged in.
    public static func storeFailed(_ operation: String, code: Int, underlying: Error, userInfo: [String: Any] = [:]) -> NSError {
        var info = userInfo
        info[NSUnderlyingErrorKey] = underlying
        return make(code, "The store failed to \(operation): \(underlying).", userInfo: info)
    }

    /// A model change the inferred (lightweight) mapping cannot make (134190, `NSInferredMappingModelError`),
    /// naming the entity and property under `entity` and `property` in `userInfo`.
    public static func cannotInferMapping(entity: String, property: String, reason: String) -> NSError {
        make(NSInferredMappingModelError, "Cannot infer a mapping model: \(entity).\(property) \(reason).",
             userInfo: ["entity": entity, "property": property, "reason": reason])
    }

    /// A migration that failed (134110, `NSMigrationError`).
    public static func migrationFailed(_ reason: String) -> NSError {
        make(NSMigrationError, "The store could not be migrated: \(reason).")
    }

    /// `error` as a migration error: migration and mapping errors unchanged, anything else as 134110 with it
    /// under `NSUnderlyingErrorKey`.
    public static func migrationFailed(_ error: Error) -> NSError {
        let error = error as NSError
        if error.domain == NSCocoaErrorDomain, error.code == NSMigrationError || error.code == NSInferredMappingModelError { return error }
        return make(NSMigrationError, "The store could not be migrated: \(error.localizedDescription)", userInfo: [NSUnderlyingErrorKey: error])
    }

    /// A migration whose data does not fit the new model (134110, `NSMigrationError`): `count` objects of
    /// `entity` have no value for the required `property` (added without a default, or made required over
    /// nil values). `entity` and `property` are in `userInfo`.
    public static func missingRequiredValue(entity: String, property: String, count: Int64) -> NSError {
        make(NSMigrationError,
             "The store cannot be migrated: \(entity).\(property) is required, but \(count) object(s) have no value and the model gives no default.",
             userInfo: ["entity": entity, "property": property])
    }

    /// A misuse of a store or coordinator, such as adding one store twice (134070).
    public static func operation(_ reason: String) -> NSError {
        make(NSPersistentStoreOperationError, reason)
    }
}
