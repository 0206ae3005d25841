// Apple's Core Data error codes (NSCocoaErrorDomain), with Apple's constant names and values.

/// A value failed validation for no more specific reason: here, a value whose type is not its attribute's
/// type (set with `setValue(_:forKey:)`, reported when the object is validated or saved).
public let NSManagedObjectValidationError = 1550
/// An object breaks a uniqueness constraint of its entity (Apple's code; this package reports constraint
/// conflicts as 133021).
public let NSManagedObjectConstraintValidationError = 1551
/// Validation found several problems; each is an error of its own under `NSDetailedErrorsKey`.
public let NSValidationMultipleErrorsError = 1560
/// A required (non-optional) attribute or to-one relationship is nil.
public let NSValidationMissingMandatoryPropertyError = 1570
/// A to-many relationship has fewer destinations than its `minCount`.
public let NSValidationRelationshipLacksMinimumCountError = 1580
/// A to-many relationship has more destinations than its `maxCount`.
public let NSValidationRelationshipExceedsMaximumCountError = 1590
/// An object cannot be deleted: a relationship with the deny delete rule still has a destination.
public let NSValidationRelationshipDeniedDeleteError = 1600
/// A number is larger than its attribute's maximum.
public let NSValidationNumberTooLargeError = 1610
/// A number is smaller than its attribute's minimum.
public let NSValidationNumberTooSmallError = 1620
/// A date is later than its attribute's maximum.
public let NSValidationDateTooLateError = 1630
/// A date is earlier than its attribute's minimum.
public let NSValidationDateTooSoonError = 1640
/// A date is not a valid date (Apple's code; this package does not throw it).
public let NSValidationInvalidDateError = 1650
/// A string is longer than its attribute's maximum length.
public let NSValidationStringTooLongError = 1660
/// A string is shorter than its attribute's minimum length.
public let NSValidationStringTooShortError = 1670
/// A string does not match its attribute's regular expression.
public let NSValidationStringPatternMatchingError = 1680
/// A URI attribute holds a value that is not a valid URI (Apple's code; this package does not throw it).
public let NSValidationInvalidURIError = 1690

/// A managed object context's lock could not be taken (Apple's code; this package does not throw it).
public let NSManagedObjectContextLockingError = 132000
/// A coordinator's lock could not be taken (Apple's code; this package does not throw it).
public let NSPersistentStoreCoordinatorLockingError = 132010
/// A fault fired for an object that its store no longer has.
public let NSManagedObjectReferentialIntegrityError = 133000
/// An object being saved relates to an object in another store, which a relationship cannot cross.
public let NSManagedObjectExternalRelationshipError = 133010
/// A save met objects that changed in the store since they were read (optimistic locking), and the
/// context's merge policy (`NSErrorMergePolicy`) did not resolve them; the conflicts are `NSMergeConflict`s
/// under "conflictList".
public let NSManagedObjectMergeError = 133020
/// A save or batch insert would break a uniqueness constraint, and the merge policy did not resolve it; the
/// conflicts are `NSConstraintConflict`s under "conflictList".
public let NSManagedObjectConstraintMergeError = 133021

