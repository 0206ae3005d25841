/// Derived attributes in atomic stores: computed in memory at every save and batch request, from the records as
/// it leaves them, so they hold what Apple's SQLite triggers would have written (see Decisions.md, "Derived
/// attributes").
extension AtomicStore {
    /// Sets each derived attribute of every record to its value now, and returns the values that changed by
    /// object and attribute name.
    ///
    /// `now()` is set only on the records in `written` (inserted or updated by the save or batch request), to
    /// `savedAt`; every
    /// other derivation is recomputed for every record of its entity (and subentities), so a change anywhere
    /// (a page moved to another book, an author renamed) reaches the objects that derive from it. `remember` is
    /// called with a record's key before the record is changed, so a failed save can put it back.
    func computeDerivedValues(written: Set<ObjectKey>, savedAt: Date, remember: (ObjectKey) -> Void) -> [ObjectKey: [String: Any?]] {
        guard !derivations.isEmpty else { return [:] }
        var changed: [ObjectKey: [String: Any?]] = [:]
        for (attribute, derivation) in derivations {
            guard let entity = attribute.entity else { continue }
            for record in records(of: entity, includingSubentities: true) {
                if derivation == .now, !written.contains(record.key) { continue }
                guard let slot = record.entity.layout.slotByName[attribute.name] else { continue }
                let value = derivation.value(of: AtomicRowView(record: record, store: self), for: attribute, savedAt: savedAt)
                if StoredValueEquality.equal(record.values[slot], value) && !written.contains(record.key) { continue }
                remember(record.key)
                record.values[slot] = value
                changed[record.key, default: [:]][attribute.name] = .some(value)
            }
        }
        return changed
    }
}

/// Equality of two stored attribute values, for telling whether a derived value changed.
enum StoredValueEquality {
    static func equal(_ lhs: Any?, _ rhs: Any?) -> Bool {
        switch (lhs, rhs) {
        case (nil, nil): return true
        case (nil, _), (_, nil): return false
        case let (l as AnyHashable, r as AnyHashable): return l == r
        default: return false
        }
    }
}
