/// Following the context: each `NSManagedObjectContextObjectsDidChange` updates the results and is reported to
/// the delegate as Apple's fetched results controller reports it.
///
/// - Deleted objects, and changed objects that no longer match, leave the results; inserted objects, and
///   changed objects that now match, enter them; the results are sorted again by the request's sort
///   descriptors (objects that sort equal keep their order) and cut to its `fetchLimit`.
/// - Reported, in this order: section deletions (index in the old results), section insertions (index in the
///   new results), object deletions (old index path), insertions (new index path), moves (old and new index
///   paths), updates (old and new index paths).
/// - A changed object that stays in the results is a move when its section changed or its order among the
///   objects that were in the results before and after changed; otherwise an update. Objects that only shift
///   because others came or went are not reported.
/// - After `reset()` of the context the request is fetched again and every old object is reported deleted,
///   every new one inserted. When objects that did not change themselves changed section or order (a section or
///   sort key path through a relationship whose destination changed), every old section and object is reported
///   deleted and every new one inserted, so that the reports still turn the old results into the new ones.
/// - Without a delegate nothing is followed, as on Apple's platforms: the results stay as fetched.
extension FetchedResultsCore {
    func contextObjectsDidChange(_ notification: Notification) {
        guard !isFetching, delegate != nil, let query, let info = notification.userInfo else { return }
        let inserted = Self.objects(info[NSInsertedObjectsKey])
        let changed = Self.objects(info[NSUpdatedObjectsKey]) + Self.objects(info[NSRefreshedObjectsKey])
        let deleted = Set(Self.objects(info[NSDeletedObjectsKey]).map(ObjectIdentifier.init))
        let changedIDs = Set(changed.map(ObjectIdentifier.init))

        let next: [NSManagedObject]
        if info[NSInvalidatedAllObjectsKey] != nil {
            next = (try? query.refetch()) ?? []
        } else {
            let ofEntity = { (object: NSManagedObject) in object.entity.isKindOf(entity: query.entity) }
            guard inserted.contains(where: ofEntity) || changed.contains(where: ofEntity)
                    || deleted.contains(where: { positions[$0] != nil }) else { return }
            next = updatedResults(inserted: inserted, changed: changed, changedIDs: changedIDs, deleted: deleted, query: query)
        }
        let oldSections = sections
        let oldPositions = positions
        install(next)
        let reloadAll = movedSilently(oldSections, oldPositions, changed: changedIDs)
        report(from: oldSections, oldPositions, changed: changedIDs, reloadAll: reloadAll)
    }

    /// After a save of the context, a delegate that takes differences gets one more when the save made the
    /// temporary IDs it was given permanent: the old ID removed and the new one inserted at the same place (developers
    /// report the same of Apple's controller; an app avoids it with `obtainPermanentIDs(for:)` before saving).
    func contextDidSave() {
        guard sectionNameKeyPath == nil, delegateTakesDifferences == true, let reported = reportedIDs, let delegate, let reporter else { return }
        let current = fetchedObjects.map(\.objectID)
        guard current != reported else { return }
        reportedIDs = current
        delegate.controller(reporter, didChangeContentWith: current.difference(from: reported).inferringMoves())
    }

    /// Whether an object that stayed in the results without changing itself now has another section, or
    /// another order among such objects.
    private func movedSilently(_ oldSections: [FetchedResultsSection], _ oldPositions: [ObjectIdentifier: (section: Int, row: Int)],
                               changed: Set<ObjectIdentifier>) -> Bool {
        let stayed = { (object: NSManagedObject) -> Bool in
            let id = ObjectIdentifier(object)
            return !changed.contains(id) && oldPositions[id] != nil && self.positions[id] != nil
        }
        let before = oldSections.flatMap(\.members).filter(stayed)
        let after = sections.flatMap(\.members).filter(stayed)
        guard before.elementsEqual(after, by: ===) else { return true }
        return after.contains { object in
            guard let old = oldPositions[ObjectIdentifier(object)], let new = positions[ObjectIdentifier(object)] else { return false }
            return oldSections[old.section].name != sections[new.section].name
        }
    }

    /// The results after the change: old objects still qualifying, plus new qualifying ones, sorted and limited.
    private func updatedResults(inserted: [NSManagedObject], changed: [NSManagedObject], changedIDs: Set<ObjectIdentifier>,
                                deleted: Set<ObjectIdentifier>, query: Query) -> [NSManagedObject] {
        var next: [NSManagedObject] = []
        var included = Set<ObjectIdentifier>()
        for object in fetchedObjects {
            let id = ObjectIdentifier(object)
            guard !deleted.contains(id), object.managedObjectContext === context, !object.isDeleted else { continue }
            if changedIDs.contains(id), !qualifies(object, query) { continue }
            next.append(object)
            included.insert(id)
        }
        for object in inserted + changed where !included.contains(ObjectIdentifier(object)) && qualifies(object, query) {
            next.append(object)
            included.insert(ObjectIdentifier(object))
        }
        next = query.sortDescriptors.sorting(next)
        if query.fetchLimit > 0, next.count > query.fetchLimit { next.removeLast(next.count - query.fetchLimit) }
        return next
    }

