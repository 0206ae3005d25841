/// The relationships a fetch prefetches (`NSFetchRequest.relationshipKeyPathsForPrefetching`), checked against
/// the model and arranged as a tree: each step names a relationship of the objects the step before reached (the
/// fetched objects, for the first steps) and lists the steps that go on from its destinations, so `"owner"` and
/// `"owner.chapters"` read `owner` once.
///
/// A key path's keys may name relationships of the entity or of any of its subentities (a fetch includes
/// subentities), as predicate key paths may; objects whose entity lacks the relationship are passed over.
struct RelationshipPrefetchPlan: Sendable {
    /// One relationship to prefetch, by name, and what to prefetch from its destinations.
    struct Step: Sendable {
        let name: String
        var next: [Step] = []
    }

    /// The steps from the fetched objects.
    private(set) var steps: [Step] = []
    /// Whether destinations not registered yet become faults holding their rows (the request's
    /// `returnsObjectsAsFaults`) rather than filled objects.
    let asFaults: Bool
    /// Whether registered destinations without unsaved changes take the rows read (the request's
    /// `shouldRefreshRefetchedObjects`).
    let refreshes: Bool

    /// The plan for `keyPaths` from objects of `entity`, for a request returning faults or not.
    /// - Throws: 2048 (`NSFormattingError`, as for an unknown key path in a predicate) naming the key path, under
    ///   `PredicateFormatError.keyKey`, and the entity, when a key is empty or names no relationship (an attribute,
    ///   or nothing) of the entity it is read on or its subentities. Apple raises `NSInvalidArgumentException`.
    init(keyPaths: [String], entity: NSEntityDescription, asFaults: Bool, refreshes: Bool) throws {
        self.asFaults = asFaults
        self.refreshes = refreshes
        for keyPath in keyPaths {
            let names = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            var entities = [entity]
            for name in names {
                entities = try Self.destinations(of: name, in: entities, keyPath: keyPath)
            }
            Self.insert(names[...], into: &steps)
        }
    }

    /// The destination entities of the relationships named `name` of `entities` (or their subentities).
    /// - Throws: 2048 when none of them has such a relationship.
    private static func destinations(of name: String, in entities: [NSEntityDescription], keyPath: String) throws -> [NSEntityDescription] {
        var found: [NSEntityDescription] = []
        var other: NSPropertyDescription?
        var stack = entities
        while let entity = stack.popLast() {
            if let relationship = entity.relationshipsByName[name] {
                if let destination = relationship.destinationEntity, !found.contains(where: { $0 === destination }) { found.append(destination) }
            } else if let property = entity.propertiesByName[name] {
                other = other ?? property
            }
            stack += entity.subentities
        }
        guard found.isEmpty else { return found }
        let entityName = entities.first?.name ?? "?"
        let problem = other.map { "\"\(name)\" is \($0 is NSAttributeDescription ? "an attribute" : "a property") of \(entityName), not a relationship" }
            ?? (name.isEmpty ? "it has an empty key where a relationship of \(entityName) should be" : "entity \(entityName) has no relationship \"\(name)\"")
        throw CoreDataError.make(PredicateFormatError.code,
                                 "The relationship key path \"\(keyPath)\" to prefetch cannot be followed: \(problem).",
                                 userInfo: [PredicateFormatError.keyKey: keyPath])
    }

    /// Adds the path `names` to the tree `steps`, sharing the steps it has in common with paths added before.
    private static func insert(_ names: ArraySlice<String>, into steps: inout [Step]) {
        guard let name = names.first else { return }
        if let index = steps.firstIndex(where: { $0.name == name }) {
            insert(names.dropFirst(), into: &steps[index].next)
        } else {
            var step = Step(name: name)
            insert(names.dropFirst(), into: &step.next)
            steps.append(step)
        }
    }
}
