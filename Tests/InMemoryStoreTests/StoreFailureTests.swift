import Testing
import CoreData
import CoreDataInMemory

/// A store error of a kind no Core Data code knows: it must reach callers wrapped in Apple's domain.
struct DiskUnplugged: Error {}

/// An in-memory store whose reads and writes can be made to fail while a test runs: the store added with
/// `FailingStore.nameOption` set to a name fails the operations `FailingStore.fail(_:in:with:)` named.
final class FailingStore: InMemoryStore {
    enum Operation: Hashable { case fetch, rows, relatedKeys, allocateKeys, save }

    override class var storeTypeName: String { "FailingTest" }
    static let nameOption = "FailingStoreName"

    private static let lock = NSLock()
    nonisolated(unsafe) private static var failures: [String: (operations: Set<Operation>, error: Error)] = [:]

    /// Makes the store named `name` throw `error` from `operations` (none: it works again).
    static func fail(_ operations: Set<Operation>, in name: String, with error: Error = DiskUnplugged()) {
        lock.lock()
        defer { lock.unlock() }
        failures[name] = (operations, error)
    }

    private func check(_ operation: Operation) throws {
        guard let name = openRequest.options[Self.nameOption] as? String else { return }
        Self.lock.lock()
        let failure = Self.failures[name]
        Self.lock.unlock()
        if let failure, failure.operations.contains(operation) { throw failure.error }
    }

    override func fetch(_ request: StoreFetchRequest) throws -> StoreFetchResult {
        try check(.fetch)
        return try super.fetch(request)
    }
    override func rows(for keys: [ObjectKey]) throws -> [StoreRow] {
        try check(.rows)
        return try super.rows(for: keys)
    }
    override func relatedKeys(of key: ObjectKey, through relationship: NSRelationshipDescription) throws -> [ObjectKey] {
        try check(.relatedKeys)
        return try super.relatedKeys(of: key, through: relationship)
    }
    override func allocatePrimaryKeys(for entity: NSEntityDescription, count: Int) throws -> [Int64] {
        try check(.allocateKeys)
        return try super.allocatePrimaryKeys(for: entity, count: count)
    }
    override func save(_ changes: StoreChangeSet) throws -> StoreSaveResult {
        try check(.save)
        return try super.save(changes)
    }
}

/// A store that fails to read or write: every failure reaches the caller as Apple's `NSError` (the
/// backend's own `NSError`s unchanged), never as an empty result.
@Suite struct StoreFailureTests {
    /// Shelf —< Item (items/shelf), cascading from the shelf.
    static func model() -> NSManagedObjectModel {
        let shelf = NSEntityDescription(name: "Shelf")
        let item = NSEntityDescription(name: "Item")
        let items = NSRelationshipDescription(name: "items", destination: item, toMany: true, deleteRule: .cascadeDeleteRule)
        let itemShelf = NSRelationshipDescription(name: "shelf", destination: shelf, toMany: false)
        items.inverseRelationship = itemShelf
        itemShelf.inverseRelationship = items
        shelf.properties = [NSAttributeDescription(name: "name", type: .string), items]
        item.properties = [NSAttributeDescription(name: "name", type: .string), itemShelf]
        return NSManagedObjectModel(entities: [shelf, item])
    }

