/// A store that reads one relationship of many objects, with the destinations' rows, in one go: an optional
/// refinement of the store contract, for speed only (`NSFetchRequest.relationshipKeyPathsForPrefetching`).
///
/// Contexts prefetch from every store. For a store whose backend does not adopt this protocol the coordinator
/// answers the same question with the core requirements (`relatedKeys(of:through:)` per object, or the owners'
/// rows for a to-one, then `rows(for:)` of the destinations), so users see the same objects from every store;
/// the prefetch conformance cases run on every store and so check that both roads agree.
public protocol RelationshipPrefetching: PersistentStoreBackend {
    /// The destinations of `relationship` for each of `keys` (objects of the relationship's entity or its
    /// subentities), with the destinations' rows.
    ///
    /// The store guarantees:
    /// - `destinations[key]` lists what `relationship` of `key` holds as last saved: for a to-many, the keys
    ///   `relatedKeys(of:through:)` would give (in the saved order when it is ordered); for a to-one, the one key
    ///   the owner's row holds. An owner with no destination, or whose row is gone, may be left out.
    /// - `rows` holds the current row of every destination listed, each once, as `rows(for:)` gives them; a
    ///   destination whose row is gone is left out of both.
    /// - The answer reads one state of the store, with a number of queries that does not grow with the number of
    ///   keys, except for chunks of as many keys as one query may take (SQLite binds at most 32766 values).
    ///
    /// - Throws: the store's read error (134070 or its own `NSCocoaErrorDomain` error); the fetch that prefetches
    ///   throws it.
    ///
    /// Conformance: `prefetch/to-one`, `prefetch/to-many`, `prefetch/many-to-many`, `prefetch/key-path-chain`,
    /// `prefetch/keeps-unsaved-changes` (they run on every store, so the coordinator's fallback must agree).
    func relatedRows(of keys: [ObjectKey], through relationship: NSRelationshipDescription) throws -> RelatedRows
}

/// What `RelationshipPrefetching.relatedRows(of:through:)` answers: each owner's destinations, and their rows.
public struct RelatedRows {
    /// The keys of each owner's destinations (one for a to-one), in order for an ordered to-many.
    public var destinations: [ObjectKey: [ObjectKey]]
    /// The rows of the destinations, each once.
    public var rows: [StoreRow]

    /// An answer listing `destinations` by owner, with the destinations' `rows`.
    public init(destinations: [ObjectKey: [ObjectKey]] = [:], rows: [StoreRow] = []) {
        self.destinations = destinations
        self.rows = rows
    }
}

extension PersistentStoreBackend {
    /// `RelationshipPrefetching.relatedRows(of:through:)` answered with the core requirements, with the same
    /// guarantees: for a to-many, `relatedKeys(of:through:)` of each owner; for a to-one, the key each owner's
    /// row (`rows(for:)`) holds in its slot of `model`'s layout; then `rows(for:)` of every destination. The
    /// coordinator's answer for stores whose backends do not adopt the protocol (it holds its lock throughout,
    /// so the answer reads one state of a store only this coordinator writes), and the atomic stores' own.
    /// - Throws: the first error of those calls.
    public func relatedRowsOneByOne(of keys: [ObjectKey], through relationship: NSRelationshipDescription,
                                    model: NSManagedObjectModel) throws -> RelatedRows {
        var answer = RelatedRows()
        var wanted: [ObjectKey] = []
        var listed = Set<ObjectKey>()
        func note(_ destinations: [ObjectKey], of owner: ObjectKey) {
            guard !destinations.isEmpty else { return }
            answer.destinations[owner] = destinations
            for destination in destinations where listed.insert(destination).inserted { wanted.append(destination) }
        }
        var owners = Set<ObjectKey>()
        let unique = keys.filter { owners.insert($0).inserted }
        if relationship.isToMany {
            for owner in unique { note(try relatedKeys(of: owner, through: relationship), of: owner) }
        } else {
            for row in try rows(for: unique) {
                guard let slot = model.entity(withNumber: row.key.entityNumber)?.layout.slotByName[relationship.name],
                      slot < row.values.count, let destination = row.values[slot] as? ObjectKey else { continue }
                note([destination], of: row.key)
            }
        }
        answer.rows = try rows(for: wanted)
        if answer.rows.count < listed.count {
            // Destinations whose rows are gone are left out of the lists too.
            let found = Set(answer.rows.map(\.key))
            answer.destinations = answer.destinations.compactMapValues { list in
                let kept = list.filter(found.contains)
                return kept.isEmpty ? nil : kept
            }
        }
        return answer
    }
}
