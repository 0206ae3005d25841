/// Taking in changes made elsewhere: other contexts' saves and batch requests.
extension NSManagedObjectContext {
    /// Applies changes saved by another context or made by a batch request to these contexts: deleted objects
    /// leave them, updated objects are reloaded (keeping their unsaved changes), inserted objects are registered
    /// as faults. `changeNotificationData` maps `NSInsertedObjectsKey`, `NSUpdatedObjectsKey` and
    /// `NSDeletedObjectsKey` to object IDs (arrays or sets) or to URIs of object IDs. Each context posts
    /// `NSManagedObjectContextObjectsDidChange` for what the merge changed. A context pinned to a query
    /// generation moves to the newest one first, so the objects it reloads read the merged changes.
    public class func mergeChanges(fromRemoteContextSave changeNotificationData: [AnyHashable: Any], into contexts: [NSManagedObjectContext]) {
        mergeChanges(fromRemoteContextSave: changeNotificationData, into: contexts, savedThroughCoordinator: false)
    }

    /// `mergeChanges(fromRemoteContextSave:into:)`, told whether the changes were saved through the contexts'
    /// coordinator, whose row cache then already holds the saved rows; otherwise the cache forgets the rows of
    /// the changed objects, so their faults read the store.
    class func mergeChanges(fromRemoteContextSave changeNotificationData: [AnyHashable: Any], into contexts: [NSManagedObjectContext],
                            savedThroughCoordinator: Bool) {
        for context in contexts {
            context.performAndWait {
                context.advanceQueryGeneration()  // a pinned context reads the merged changes at the newest generation
                // Objects, IDs or URIs under Apple's keys, or IDs under the `…ObjectIDs` keys (a remote-change
                // notification's, or a history transaction's `objectIDNotification()`).
                context.mergeIDs(
                    inserted: context.objectIDs(in: changeNotificationData[NSInsertedObjectsKey]) + context.objectIDs(in: changeNotificationData[NSInsertedObjectIDsKey]),
                    updated: context.objectIDs(in: changeNotificationData[NSUpdatedObjectsKey]) + context.objectIDs(in: changeNotificationData[NSUpdatedObjectIDsKey]),
                    deleted: context.objectIDs(in: changeNotificationData[NSDeletedObjectsKey]) + context.objectIDs(in: changeNotificationData[NSDeletedObjectIDsKey]),
                    savedThroughCoordinator: savedThroughCoordinator)
            }
        }
    }

    /// Applies the changes of another context's save notification to this context (as
    /// `mergeChanges(fromRemoteContextSave:into:)` does), then processes pending changes, so
    /// `NSManagedObjectContextObjectsDidChange` reports the merged objects at once. A context pinned to a query
    /// generation moves to the newest one first, so the objects it reloads read the merged changes.
    public func mergeChanges(fromContextDidSave notification: Notification) {
        guard let info = notification.userInfo, (notification.object as? NSManagedObjectContext) !== self else { return }
        let source = notification.object as? NSManagedObjectContext
        advanceQueryGeneration()  // a pinned context reads the merged changes at the newest generation
        // Objects (a context's save) or object IDs (a history transaction's `objectIDNotification()`).
        mergeIDs(inserted: objectIDs(in: info[NSInsertedObjectsKey]) + objectIDs(in: info[NSInsertedObjectIDsKey]),
                 updated: objectIDs(in: info[NSUpdatedObjectsKey]) + objectIDs(in: info[NSUpdatedObjectIDsKey]),
                 deleted: objectIDs(in: info[NSDeletedObjectsKey]) + objectIDs(in: info[NSDeletedObjectIDsKey]),
                 savedThroughCoordinator: source.map { $0.parent == nil && $0.persistentStoreCoordinator === persistentStoreCoordinator } ?? false)
        processPendingChanges()
    }

    private func objectIDs(in value: Any?) -> [NSManagedObjectID] {
        let items: [Any]
        switch value {
        case let array as [Any]: items = array
        case let set as Set<NSManagedObject>: items = Array(set)
        case let set as Set<NSManagedObjectID>: items = Array(set)
        case let set as NSSet: items = set.allObjects
        default: items = []
        }
        return items.compactMap { item in
            switch item {
            case let id as NSManagedObjectID: return id
            case let object as NSManagedObject: return object.assignedID
            case let url as URL: return persistentStoreCoordinator?.managedObjectID(forURIRepresentation: url)
            default: return nil
            }
        }
    }

