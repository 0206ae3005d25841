// Part of ScratchStore (see ScratchStore.swift): what the kit's in-memory predicate evaluator and sorter
// (`InMemoryQuery`) read of a stored object.
import CoreData

/// A stored object as `InMemoryQuery` sees it: attributes as their values, relationships as other views, and
/// its key for comparisons with object IDs and managed objects.
final class ScratchRowView: PredicateKeyValueReading, StoredObjectReference {
    let key: ObjectKey
    let object: ScratchObject
    /// The store's objects when the view was made, to follow relationships.
    private let contents: ScratchContents

    init(key: ObjectKey, object: ScratchObject, contents: ScratchContents) {
        self.key = key
        self.object = object
        self.contents = contents
    }

    var row: StoreRow { object.row(key) }

    var storedObjectKey: ObjectKey? { key }

    /// An attribute's value, a to-one relationship's destination as a view, a to-many's as an array of views;
    /// nil for a key the entity does not have.
    func predicateValue(forKey name: String) -> Any? {
        let layout = object.entity.layout
        guard let slot = layout.slotByName[name] else { return nil }
        switch layout.slotKinds[slot] {
        case .toOne:
            return (object.value(named: name) as? ObjectKey).flatMap { contents.view(of: $0) }
        case .toMany:
            return (object.toMany[name] ?? []).compactMap { contents.view(of: $0) }
        case .attribute, .other:
            return object.value(named: name)
        }
    }
}
