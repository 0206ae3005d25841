/// The record table of an atomic store: adding, removing and finding records, and putting back the records a
/// failed save or batch request changed.
extension AtomicStore {
    func insertRecord(_ record: AtomicRecord) {
        records[record.key] = record
        keysByEntity[record.key.entityNumber, default: []].insert(record.key.primaryKey)
        keyOrderedRecords[record.key.entityNumber] = nil
    }

    func removeRecord(_ key: ObjectKey) {
        records[key] = nil
        keysByEntity[key.entityNumber]?.remove(key.primaryKey)
        keyOrderedRecords[key.entityNumber] = nil
    }

    func record(for key: ObjectKey) -> AtomicRecord? { records[key] }

    /// The records of `entity`, and of its subentities when asked, in no particular order.
    func records(of entity: NSEntityDescription, includingSubentities: Bool) -> [AtomicRecord] {
        let numbers = entityNumbers(of: entity, includingSubentities: includingSubentities)
        let count = numbers.reduce(0) { $0 + (keysByEntity[$1]?.count ?? 0) }
        var result: [AtomicRecord] = []
        result.reserveCapacity(count)
        if count * 2 >= records.count {
            // Most records are wanted: one pass over them all costs less than a look-up for each.
            for record in records.values where numbers.contains(record.key.entityNumber) { result.append(record) }
            return result
        }
        for number in numbers {
            for primaryKey in keysByEntity[number] ?? [] {
                if let record = records[ObjectKey(entityNumber: number, primaryKey: primaryKey)] { result.append(record) }
            }
        }
        return result
    }

    /// The records of `entity`, and of its subentities when asked, in primary-key order (records of different
    /// entities with equal keys in the order `entityNumbers(of:includingSubentities:)` lists the entities).
    func recordsInKeyOrder(of entity: NSEntityDescription, includingSubentities: Bool) -> [AtomicRecord] {
        let numbers = entityNumbers(of: entity, includingSubentities: includingSubentities)
        guard numbers.count > 1 else { return recordsInKeyOrder(of: entity.entityNumber) }
        var merged = numbers.flatMap { recordsInKeyOrder(of: $0) }
        merged.sort { $0.key.primaryKey < $1.key.primaryKey }  // stable, and linear over runs already in order
        return merged
    }

    /// The records of the entity numbered `entityNumber` (not of its subentities) in key order: kept from the
    /// last call until a record of the entity is added or removed, so fetches between saves neither gather nor
    /// sort them again.
    func recordsInKeyOrder(of entityNumber: Int32) -> [AtomicRecord] {
        if let ordered = keyOrderedRecords[entityNumber] { return ordered }
        let ordered = (keysByEntity[entityNumber] ?? []).sorted().compactMap {
            records[ObjectKey(entityNumber: entityNumber, primaryKey: $0)]
        }
        keyOrderedRecords[entityNumber] = ordered
        return ordered
    }

    /// The entity number of `entity`, then those of all its subentities when asked.
    private func entityNumbers(of entity: NSEntityDescription, includingSubentities: Bool) -> [Int32] {
        var numbers = [entity.entityNumber]
        guard includingSubentities else { return numbers }
        var stack = entity.subentities
        while let entity = stack.popLast() {
            numbers.append(entity.entityNumber)
            stack.append(contentsOf: entity.subentities)
        }
        return numbers
    }

    /// Notes the record of `key` as it is now (or that there is none), before its first change in `undo`.
    func remember(_ key: ObjectKey, in undo: inout AtomicUndoLog) {
        if undo.records[key] == nil { undo.records[key] = .some(records[key]?.copy()) }
    }

    /// Puts back every record `undo` noted (removing the ones that did not exist) and the old metadata.
    func restore(_ undo: AtomicUndoLog) {
        for (key, old) in undo.records {
            removeRecord(key)
            if let old { insertRecord(old) }
        }
        if let metadata = undo.metadata { self.metadata = metadata }
    }

    /// Checks the uniqueness constraints of `changed` and writes the file; when either fails, puts back what
    /// `undo` noted, so the store is left as it was before the save or batch request.
    /// - Throws: 133021 when a uniqueness constraint fails; the file's write error.
    func commit(checkingUniquenessOf changed: [AtomicRecord], undo: AtomicUndoLog) throws {
        do {
            try checkUniqueness(of: changed)
            try writeFile()
        } catch {
            restore(undo)
            throw error
        }
    }

    /// Checks the changed records, already holding their new values, against the uniqueness constraints of
    /// their entities' trees (see `AtomicUniqueness`).
    /// - Throws: 133021 when two records of a tree would have the same constrained values.
    func checkUniqueness(of changed: [AtomicRecord]) throws {
        guard !changed.isEmpty else { return }
        try AtomicUniqueness.check(changed: changed) { root in records(of: root, includingSubentities: true) }
    }

    /// - Throws: 134030 when the store was added read-only.
    func checkWritable() throws {
        if openRequest.isReadOnly {
            throw CoreDataError.saveFailed("the store at \(openRequest.url?.path ?? "memory") was added read-only")
        }
    }
}

/// What a save or batch request changed in an atomic store, as it was before, so a failed one can be undone
/// (`AtomicStore.restore(_:)`).
struct AtomicUndoLog {
    /// Each changed record as it was before its first change (a copy), or nil when it did not exist.
    var records: [ObjectKey: AtomicRecord?] = [:]
    /// The metadata before the change replaced it; nil when it did not.
    var metadata: [String: Any]?
}
