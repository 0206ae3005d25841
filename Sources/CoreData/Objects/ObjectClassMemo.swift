/// The classes that objects of each entity are made with while materializing many rows, looked up in the
/// class registry once per entity rather than once per row.
struct ObjectClassMemo {
    /// The class of a typed fetch, used for subentities with no class of their own.
    let fallback: NSManagedObject.Type?
    private var last: (entity: ObjectIdentifier, objectClass: NSManagedObject.Type, noted: Bool)?

    init(fallback: NSManagedObject.Type?) { self.fallback = fallback }

    /// A new object of the entity's class, outside any context (as `NSManagedObjectContext.makeObject`).
    mutating func makeObject(entity: NSEntityDescription) -> NSManagedObject {
        let registry = ManagedObjectClassRegistry.shared
        if let last, last.entity == ObjectIdentifier(entity) {
            return registry.make(last.objectClass, entity: entity, noted: last.noted)
        }
        let (objectClass, noted) = registry.classForMaking(entity, fallback: fallback)
        // A class not noted yet is noted by the first object made; the next row asks the registry again.
        last = noted ? (ObjectIdentifier(entity), objectClass, noted) : nil
        return registry.make(objectClass, entity: entity, noted: noted)
    }
}
