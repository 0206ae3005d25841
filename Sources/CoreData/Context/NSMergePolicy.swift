/// The built-in merge policies, with Apple's raw values.
public enum NSMergePolicyType: UInt, Sendable {
    /// Fail the save with the conflicts (133020).
    case errorMergePolicyType = 0
    /// Per property: the store's changes win over the context's.
    case mergeByPropertyStoreTrumpMergePolicyType = 1
    /// Per property: the context's changes win over the store's.
    case mergeByPropertyObjectTrumpMergePolicyType = 2
    /// The context's objects replace what the store has.
    case overwriteMergePolicyType = 3
    /// The context's changes to conflicting objects are dropped.
    case rollbackMergePolicyType = 4
}

/// How a save resolves objects that changed in the store since the context read them
/// (Apple's class of the same name).
open class NSMergePolicy: NSObject, @unchecked Sendable {
    /// The policy's kind.
    public let mergeType: NSMergePolicyType

    public init(merge type: NSMergePolicyType) {
        mergeType = type
        super.init()
    }

    /// Fails the save with the conflicts.
    public static let error = NSMergePolicy(merge: .errorMergePolicyType)
    /// The store's changes win, property by property.
    public static let mergeByPropertyStoreTrump = NSMergePolicy(merge: .mergeByPropertyStoreTrumpMergePolicyType)
    /// The context's changes win, property by property.
    public static let mergeByPropertyObjectTrump = NSMergePolicy(merge: .mergeByPropertyObjectTrumpMergePolicyType)
    /// The context's objects replace the store's.
    public static let overwrite = NSMergePolicy(merge: .overwriteMergePolicyType)
    /// The context's conflicting changes are dropped.
    public static let rollback = NSMergePolicy(merge: .rollbackMergePolicyType)

    /// Resolves uniqueness-constraint conflicts found by a save: `NSErrorMergePolicy` throws them (133021, under
    /// "conflictList"); the other policies merge the conflicting objects as
    /// `NSManagedObjectContext+UniquenessConflicts.swift` describes. Subclasses may override it; the save
    /// goes on with whatever the context holds afterwards (the stores still refuse a remaining violation).
    open func resolve(constraintConflicts list: [NSConstraintConflict]) throws {
        guard mergeType != .errorMergePolicyType else { throw NSConstraintConflict.error(list) }
        for conflict in list {
            guard let context = conflict.conflictingObjects.lazy.compactMap(\.managedObjectContext).first else { continue }
            context.resolve(conflict, type: mergeType)
        }
    }

    /// The policy a context's `mergePolicy` value stands for (an `NSMergePolicy` or a policy type).
    static func resolve(_ value: Any) -> NSMergePolicy {
        if let policy = value as? NSMergePolicy { return policy }
        if let type = value as? NSMergePolicyType { return NSMergePolicy(merge: type) }
        return .error
    }
}

/// Apple's global names of the built-in policies.
public let NSErrorMergePolicy: Any = NSMergePolicy.error
public let NSMergeByPropertyStoreTrumpMergePolicy: Any = NSMergePolicy.mergeByPropertyStoreTrump
public let NSMergeByPropertyObjectTrumpMergePolicy: Any = NSMergePolicy.mergeByPropertyObjectTrump
public let NSOverwriteMergePolicy: Any = NSMergePolicy.overwrite
public let NSRollbackMergePolicy: Any = NSMergePolicy.rollback

/// One object that changed in the store since the context read it (Apple's class of the same name).
open class NSMergeConflict: NSObject, @unchecked Sendable {
    /// The context's object.
    public let sourceObject: NSManagedObject
    /// The context's values of the object, by name.
    public let objectSnapshot: [String: Any]?
    /// The values the context read, by name.
    public let cachedSnapshot: [String: Any]?
    /// The store's current values, by name; nil when the store deleted the object.
    public let persistedSnapshot: [String: Any]?
    /// The store's version of the object (0 when deleted).
    public let newVersionNumber: Int
    /// The version the context read.
    public let oldVersionNumber: Int

    public init(source: NSManagedObject, newVersion: Int, oldVersion: Int, cachedSnapshot: [String: Any]?, persistedSnapshot: [String: Any]?) {
        sourceObject = source
        objectSnapshot = source.changedValues()
        self.cachedSnapshot = cachedSnapshot
        self.persistedSnapshot = persistedSnapshot
        newVersionNumber = newVersion
        oldVersionNumber = oldVersion
        super.init()
    }
}
