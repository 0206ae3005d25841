//
//  CounterSumMergePolicy.swift
//  Journal
//
//  A merge policy subclass: counters with one name are merged by adding their values.
//

import CoreData

public final class CounterSumMergePolicy: NSMergePolicy {
    public init() {
        super.init(merge: .mergeByPropertyObjectTrumpMergePolicyType)
    }

    override public func resolve(constraintConflicts list: [NSConstraintConflict]) throws {
        for conflict in list {
            guard let stored = conflict.databaseObject as? Counter else { continue }
            for case let counter as Counter in conflict.conflictingObjects {
                counter.value += stored.value
            }
        }
        try super.resolve(constraintConflicts: list)
    }
}

/// Adds `amount` to the counter `name` in a new background context that knows nothing of other counters,
/// and saves with `CounterSumMergePolicy`.
public func addToCounter(_ name: String, _ amount: Int64, in container: NSPersistentContainer) throws {
    let context = container.newBackgroundContext()
    context.mergePolicy = CounterSumMergePolicy()
    try context.performAndWait {
        let counter = Counter(context: context)
        counter.name = name
        counter.value = amount
        try context.save()
    }
}