    /// A store of a new name holding one shelf "A" with items "a1" and "a2", its coordinator, and the name.
    static func savedShelf() throws -> (NSPersistentStoreCoordinator, NSPersistentStore, String) {
        NSPersistentStoreCoordinator.registerStoreClass(FailingStore.self, forStoreType: "FailingTest")
        let name = UUID().uuidString
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model())
        let store = try coordinator.addPersistentStore(ofType: "FailingTest", configurationName: nil, at: nil,
                                                       options: [FailingStore.nameOption: name])
        let context = newContext(coordinator)
        try context.performAndWait {
            let shelf = NSEntityDescription.insertNewObject(forEntityName: "Shelf", into: context)
            shelf.setValue("A", forKey: "name")
            for itemName in ["a1", "a2"] {
                let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
                item.setValue(itemName, forKey: "name")
                item.setValue(shelf, forKey: "shelf")
            }
            try context.save()
        }
        return (coordinator, store, name)
    }

    static func newContext(_ coordinator: NSPersistentStoreCoordinator) -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// The error `body` throws, as an `NSError`; nil when it throws none.
    static func error(_ body: () throws -> Void) -> NSError? {
        do { try body(); return nil } catch { return error as NSError }
    }

    /// Checks that `error` is the mapped form of `DiskUnplugged` from `store`, with Apple's `code`.
    static func expectMapped(_ error: NSError?, code: Int, store: NSPersistentStore, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(error?.domain == NSCocoaErrorDomain, sourceLocation: sourceLocation)
        #expect(error?.code == code, sourceLocation: sourceLocation)
        #expect(error?.userInfo[NSUnderlyingErrorKey] is DiskUnplugged, sourceLocation: sourceLocation)
        #expect((error?.userInfo[NSAffectedStoresErrorKey] as? [NSPersistentStore])?.first === store, sourceLocation: sourceLocation)
    }

    static func itemNames(_ shelf: NSManagedObject) -> Set<String> {
        Set(((shelf.value(forKey: "items") as? Set<NSManagedObject>) ?? []).compactMap { $0.value(forKey: "name") as? String })
    }

    @Test func aFetchThatTheStoreFailsThrowsItsErrorInApplesDomain() throws {
        let (coordinator, store, name) = try Self.savedShelf()
        let context = Self.newContext(coordinator)
        FailingStore.fail([.fetch], in: name)
        for resultType in [NSFetchRequestResultType.managedObjectResultType, .managedObjectIDResultType, .countResultType, .dictionaryResultType] {
            let error = context.performAndWait {
                Self.error {
                    let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Item")
                    request.resultType = resultType
                    _ = try context.fetch(request)
                }
            }
            Self.expectMapped(error, code: NSPersistentStoreOperationError, store: store)
        }
        // A backend's own Core Data error arrives as the backend built it.
        FailingStore.fail([.fetch], in: name, with: CoreDataError.corruptStore(nil, type: "FailingTest", reason: "a test says so"))
        let corrupt = context.performAndWait { Self.error { _ = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item")) } }
        #expect(corrupt?.domain == NSCocoaErrorDomain && corrupt?.code == NSFileReadCorruptFileError)
        #expect(corrupt?.userInfo[NSUnderlyingErrorKey] == nil)
    }

    @Test func existingObjectThrowsTheStoresErrorNotNoSuchObject() throws {
        let (coordinator, store, name) = try Self.savedShelf()
        let context = Self.newContext(coordinator)
        let id = try context.performAndWait { try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Shelf"))[0].objectID }
        let other = Self.newContext(coordinator)
        FailingStore.fail([.rows], in: name)
        let error = other.performAndWait { Self.error { _ = try other.existingObject(with: id) } }
        Self.expectMapped(error, code: NSPersistentStoreOperationError, store: store)
        FailingStore.fail([], in: name)
        #expect(try other.performAndWait { try other.existingObject(with: id).value(forKey: "name") as? String } == "A")
    }

    @Test func anUnreadableRelationshipIsNeverSavedAsEmpty() throws {
        let (coordinator, store, name) = try Self.savedShelf()
        let context = Self.newContext(coordinator)
        try context.performAndWait {
            let shelf = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Shelf"))[0]
            FailingStore.fail([.relatedKeys], in: name)
            // A property access cannot throw: the relationship reads as empty …
            #expect(Self.itemNames(shelf).isEmpty)
            // … and a save that would write it throws the store's error instead of dropping a1 and a2.
            let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
            item.setValue("a3", forKey: "name")
            item.setValue(shelf, forKey: "shelf")
            Self.expectMapped(Self.error { try context.save() }, code: NSPersistentStoreOperationError, store: store)
            // Once the store reads again, a refreshed object reads its saved destinations.
            FailingStore.fail([], in: name)
            context.rollback()
            context.refresh(shelf, mergeChanges: false)
            #expect(Self.itemNames(shelf) == ["a1", "a2"])
        }
        let fresh = Self.newContext(coordinator)
        try fresh.performAndWait {
            let shelf = try fresh.fetch(NSFetchRequest<NSManagedObject>(entityName: "Shelf"))[0]
            #expect(Self.itemNames(shelf) == ["a1", "a2"])
        }
    }

    @Test func deletingAnObjectWhoseCascadeCannotBeReadThrows() throws {
        let (coordinator, store, name) = try Self.savedShelf()
        let context = Self.newContext(coordinator)
        try context.performAndWait {
            let shelf = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Shelf"))[0]
            FailingStore.fail([.relatedKeys], in: name)
            context.delete(shelf)
            Self.expectMapped(Self.error { try context.save() }, code: NSPersistentStoreOperationError, store: store)
        }
        FailingStore.fail([], in: name)
        let fresh = Self.newContext(coordinator)
        #expect(try fresh.performAndWait { try fresh.count(for: NSFetchRequest<NSManagedObject>(entityName: "Item")) } == 2)
    }

    @Test func aComputedFetchWhoseRelatedRowsCannotBeReadThrows() throws {
        let (coordinator, store, name) = try Self.savedShelf()
        let context = Self.newContext(coordinator)
        FailingStore.fail([.rows], in: name)
        let error = context.performAndWait {
            Self.error {
                let request = NSFetchRequest<NSDictionary>(entityName: "Item")
                request.resultType = .dictionaryResultType
                request.propertiesToFetch = ["name", "shelf.name"]
                _ = try context.fetch(request)
            }
        }
        Self.expectMapped(error, code: NSPersistentStoreOperationError, store: store)
    }

    @Test func aSaveThatTheStoreFailsThrowsASaveError() throws {
        let (coordinator, store, name) = try Self.savedShelf()
        for operation in [FailingStore.Operation.allocateKeys, .save] {
            let context = Self.newContext(coordinator)
            FailingStore.fail([operation], in: name)
            let error = context.performAndWait {
                let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
                item.setValue("b1", forKey: "name")
                return Self.error { try context.save() }
            }
            Self.expectMapped(error, code: NSPersistentStoreSaveError, store: store)
        }
        FailingStore.fail([], in: name)
        let fresh = Self.newContext(coordinator)
        #expect(try fresh.performAndWait { try fresh.count(for: NSFetchRequest<NSManagedObject>(entityName: "Item")) } == 2)
    }
}
