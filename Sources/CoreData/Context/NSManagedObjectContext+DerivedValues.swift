/// Derived attributes after a save: the values the store computed reach the context's objects.
extension NSManagedObjectContext {
    /// Gives the objects of `store` the derived attribute values it computed in a save (by key and attribute
    /// name), as Apple's context refreshes the objects its SQLite triggers report.
    ///
    /// A filled object takes each value as its current and committed value; a fault holding the row of a fetch
    /// forgets that row, so it reads the new one when it fires; other faults read the store anyway.
    /// - Returns: the objects whose derived values changed, registered as faults when the context did not have
    ///   them (a book whose page was inserted), so the save notification lists them as updated and contexts that
    ///   merge it refresh them. Objects the save itself inserted or updated are included too (the caller
    ///   leaves them out of the notification's extra objects).
    func applyDerivedValues(_ values: [ObjectKey: [String: Any?]], from store: NSPersistentStore) -> [NSManagedObject] {
        var changed: [NSManagedObject] = []
        for (key, attributes) in values.sorted(by: { ($0.key.entityNumber, $0.key.primaryKey) < ($1.key.entityNumber, $1.key.primaryKey) }) {
            guard let id = store.objectID(for: key) else { continue }
            let object = registeredObject(for: id) ?? self.object(with: id)
            changed.append(object)
            if object.faulted {
                object.dropSnapshot()
                continue
            }
            for (name, value) in attributes {
                guard let slot = object.layout.slotByName[name], slot < object.slots.count else { continue }
                object.slots[slot] = value
                if var committed = object.committed, slot < committed.count {
                    committed[slot] = value
                    object.committed = committed
                }
            }
        }
        return changed
    }
}
