/// One object held in memory by an atomic store.
final class AtomicRecord {
    let key: ObjectKey
    let entity: NSEntityDescription
    var version: Int64
    /// Values by slot, as in `StoreRow.values`.
    var values: [Any?]
    /// To-many destinations by slot.
    var toMany: [Int: [ObjectKey]]

    init(key: ObjectKey, entity: NSEntityDescription, version: Int64, values: [Any?], toMany: [Int: [ObjectKey]] = [:]) {
        self.key = key
        self.entity = entity
        self.version = version
        self.values = values
        self.toMany = toMany
    }

    func copy() -> AtomicRecord {
        AtomicRecord(key: key, entity: entity, version: version, values: values, toMany: toMany)
    }

    var row: StoreRow { StoreRow(key: key, version: version, values: values) }
}

/// A record seen by the predicate evaluator and sort comparator: attributes as values, relationships as
/// other row views.
public final class AtomicRowView: PredicateKeyValueReading, StoredObjectReference {
    /// The record seen; a fetch testing many records points one view at each in turn.
    var record: AtomicRecord
    unowned let store: AtomicStore

    init(record: AtomicRecord, store: AtomicStore) {
        self.record = record
        self.store = store
    }

    public var storedObjectKey: ObjectKey? { record.key }

    public func predicateValue(forKey key: String) -> Any? {
        let layout = record.entity.layout
        guard let slot = layout.slotByName[key], slot < layout.slotKinds.count else { return nil }
        switch layout.slotKinds[slot] {
        case .toMany:
            return (record.toMany[slot] ?? []).compactMap { store.record(for: $0).map { AtomicRowView(record: $0, store: store) } }
        case .toOne:
            guard slot < record.values.count, let target = record.values[slot] as? ObjectKey,
                  let targetRecord = store.record(for: target) else { return nil }
            return AtomicRowView(record: targetRecord, store: store)
        case .attribute, .other:
            return slot < record.values.count ? record.values[slot] : nil
        }
    }

    /// For a prepared predicate (`PreparedPredicate(_:slotOfKey:)`): the slot of each attribute of `layout`,
    /// whose value `predicateValue(forKey:)` gives as the record's slot holds it (nil past the end of the
    /// record's values); nil for relationships, other properties and unknown keys, which are read by name.
    static func attributeSlot(in layout: EntityLayout) -> (String) -> Int? {
        { key in
            guard let slot = layout.slotByName[key], slot < layout.slotKinds.count,
                  case .attribute = layout.slotKinds[slot] else { return nil }
            return slot
        }
    }
}
