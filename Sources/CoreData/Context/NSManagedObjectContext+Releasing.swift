/// Letting go of registered objects that nothing else holds (Apple's `retainsRegisteredObjects = false`, the
/// default): memory follows the objects alive.
///
/// The registration table holds its objects strongly, as the context's other tables do, and the context
/// drops, now and then, every entry whose object only the table holds: `isKnownUniquelyReferenced` is exact
/// and costs no weak reference (a weak reference would give every object a side table, 32 bytes, and make
/// each of its retains take the runtime's slow path). Guarantees:
///
/// - An object with unsaved changes (inserted, updated or deleted) is never dropped: the context's change
///   tables hold it. An object that another object's relationship holds, a fetched results controller's
///   results, a change notification, a child context's save or a caller holds is not dropped either.
/// - With `retainsRegisteredObjects` true nothing is dropped.
/// - A dropped object is gone from `registeredObjects` and `registeredObject(for:)`; `object(with:)` and
///   fetches then make a new object for its ID, a fault that reads the saved values.
/// - Dropping happens where Apple's autorelease pools drain: at the end of the outermost `perform` or
///   `performAndWait` block, and for a main-queue context changed on the main queue outside its blocks, when
///   the main queue's current event ends; then only when the table holds at most 1,024 objects, or when the
///   objects registered since the last sweep and those that left the change tables since (saved, rolled back)
///   are more than an eighth of the table, so each sweep (one pass over the table) is paid for by them. It always happens in
///   `refreshAllObjects()` and when `registeredObjects` is read. A fetch sweeps too once the table has
///   doubled (and holds over 1,024 objects), so fetching in a loop inside one block stays bounded.
///   Merging, saving and `processPendingChanges()` never drop anything, and an object named by the change
///   notification that the end of the event posts stays until the next event ends (the notification holds
///   it, as Apple's autoreleased notifications do): an object a merge registers can be found after the merge.
extension NSManagedObjectContext {
    /// When a sweep for unreferenced objects runs.
    enum ReleaseOccasion {
        /// The end of an event (the outermost block): when the table is small, or the objects registered or
        /// released from the change tables since the last sweep are more than an eighth of it.
        case eventEnded
        /// A fetch: when the table has doubled since the last sweep and holds over 1,024 objects.
        case fetching
        /// Always.
        case always
    }

    /// Drops the registered objects that only the registration table holds and that have no unsaved change,
    /// when `occasion` calls for a sweep.
    func releaseUnreferencedObjects(_ occasion: ReleaseOccasion) {
        if registered.count < registeredAfterSweep { registeredAfterSweep = registered.count }
        guard !retainsRegisteredObjects, !registered.isEmpty else { return }
        switch occasion {
        case .eventEnded:
            let candidates = registered.count - registeredAfterSweep + leftChangesSinceSweep
            guard registered.count <= 1_024 || candidates > registeredAfterSweep / 8 else { return }
        case .fetching: guard registered.count > 1_024, registered.count >= 2 * registeredAfterSweep else { return }
        case .always: break
        }
        let released = registered.removeUnreferenced { object in
            !object.inserted && !object.deleted && object.changedSlots.isEmpty
        }
        for object in released { object.managedObjectContext = nil }
        registeredAfterSweep = registered.count
        leftChangesSinceSweep = 0
    }
}
