/// Writing an atomic store: its records as a snapshot (objects by names), and the whole file.
extension AtomicStore {
    /// The whole store as a snapshot, by names: objects in entity and key order, and the high-water marks.
    public func snapshot() -> AtomicStoreSnapshot {
        var objects: [AtomicStoreSnapshot.Object] = []
        objects.reserveCapacity(records.count)
        for record in records.values.sorted(by: { ($0.key.entityNumber, $0.key.primaryKey) < ($1.key.entityNumber, $1.key.primaryKey) }) {
            if let object = snapshotObject(of: record) { objects.append(object) }
        }
        var highWaterByName: [String: Int64] = [:]
        for (number, value) in highWater {
            if let name = openRequest.model.entity(withNumber: number)?.name { highWaterByName[name] = value }
        }
        return AtomicStoreSnapshot(metadata: metadata, objects: objects, primaryKeyHighWater: highWaterByName)
    }

    /// Writes the whole store to its file, at `fileURL`, through `AtomicFileReplacement` (nothing for a store
    /// without a file).
    func writeFile() throws {
        guard let url = fileURL else { return }
        let snapshot = snapshot()
        try AtomicFileReplacement.replace(url) { temporary in try writeSnapshot(snapshot, to: temporary) }
    }

    /// One record by names: attributes (composites as flattened leaves), to-one and to-many destinations;
    /// nil for a record whose entity the model no longer names.
    private func snapshotObject(of record: AtomicRecord) -> AtomicStoreSnapshot.Object? {
        guard let own = reference(to: record.key) else { return nil }
        var object = AtomicStoreSnapshot.Object(reference: own, version: record.version)
        let layout = record.entity.layout
        for slot in layout.storedSlots {
            let property = layout.allProperties[slot]
            guard let value = record.values[slot] else { continue }
            if let composite = property as? NSCompositeAttributeDescription {
                for (path, leafValue) in CompositeAttributeValue.flattenedLeaves(of: value, composite: composite) {
                    object.attributes[path] = leafValue
                }
            } else if property is NSAttributeDescription {
                object.attributes[property.name] = value
            } else if let target = value as? ObjectKey, let targetReference = reference(to: target) {
                object.toOne[property.name] = targetReference
            }
        }
        for (slot, keys) in record.toMany {
            object.toMany[layout.allProperties[slot].name] = keys.compactMap(reference(to:))
        }
        return object
    }

    /// The reference to the object of `key` by its entity's name.
    private func reference(to key: ObjectKey) -> AtomicStoreSnapshot.Reference? {
        openRequest.model.entity(withNumber: key.entityNumber).flatMap { entity in
            entity.name.map { AtomicStoreSnapshot.Reference(entityName: $0, primaryKey: key.primaryKey) }
        }
    }
}
