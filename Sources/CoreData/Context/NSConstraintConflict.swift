/// Objects that would break a uniqueness constraint if saved (Apple's class of the same name): several objects
/// of the context with the same constrained values, or objects of the context with the values of a saved row.
///
/// A save under `NSErrorMergePolicy` throws 133021 (`NSManagedObjectConstraintMergeError`) with these under
/// the error's "conflictList" key; the other policies resolve them (see `NSMergePolicy.resolve(constraintConflicts:)`).
open class NSConstraintConflict: NSObject, @unchecked Sendable {
    /// The names of the constrained properties.
    public let constraint: [String]
    /// The context's object for the saved row that has the values, or nil for a conflict among unsaved objects.
    public let databaseObject: NSManagedObject?
    /// The saved row's values by name, or nil for a conflict among unsaved objects.
    public let databaseSnapshot: [String: Any]?
    /// The context's objects that have the constrained values.
    public let conflictingObjects: [NSManagedObject]
    /// Each conflicting object's values as last fetched or saved (empty for an inserted object), in order.
    public let conflictingSnapshots: [[AnyHashable: Any]]

    /// A conflict made by hand (Apple's initializer): the constrained property names, the saved object and its values
    /// (nil when the conflict is among unsaved objects), and the conflicting objects with their snapshots, in the
    /// same order.
    public init(constraint contraint: [String], database databaseObject: NSManagedObject?, databaseSnapshot: [AnyHashable: Any]?,
                conflicting conflictingObjects: [NSManagedObject], conflictingSnapshots: [Any]) {
        constraint = contraint
        self.databaseObject = databaseObject
        var snapshot: [String: Any]?
        if let databaseSnapshot {
            snapshot = [:]
            for (key, value) in databaseSnapshot { if let key = key as? String { snapshot?[key] = value } }
        }
        self.databaseSnapshot = snapshot
        self.conflictingObjects = conflictingObjects
        self.conflictingSnapshots = conflictingSnapshots.map { $0 as? [AnyHashable: Any] ?? [:] }
        super.init()
    }

    /// Whether the context loaded `databaseObject` only to report this conflict (so an inserted object may
    /// take its place).
    var databaseObjectWasLoaded = false

    /// The 133021 error of a save that leaves these conflicts, with them under "conflictList".
    static func error(_ conflicts: [NSConstraintConflict], note: String? = nil) -> NSError {
        let first = conflicts.first
        let entity = first?.conflictingObjects.first?.entity.name ?? ""
        let names = first?.constraint.joined(separator: ", ") ?? ""
        return CoreDataError.make(NSManagedObjectConstraintMergeError,
                                  "The save violates a uniqueness constraint: \(conflicts.count) conflict(s), the first on \(entity) \(names)\(note.map { " (\($0))" } ?? "").",
                                  userInfo: ["conflictList": conflicts])
    }

    /// The constrained values the objects share, by name.
    open var constraintValues: [String: Any] {
        var values: [String: Any] = [:]
        guard let object = conflictingObjects.first else { return values }
        for name in constraint { values[name] = object.value(forKey: name) ?? NSNull() }
        return values
    }
}
