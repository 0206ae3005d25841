/// A context's table of updated objects (`NSManagedObjectContext.updatedSet`): each object at most once, with
/// its position in the table kept on the object (`NSManagedObject.updatedTableIndex`), so noting an update, asking
/// whether an object is listed and removing one are each a load and a comparison, with no hashing and no table
/// growth beyond an array's.
///
/// Guarantees: an object is listed at most once; `contains(_:)` is true exactly for the objects inserted and not
/// removed since the table was made (an object's stored position is only believed when the table holds that very
/// object there, so a position left over from another table, or from before the table was emptied, is harmless);
/// the table holds its objects strongly. Order: the order of first insertion, except that a removal moves the last
/// object into the removed one's place. Readers that need an order independent of the updates' (the save) sort.
struct UpdatedObjects {
    /// The listed objects; `objects[i].updatedTableIndex == i` for each.
    private(set) var objects: [NSManagedObject] = []

    /// Whether no object is listed.
    var isEmpty: Bool { objects.isEmpty }
    /// How many objects are listed.
    var count: Int { objects.count }
    /// The listed objects (the table's order, see above).
    var values: [NSManagedObject] { objects }

    /// Whether `object` is listed.
    func contains(_ object: NSManagedObject) -> Bool {
        let index = Int(object.updatedTableIndex)
        return index < objects.count && objects[index] === object
    }

    /// Lists `object` unless it is listed already.
    mutating func insert(_ object: NSManagedObject) {
        guard !contains(object) else { return }
        // A table of more than 2^32 objects (hundreds of gigabytes of objects) would store a truncated position,
        // which `contains(_:)` then does not believe: the object would be listed twice, never lost.
        object.updatedTableIndex = UInt32(truncatingIfNeeded: objects.count)
        objects.append(object)
    }

    /// Takes `object` out of the table if it is listed.
    mutating func remove(_ object: NSManagedObject) {
        guard contains(object) else { return }
        let index = Int(object.updatedTableIndex)
        let last = objects.removeLast()
        guard last !== object else { return }
        objects[index] = last
        last.updatedTableIndex = UInt32(truncatingIfNeeded: index)
    }

    /// Lists `object` when `listed` is true, takes it out otherwise.
    mutating func set(_ object: NSManagedObject, listed: Bool) {
        if listed { insert(object) } else { remove(object) }
    }
}