/// A file is not a store of the requested type, or the store type is unknown (this package also uses it for
/// an empty or foreign file); the file is left as it was.
public let NSPersistentStoreInvalidTypeError = 134000
/// A store was opened as a type other than the one it is (Apple's code; this package reports it as 134000).
public let NSPersistentStoreTypeMismatchError = 134010
/// The store's database refused an operation at the schema level (a missing table, no permission) (Apple's
/// code; this package does not throw it).
public let NSPersistentStoreIncompatibleSchemaError = 134020
/// A save (or a batch request) could not be written: a read-only store, a failed write, or an error the
/// store reported, found under `NSUnderlyingErrorKey`.
public let NSPersistentStoreSaveError = 134030
/// One or more stores failed during a save; the stores and objects concerned are in `userInfo` (Apple's code;
/// this package does not throw it: each store's part of a save fails with its own error).
public let NSPersistentStoreIncompleteSaveError = 134040
/// A save met merge conflicts it did not resolve; they are under `NSPersistentStoreSaveConflictsErrorKey`
/// (Apple's code; this package reports unresolved conflicts as 133020).
public let NSPersistentStoreSaveConflictsError = 134050
/// A Core Data error of no more specific kind (here also a request used where it cannot run, such as
/// `NSFetchRequest.execute()` outside a context's block, or a sort key path that names no property).
public let NSCoreDataError = 134060
/// A store operation failed: the same URL added twice, a store another coordinator has open, or an error a
/// store reported while reading, under `NSUnderlyingErrorKey`.
public let NSPersistentStoreOperationError = 134070
/// A store could not be opened (a directory that cannot be created, a file that cannot be read, options a
/// store refuses).
public let NSPersistentStoreOpenError = 134080
/// A store could not be reached within `NSPersistentStoreTimeoutOption` (Apple's code; this package does not
/// throw it).
public let NSPersistentStoreTimeoutError = 134090
/// A store or this package does not support what was asked: a request type a store cannot run, or a part of
/// Apple's API this package does not implement (listed in the repository's `Docs/Status.md`).
public let NSPersistentStoreUnsupportedRequestTypeError = 134091
/// A store was saved with a model whose entity version hashes differ from the model it is opened with, and
/// lightweight migration was not asked for.
public let NSPersistentStoreIncompatibleVersionHashError = 134100
/// A migration failed; here also a migration that would leave a required value without one.
public let NSMigrationError = 134110
/// A migration would break a uniqueness constraint (Apple's code; this package does not throw it).
public let NSMigrationConstraintViolationError = 134111
/// A migration was cancelled (Apple's code; `NSMigrationManager.cancelMigrationWithError(_:)` fails the
/// migration with the error it is given).
public let NSMigrationCancelledError = 134120
/// No model was found that matches the store being migrated.
public let NSMigrationMissingSourceModelError = 134130
/// No mapping model was found between the store's model and the destination model.
public let NSMigrationMissingMappingModelError = 134140
/// The migration manager could not read the source store.
public let NSMigrationManagerSourceStoreError = 134150
/// The migration manager could not write the destination store (here also: a store already exists there).
public let NSMigrationManagerDestinationStoreError = 134160
/// A custom entity migration policy failed, or its class was not found by name.
public let NSEntityMigrationPolicyError = 134170
/// SQLite reported an error; its result code is under `NSSQLiteErrorDomain` in `userInfo`.
public let NSSQLiteError = 134180
/// Lightweight migration cannot infer a mapping between the two models (a type change it cannot convert);
/// `userInfo` names the entity and property.
public let NSInferredMappingModelError = 134190
/// An external record could not be imported (Apple's code, from Spotlight's external records; this package does
/// not throw it).
public let NSExternalRecordImportError = 134200
/// A persistent history fetch after a token whose later transactions were deleted (`deleteHistory(before:)`):
/// the history since the token is no longer complete, so the caller should start again without a token.
public let NSPersistentHistoryTokenExpiredError = 134301
/// A model reference (a model's version checksum) matches no model (Apple's code, from staged migration; this
/// package does not throw it).
public let NSManagedObjectModelReferenceNotFoundError = 134504
/// A store's metadata is too old for a staged migration (Apple's code; this package does not throw it).
public let NSStagedMigrationFrameworkVersionMismatchError = 134505
/// A staged migration would migrate a store backward (Apple's code; this package does not throw it).
public let NSStagedMigrationBackwardMigrationError = 134506

// userInfo keys, with Apple's values.
/// The `userInfo` key of the errors that a multiple-errors error (1560) gathers, an array of `NSError`.
public let NSDetailedErrorsKey = "NSDetailedErrors"
/// The `userInfo` key of the managed object that failed validation.
public let NSValidationObjectErrorKey = "NSValidationErrorObject"
/// The `userInfo` key of the name of the property that failed validation.
public let NSValidationKeyErrorKey = "NSValidationErrorKey"
/// The `userInfo` key of the validation predicate that failed.
public let NSValidationPredicateErrorKey = "NSValidationErrorPredicate"
/// The `userInfo` key of the value that failed validation.
public let NSValidationValueErrorKey = "NSValidationErrorValue"
/// The `userInfo` key of the stores (an array of `NSPersistentStore`) an error concerns.
public let NSAffectedStoresErrorKey = "NSAffectedStoresErrorKey"
/// The `userInfo` key of the objects (an array of `NSManagedObject`) an error concerns.
public let NSAffectedObjectsErrorKey = "NSAffectedObjectsErrorKey"
/// The `userInfo` key of the merge conflicts (an array of `NSMergeConflict`) of a 134050 error.
public let NSPersistentStoreSaveConflictsErrorKey = "NSPersistentStoreSaveConflictsErrorKey"
/// The `userInfo` key of SQLite's result code (an integer) in an error the SQLite store throws.
public let NSSQLiteErrorDomain = "NSSQLiteErrorDomain"