    /// Tells the delegate how the sections and objects went from the old results to the current ones.
    private func report(from oldSections: [FetchedResultsSection], _ reportedOldPositions: [ObjectIdentifier: (section: Int, row: Int)],
                        changed: Set<ObjectIdentifier>, reloadAll: Bool) {
        typealias ObjectChange = (object: NSManagedObject, from: IndexPath?, type: NSFetchedResultsChangeType, to: IndexPath?)
        // A whole reload reports every old section and object gone and every new one new.
        let oldPositions = reloadAll ? [:] : reportedOldPositions
        let oldNames = reloadAll ? [] : Set(oldSections.map(\.name))
        let newNames = reloadAll ? [] : Set(sections.map(\.name))
        var sectionChanges: [(section: FetchedResultsSection, index: Int, type: NSFetchedResultsChangeType)] = []
        for (index, section) in oldSections.enumerated() where !newNames.contains(section.name) { sectionChanges.append((section, index, .delete)) }
        for (index, section) in sections.enumerated() where !oldNames.contains(section.name) { sectionChanges.append((section, index, .insert)) }

        var deletions: [ObjectChange] = [], insertions: [ObjectChange] = [], moves: [ObjectChange] = [], updates: [ObjectChange] = []
        for (sectionIndex, section) in oldSections.enumerated() {
            for (row, object) in section.members.enumerated() where reloadAll || positions[ObjectIdentifier(object)] == nil {
                deletions.append((object, IndexPath(indexes: [sectionIndex, row]), .delete, nil))
            }
        }
        // Order among the objects in both the old and the new results decides whether a changed one moved.
        let oldRanks = Self.ranks(of: oldSections.flatMap(\.members).filter { positions[ObjectIdentifier($0)] != nil })
        let newRanks = Self.ranks(of: fetchedObjects.filter { oldPositions[ObjectIdentifier($0)] != nil })
        for (sectionIndex, section) in sections.enumerated() {
            for (row, object) in section.members.enumerated() {
                let id = ObjectIdentifier(object)
                let to = IndexPath(indexes: [sectionIndex, row])
                guard let old = oldPositions[id] else {
                    insertions.append((object, nil, .insert, to))
                    continue
                }
                guard changed.contains(id) else { continue }
                let from = IndexPath(indexes: [old.section, old.row])
                let sameSection = oldSections[old.section].name == section.name
                if sameSection && oldRanks[id] == newRanks[id] {
                    updates.append((object, from, .update, to))
                } else {
                    moves.append((object, from, .move, to))
                }
            }
        }
        let objectChanges = deletions + insertions + moves + updates
        guard !sectionChanges.isEmpty || !objectChanges.isEmpty, let delegate, let reporter else { return }
        if sectionNameKeyPath == nil, delegateTakesDifferences != false {
            delegateTakesDifferences = true
            let oldIDs = reportedIDs ?? oldSections.flatMap(\.members).map(\.objectID)
            let newIDs = fetchedObjects.map(\.objectID)
            delegate.controller(reporter, didChangeContentWith: Self.difference(from: oldIDs, to: newIDs, reloadAll: reloadAll))
            if delegateTakesDifferences == true {
                reportedIDs = newIDs
                return
            }
        }
        delegate.controllerWillChangeContent(reporter)
        for change in sectionChanges {
            delegate.controller(reporter, didChange: change.section, atSectionIndex: change.index, for: change.type)
        }
        for change in objectChanges {
            delegate.controller(reporter, didChange: change.object, at: change.from, for: change.type, newIndexPath: change.to)
        }
        delegate.controllerDidChangeContent(reporter)
    }

    /// The difference from the `oldIDs` of the results to their `newIDs`, moves inferred; for a whole reload,
    /// every old object removed and every new one inserted. An object whose temporary ID a save made permanent is
    /// a removal of the one and an insertion of the other.
    private static func difference(from oldIDs: [NSManagedObjectID], to newIDs: [NSManagedObjectID], reloadAll: Bool) -> CollectionDifference<NSManagedObjectID> {
        guard reloadAll else { return newIDs.difference(from: oldIDs).inferringMoves() }
        let changes = oldIDs.enumerated().map { CollectionDifference<NSManagedObjectID>.Change.remove(offset: $0.offset, element: $0.element, associatedWith: nil) }
            + newIDs.enumerated().map { .insert(offset: $0.offset, element: $0.element, associatedWith: nil) }
        // Distinct offsets on each side: always a valid difference.
        return CollectionDifference(changes) ?? newIDs.difference(from: oldIDs)
    }

    private static func ranks(of objects: [NSManagedObject]) -> [ObjectIdentifier: Int] {
        var ranks: [ObjectIdentifier: Int] = [:]
        for (rank, object) in objects.enumerated() { ranks[ObjectIdentifier(object)] = rank }
        return ranks
    }

    /// The managed objects of a notification value (a set, or an array of the objects).
    private static func objects(_ value: Any?) -> [NSManagedObject] {
        switch value {
        case let set as Set<NSManagedObject>: return Array(set)
        case let array as [NSManagedObject]: return array
        default: return []
        }
    }
}
