/// The destinations of one to-many relationship of one object, in order, without duplicates.
final class ToManyStorage {
    private(set) var objects: [NSManagedObject]
    private var members: Set<ObjectIdentifier>
    /// The store's error when the saved destinations could not be read: the storage then holds only the
    /// objects added since, and a save that would write the relationship, or deletes its owner (whose delete
    /// rules walked it), throws this error instead of writing a partial relationship.
    private(set) var readFailure: Error?
    /// The destinations as last read from or written to the store (the baseline a save's merge policy
    /// compares against to find the context's additions and removals); nil when unknown, for a relationship
    /// set wholesale without being read, whose destinations are then written as they are.
    var original: Set<ObjectIdentifier>?

    /// A storage of `objects`, which are also its baseline (`original`) unless one is given.
    init(_ objects: [NSManagedObject] = [], original: Set<ObjectIdentifier>?? = .none) {
        var unique: [NSManagedObject] = []
        var members = Set<ObjectIdentifier>()
        for object in objects where members.insert(ObjectIdentifier(object)).inserted { unique.append(object) }
        self.objects = unique
        self.members = members
        self.original = original ?? members
    }

    /// Makes the current destinations the baseline, after a save wrote them.
    func markWritten() { original = members }

    /// An empty storage for destinations that could not be read, remembering why.
    convenience init(unreadBecause failure: Error) {
        self.init()
        readFailure = failure
    }

    var count: Int { objects.count }

    func contains(_ object: NSManagedObject) -> Bool { members.contains(ObjectIdentifier(object)) }

    /// Adds `object` at the end (or at `index`); returns false when it was already there.
    @discardableResult
    func insert(_ object: NSManagedObject, at index: Int? = nil) -> Bool {
        guard members.insert(ObjectIdentifier(object)).inserted else { return false }
        if let index, index >= 0, index <= objects.count { objects.insert(object, at: index) } else { objects.append(object) }
        return true
    }

    /// Removes `object`; returns false when it was not there.
    @discardableResult
    func remove(_ object: NSManagedObject) -> Bool {
        guard members.remove(ObjectIdentifier(object)) != nil else { return false }
        if let index = objects.firstIndex(where: { $0 === object }) { objects.remove(at: index) }
        return true
    }
}
