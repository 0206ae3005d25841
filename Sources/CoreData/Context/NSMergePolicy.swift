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

/// How a save resolves conflicts (Apple's class of the same name): objects changed in the store since the
/// context read them (`NSMergeConflict`, optimistic locking) and objects that would break a uniqueness
/// constraint (`NSConstraintConflict`).
///
/// The policy is a strategy object: a save hands every conflict it finds to `resolve(mergeConflicts:)`, which
/// gives each kind to `resolve(optimisticLockingConflicts:)` or `resolve(constraintConflicts:)`. A subclass
/// overrides any of them to change the outcome, calling `super` for the built-in behaviour of its
/// `mergeType` or not; an error it throws fails the save with that error and nothing written to the store
/// being saved. The built-in policies follow Apple's documentation, with the details in `Docs/Decisions.md`
/// ("Merge policies").
///
/// Version conflicts are resolved while the coordinator's lock is held, so no other save through the
/// coordinator can write between the resolution and the next attempt. A policy's methods therefore must not
/// wait for another context of the same coordinator on another queue.
open class NSMergePolicy: NSObject, @unchecked Sendable {
    /// The policy's kind: which built-in resolution the methods of this class perform.
    public let mergeType: NSMergePolicyType

    /// A policy that resolves conflicts as the built-in policy `type` does; subclasses pass the type whose
    /// behaviour `super` gives them.
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

    /// Resolves a list of conflicts (Apple's older entry point, the one a save calls): the `NSMergeConflict`s
    /// go to `resolve(optimisticLockingConflicts:)`, then the `NSConstraintConflict`s to
    /// `resolve(constraintConflicts:)`; other elements are ignored.
    /// - Throws: what those methods throw.
    open func resolve(mergeConflicts list: [Any]) throws {
        let locking = list.compactMap { $0 as? NSMergeConflict }
        let constraints = list.compactMap { $0 as? NSConstraintConflict }
        if !locking.isEmpty { try resolve(optimisticLockingConflicts: locking) }
        if !constraints.isEmpty { try resolve(constraintConflicts: constraints) }
    }

    /// Resolves objects that changed in the store since the context read them, as `mergeType` says:
    ///
    /// - `NSErrorMergePolicy` throws 133020 with the conflicts under "conflictList".
    /// - `NSMergeByPropertyObjectTrumpMergePolicy`: each property the context changed keeps the context's
    ///   value; every other property takes the store's current value.
    /// - `NSMergeByPropertyStoreTrumpMergePolicy`: each property the store changed takes the store's value;
    ///   the context's other changes stay.
    /// - `NSOverwriteMergePolicy`: every attribute and to-one relationship of the context's object is written
    ///   over the store's.
    /// - `NSRollbackMergePolicy`: the context's changes to the object's attributes and to-one relationships
    ///   are dropped, it takes the store's values, and a deletion is undone.
    ///
    /// Under every policy but the first, a to-many relationship the context changed is merged as a set: the
    /// context's additions and removals are applied to the store's current destinations, so both sides of
    /// every relationship agree after the save. The property-merging policies and overwrite throw 133020 when
    /// the context updated an object the store has deleted. A resolved object is brought to the store's
    /// version (`newVersionNumber`), and the save tries again.
    ///
    /// A conflict that an override leaves as it is (without calling `super`) is resolved as
    /// `NSMergeByPropertyObjectTrumpMergePolicy` does: the values the object holds when this returns, for
    /// the properties the context changed, are written over the store's current row.
    /// - Throws: 133020 (`NSManagedObjectMergeError`) as described.
    open func resolve(optimisticLockingConflicts list: [NSMergeConflict]) throws {
        switch mergeType {
        case .errorMergePolicyType:
            throw NSMergeConflict.error(list)
        case .mergeByPropertyObjectTrumpMergePolicyType, .mergeByPropertyStoreTrumpMergePolicyType:
            try NSMergeConflict.requireStoredRows(list)
            for conflict in list {
                try conflict.context?.mergeProperties(of: conflict, storeWins: mergeType == .mergeByPropertyStoreTrumpMergePolicyType)
            }
        case .overwriteMergePolicyType:
            try NSMergeConflict.requireStoredRows(list)
            for conflict in list { try conflict.context?.overwrite(conflict) }
        case .rollbackMergePolicyType:
            for conflict in list { try conflict.context?.rollBack(conflict) }
        }
    }

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

// Apple's global names of the built-in policies, read-only as Apple's SDK imports them (`{ get }`); each
// returns the one shared instance of its policy.

/// `NSMergePolicy.error` under Apple's global name: a save with conflicts fails (133020 or 133021) and writes
/// nothing. The default policy of a context.
public var NSErrorMergePolicy: Any { NSMergePolicy.error }
/// `NSMergePolicy.mergeByPropertyStoreTrump` under Apple's global name: per property, the store's changes win.
public var NSMergeByPropertyStoreTrumpMergePolicy: Any { NSMergePolicy.mergeByPropertyStoreTrump }
/// `NSMergePolicy.mergeByPropertyObjectTrump` under Apple's global name: per property, the context's changes win.
public var NSMergeByPropertyObjectTrumpMergePolicy: Any { NSMergePolicy.mergeByPropertyObjectTrump }
/// `NSMergePolicy.overwrite` under Apple's global name: the context's objects replace the store's.
public var NSOverwriteMergePolicy: Any { NSMergePolicy.overwrite }
/// `NSMergePolicy.rollback` under Apple's global name: the context's changes to conflicting objects are dropped.
public var NSRollbackMergePolicy: Any { NSMergePolicy.rollback }

/// One object that changed in the store since the context read it (Apple's class of the same name).
///
/// Snapshots hold every attribute and to-one relationship by name, as Apple's do: attribute values in the
/// form `value(forKey:)` returns, to-one destinations as `NSManagedObjectID`s, nil as `NSNull`; to-many
/// relationships are left out (read them from the store as needed).
open class NSMergeConflict: NSObject, @unchecked Sendable {
    /// The context's object.
    public let sourceObject: NSManagedObject
    /// The context's values of the object, as it holds them when the conflict is found.
    public let objectSnapshot: [String: Any]?
    /// The values the context read (the object's committed values), or nil when unknown.
    public let cachedSnapshot: [String: Any]?
    /// The store's current values; nil when the store deleted the object.
    public let persistedSnapshot: [String: Any]?
    /// The store's version of the object; 0 when the store deleted it.
    public let newVersionNumber: Int
    /// The version the context read.
    public let oldVersionNumber: Int

