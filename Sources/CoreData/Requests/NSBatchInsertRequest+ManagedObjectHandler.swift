/// The managed-object form of Apple's batch insert, which needs `NSManagedObject` and so lives here.
extension NSBatchInsertRequest {
    /// Called once per object with a new managed object of the entity, in no context, whose attributes it
    /// sets; returns `true` to stop (that object is not inserted). Relationships set on the object make the
    /// request throw 134091.
    public var managedObjectHandler: ((NSManagedObject) -> Bool)? {
        get {
            guard let handler = _managedObjectHandler else { return nil }
            return { object in handler(object) }
        }
        set {
            guard let newValue else { _managedObjectHandler = nil; return }
            _managedObjectHandler = { object in
                guard let managed = object as? NSManagedObject else { return true }
                return newValue(managed)
            }
        }
    }

    /// Inserts the objects `handler` fills in, into this entity.
    public convenience init(entity: NSEntityDescription, managedObjectHandler handler: @escaping (NSManagedObject) -> Bool) {
        self.init(entity: entity, objects: [])
        objectsToInsert = nil
        managedObjectHandler = handler
    }

    /// Inserts the objects `handler` fills in, into the entity with this name.
    public convenience init(entityName: String, managedObjectHandler handler: @escaping (NSManagedObject) -> Bool) {
        self.init(entityName: entityName, objects: [])
        objectsToInsert = nil
        managedObjectHandler = handler
    }
}
