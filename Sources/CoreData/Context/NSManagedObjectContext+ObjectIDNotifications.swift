/// The object-ID notifications Apple's contexts post beside the object ones: what a save wrote and what a merge
/// took in, as object IDs that any context or thread may use (the objects themselves belong to one context).
extension NSManagedObjectContext {
    /// Posted by a context after each save that changed something, after `didSaveObjectsNotification`. The
    /// object is the context; userInfo holds `Set<NSManagedObjectID>`s under `NSInsertedObjectIDsKey`,
    /// `NSUpdatedObjectIDsKey` and `NSDeletedObjectIDsKey` (permanent IDs, as the save assigned them; empty
    /// sets are left out) and the context under `NotificationKey.sourceContext`.
    public static let didSaveObjectIDsNotification = Notification.Name("NSManagedObjectContextDidSaveObjectIDsNotification")

    /// Posted by a context after it merged changes made elsewhere (`mergeChanges(fromContextDidSave:)`,
    /// `mergeChanges(fromRemoteContextSave:into:)`, automatic merges from its parent or coordinator) that named
    /// at least one object. The object is the merging context; userInfo holds the IDs it merged, as for
    /// `didSaveObjectIDsNotification`.
    public static let didMergeChangesObjectIDsNotification = Notification.Name("NSManagedObjectContextDidMergeChangesObjectIDsNotification")

    /// Posts `name` with the IDs, unless all three are empty.
    func postObjectIDs(_ name: Notification.Name, inserted: [NSManagedObjectID], updated: [NSManagedObjectID], deleted: [NSManagedObjectID]) {
        guard !inserted.isEmpty || !updated.isEmpty || !deleted.isEmpty else { return }
        postObjectIDs(name, inserted: Set(inserted), updated: Set(updated), deleted: Set(deleted))
    }

    /// Posts `name` with the sets of IDs (empty ones left out), unless all three are empty.
    func postObjectIDs(_ name: Notification.Name, inserted: Set<NSManagedObjectID>, updated: Set<NSManagedObjectID>,
                       deleted: Set<NSManagedObjectID>) {
        guard !inserted.isEmpty || !updated.isEmpty || !deleted.isEmpty else { return }
        var info: [AnyHashable: Any] = [NotificationKey.sourceContext.rawValue: self]
        if !inserted.isEmpty { info[NSInsertedObjectIDsKey] = inserted }
        if !updated.isEmpty { info[NSUpdatedObjectIDsKey] = updated }
        if !deleted.isEmpty { info[NSDeletedObjectIDsKey] = deleted }
        NotificationCenter.default.post(name: name, object: self, userInfo: info)
    }
}