    /// The store's current row, for the built-in resolutions (nil when deleted, or for a conflict made by hand).
    let persistedRow: StoreRow?
    /// The store the conflict was found in.
    weak var store: NSPersistentStore?
    /// Set by the overwrite resolution: the next attempt writes every attribute and to-one of the object.
    var writesEveryProperty = false

    /// A conflict for `source` made by hand (Apple's initializer), with the object's current values as its
    /// `objectSnapshot`. Such a conflict carries no row read from the store (only conflicts a save finds do), so
    /// the built-in resolutions take no store values from it.
    public init(source: NSManagedObject, newVersion: Int, oldVersion: Int, cachedSnapshot: [String: Any]?, persistedSnapshot: [String: Any]?) {
        sourceObject = source
        objectSnapshot = source.snapshot(of: source.slots, objectValues: true)
        self.cachedSnapshot = cachedSnapshot
        self.persistedSnapshot = persistedSnapshot
        newVersionNumber = newVersion
        oldVersionNumber = oldVersion
        persistedRow = nil
        super.init()
    }

    /// The conflict a save found: `source` read at `oldVersion`, the store now holding `row` (nil: deleted).
    init(source: NSManagedObject, oldVersion: Int64, row: StoreRow?, store: NSPersistentStore) {
        sourceObject = source
        objectSnapshot = source.snapshot(of: source.slots, objectValues: true)
        cachedSnapshot = source.committed.map { source.snapshot(of: $0, objectValues: false) }
        persistedSnapshot = row.map { source.snapshot(of: $0.values, objectValues: false) }
        newVersionNumber = Int(row?.version ?? 0)
        oldVersionNumber = Int(oldVersion)
        persistedRow = row
        self.store = store
        super.init()
    }

    /// The context the source object belongs to.
    var context: NSManagedObjectContext? { sourceObject.managedObjectContext }

    /// The 133020 error of a save that leaves these conflicts, with them under "conflictList".
    static func error(_ conflicts: [NSMergeConflict]) -> NSError {
        let names = conflicts.map { $0.sourceObject.objectID.uriRepresentation().absoluteString }.joined(separator: ", ")
        return CoreDataError.make(NSManagedObjectMergeError,
                                  "Could not merge changes: \(conflicts.count) object(s) changed in the store since they were read (\(names)).",
                                  userInfo: ["conflictList": conflicts])
    }

    /// Throws 133020 for the whole list when the context updated an object the store has deleted: there is
    /// no row left to merge into or overwrite.
    static func requireStoredRows(_ conflicts: [NSMergeConflict]) throws {
        if conflicts.contains(where: { $0.persistedSnapshot == nil && !$0.sourceObject.deleted }) { throw error(conflicts) }
    }
}

extension NSManagedObject {
    /// Apple's snapshot form of a slot array (the object's own values, or a row of store values): every
    /// attribute and to-one by name, attributes as `value(forKey:)` gives them, to-ones as object IDs, nil as
    /// `NSNull`.
    func snapshot(of values: [Any?], objectValues: Bool) -> [String: Any] {
        var result: [String: Any] = [:]
        for slot in layout.storedSlots where slot < values.count {
            let property = layout.allProperties[slot]
            var value = values[slot]
            switch layout.slotKinds[slot] {
            case .toOne:
                if let target = value as? NSManagedObject {
                    value = target.objectID
                } else if let key = value as? ObjectKey, let store = assignedID?.persistentStore,
                          let entity = store.persistentStoreCoordinator?.managedObjectModel.entity(withNumber: key.entityNumber) {
                    value = store.objectID(for: key, entity: entity)
                }
            case .attribute(let type):
                if !objectValues, type == .transformableAttributeType, let context = managedObjectContext {
                    value = context.decodedStoreValue(value, type: type, slot: slot, of: self)
                }
                value = value.map { Self.publicForm($0, type) }
            case .toMany, .other:
                continue
            }
            result[property.name] = value ?? NSNull()
        }
        return result
    }
}
