import Synchronization

/// What materializing many rows of one store looks up once rather than once per row: the entity of the
/// rows' entity number, and the class that objects of that entity are made with (from the class registry).
struct MaterializationMemo {
    /// The store the rows come from.
    let store: NSPersistentStore
    /// The class of a typed fetch, used for subentities with no class of their own.
    let fallback: NSManagedObject.Type?
    private var lastEntity: (number: Int32, entity: NSEntityDescription)?
    private var lastClass: (entity: ObjectIdentifier, objectClass: NSManagedObject.Type, noted: Bool, layout: EntityLayout)?

    init(store: NSPersistentStore, fallback: NSManagedObject.Type?) {
        self.store = store
        self.fallback = fallback
    }

    /// The ID of a row's key, or nil when the store's model has no entity of that number (as
    /// `NSPersistentStore.objectID(for:)`).
    mutating func objectID(for key: ObjectKey) -> NSManagedObjectID? {
        entity(for: key).map { store.objectID(for: key, entity: $0) }
    }

    /// The entity of a row's key, or nil when the store's model has no entity of that number.
    mutating func entity(for key: ObjectKey) -> NSEntityDescription? {
        if let lastEntity, lastEntity.number == key.entityNumber { return lastEntity.entity }
        guard let entity = store.persistentStoreCoordinator?.managedObjectModel.entity(withNumber: key.entityNumber) else { return nil }
        lastEntity = (key.entityNumber, entity)
        return entity
    }

    /// A new object of the entity of a row's key, outside any context (as `makeObject(entity:)`), or nil when the
    /// store's model has no entity of that number.
    ///
    /// The entity is looked up and handed to the object's initializer here, from the memo's own reference, so a
    /// fetch retains it once per object (the reference the object keeps) and never releases it. Entities are
    /// weakly referenced by their properties, so each retain and release of one takes the runtime's slow path;
    /// returning the entity to the caller and passing it on cost two more retains and two releases per object.
    mutating func makeObject(for key: ObjectKey) -> NSManagedObject? {
        if lastEntity?.number != key.entityNumber {
            guard let entity = store.persistentStoreCoordinator?.managedObjectModel.entity(withNumber: key.entityNumber) else { return nil }
            lastEntity = (key.entityNumber, entity)
        }
        // `lastEntity` holds the entity until the memo changes entity, after this call: it is lent, not retained.
        let lent = Unmanaged.passUnretained(lastEntity.unsafelyUnwrapped.entity)
        return lent._withUnsafeGuaranteedRef { makeObject(entity: $0) }
    }

    /// A new object of the entity's class, outside any context (as `NSManagedObjectContext.makeObject`).
    ///
    /// When the entity's layout already records the class as noted (`EntityLayout.notedObjectClass`), the object's
    /// initializer notes it with one atomic load, so the object is made directly, without the registry's per-thread
    /// marker (`ManagedObjectClassRegistry.make`), which costs a thread-local look-up per object.
    mutating func makeObject(entity: NSEntityDescription) -> NSManagedObject {
        let registry = ManagedObjectClassRegistry.shared
        if let lastClass, lastClass.entity == ObjectIdentifier(entity) {
            if lastClass.layout.notedObjectClass.load(ordering: .acquiring) == UInt(bitPattern: ObjectIdentifier(lastClass.objectClass)) {
                return lastClass.objectClass.init(instantiating: entity, insertInto: nil)
            }
            return registry.make(lastClass.objectClass, entity: entity, noted: lastClass.noted)
        }
        let (objectClass, noted) = registry.classForMaking(entity, fallback: fallback)
        // A class not noted yet is noted by the first object made; the next row asks the registry again.
        lastClass = noted ? (ObjectIdentifier(entity), objectClass, noted, entity.layout) : nil
        return registry.make(objectClass, entity: entity, noted: noted)
    }
}