    /// Takes in another context's changes: deleted objects leave (reported as deleted), updated registered
    /// objects are refreshed (reported as refreshed), inserted objects with permanent IDs are registered as
    /// faults (reported as inserted; a temporary ID of another context names nothing here). Unless the changes
    /// were saved through this context's coordinator, the coordinator's row cache first forgets the rows of the
    /// updated and deleted objects, which it cannot know.
    private func mergeIDs(inserted: [NSManagedObjectID], updated: [NSManagedObjectID], deleted: [NSManagedObjectID],
                          savedThroughCoordinator: Bool) {
        if !savedThroughCoordinator { persistentStoreCoordinator?.forgetCachedRows(of: updated + deleted) }
        // Merged changes are not the context's own: they are not registered for undo (see Decisions, "Undo").
        undoRecorder?.suspensions += 1
        defer { undoRecorder?.suspensions -= 1 }
        undoRecorder?.savedStateChanged()
        var gone = Set<ObjectIdentifier>()
        var goneKeys = Set<ObjectKey>()
        for id in deleted {
            // A row deleted elsewhere is forgotten by every fetched row and loaded object here, whether or not
            // its object is registered (a context lets go of objects nothing holds).
            if let key = id.key { goneKeys.insert(key) }
            guard let object = registered[id.identity] else { continue }
            notePending(object, .deleted)
            registered.remove(id.identity)
            updatedSet.remove(object)
            deletedSet[ObjectIdentifier(object)] = nil
            object.deleted = false
            object.managedObjectContext = nil
            gone.insert(ObjectIdentifier(object))
        }
        if !gone.isEmpty || !goneKeys.isEmpty { forgetReferences(to: gone, keys: goneKeys) }
        for id in updated {
            guard let object = registered[id.identity] else { continue }
            if object.faulted {
                object.dropSnapshot()  // the values its fetch read are out of date
                notePending(object, .refreshed)
            } else {
                refresh(object, mergeChanges: object.hasChanges)
            }
        }
        for id in inserted where !id.isTemporaryID && registered[id.identity] == nil {
            notePending(object(with: id), .inserted)
        }
        postObjectIDs(Self.didMergeChangesObjectIDsNotification, inserted: inserted.filter { !$0.isTemporaryID }, updated: updated, deleted: deleted)
    }

    /// Removes deleted objects from the relationships of the context's loaded objects, as their store already
    /// did, without recording changes: nothing in the context may point at an object that no longer exists,
    /// and neither may the fetched row a fault holds.
    private func forgetReferences(to gone: Set<ObjectIdentifier>, keys: Set<ObjectKey>) {
        for object in allObjects {
            object.forgetSnapshotReferences(to: keys)
            guard !object.faulted else { continue }
            for slot in object.layout.storedSlots + object.layout.toManySlots {
                switch object.slots[slot] {
                case let target as NSManagedObject where gone.contains(ObjectIdentifier(target)):
                    object.slots[slot] = nil
                case let key as ObjectKey where keys.contains(key):
                    object.slots[slot] = nil
                case let storage as ToManyStorage:
                    for target in storage.objects where gone.contains(ObjectIdentifier(target)) { storage.remove(target) }
                default:
                    continue
                }
                if !object.changedSlots.contains(slot), var committed = object.committed, slot < committed.count,
                   case .toOne = object.layout.slotKinds[slot] {
                    committed[slot] = nil
                    object.committed = committed
                }
            }
        }
    }

    /// Whether this context's automatic merging takes in `source`'s saves: a child merges what its parent
    /// saves; a root context merges what other root contexts of its coordinator save to the stores (a child's
    /// save only reaches its parent, so it is not merged elsewhere).
    private func mergesSaves(of source: NSManagedObjectContext) -> Bool {
        if let parent { return parent === source }
        return source.parent == nil && source.persistentStoreCoordinator === persistentStoreCoordinator
    }

    /// Starts or stops merging the saves of the parent context, or of other contexts of the same coordinator,
    /// and for a root context the remote changes its coordinator posts with object IDs.
    func updateAutomaticMerging() {
        for observer in mergeObservers { NotificationCenter.default.removeObserver(observer) }
        mergeObservers = []
        guard automaticallyMergesChangesFromParent else { return }
        mergeObservers.append(mergeOtherContextsSaves())
        mergeObservers.append(mergeRemoteChanges())
    }

    /// Observes the saves `mergesSaves(of:)` takes in and merges them on the context's queue.
    private func mergeOtherContextsSaves() -> NSObjectProtocol {
        NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSave, object: nil, queue: nil) { [weak self] notification in
            guard let self, let source = notification.object as? NSManagedObjectContext, source !== self,
                  self.mergesSaves(of: source) else { return }
            let info = notification.userInfo ?? [:]
            let ids: [AnyHashable: Any] = [
                NSInsertedObjectsKey: (info[NSInsertedObjectsKey] as? Set<NSManagedObject> ?? []).compactMap(\.assignedID),
                NSUpdatedObjectsKey: (info[NSUpdatedObjectsKey] as? Set<NSManagedObject> ?? []).compactMap(\.assignedID),
                NSDeletedObjectsKey: (info[NSDeletedObjectsKey] as? Set<NSManagedObject> ?? []).compactMap(\.assignedID),
            ]
            let saved = source.parent == nil && source.persistentStoreCoordinator === self.persistentStoreCoordinator
            self.perform { NSManagedObjectContext.mergeChanges(fromRemoteContextSave: ids, into: [self], savedThroughCoordinator: saved) }
        }
    }

    /// Observes `NSPersistentStoreRemoteChange` from the context's coordinator and, for a root context, merges
    /// the object IDs it carries (only stores that name the changed objects put them there; see
    /// Decisions.md, "The PostgreSQL store"). A notification without IDs changes nothing, as on Apple's
    /// platforms, where remote changes are merged from persistent history by the app.
    private func mergeRemoteChanges() -> NSObjectProtocol {
        NotificationCenter.default.addObserver(forName: .NSPersistentStoreRemoteChange, object: nil, queue: nil) { [weak self] notification in
            guard let self, self.parent == nil, let coordinator = notification.object as? NSPersistentStoreCoordinator,
                  coordinator === self.persistentStoreCoordinator, let info = notification.userInfo,
                  info[NSInsertedObjectIDsKey] != nil || info[NSUpdatedObjectIDsKey] != nil || info[NSDeletedObjectIDsKey] != nil else { return }
            self.perform { NSManagedObjectContext.mergeChanges(fromRemoteContextSave: info, into: [self]) }
        }
    }
}
