import Testing
import CoreData
import CoreDataConformance
import CoreDataInMemory

/// A third-party store that implements only the core of the contract (here by forwarding to an in-memory store)
/// and adopts none of the refinement protocols (`BatchUpdating`, `BatchInserting`, …).
final class CoreOnlyStore: PersistentStoreBackend {
    private let inner: InMemoryStore
    init(_ request: StoreOpenRequest) throws { inner = try InMemoryStore(request) }
    static func metadataForStore(at url: URL, options: [AnyHashable: Any]?) throws -> [String: Any] {
        throw CoreDataError.unsupported("metadata of stores without files")
    }
    var metadata: [String: Any] { inner.metadata }
    var capabilities: StoreCapabilities { [] }
    func fetch(_ request: StoreFetchRequest) throws -> StoreFetchResult { try inner.fetch(request) }
    func rows(for keys: [ObjectKey]) throws -> [StoreRow] { try inner.rows(for: keys) }
    func relatedKeys(of key: ObjectKey, through relationship: NSRelationshipDescription) throws -> [ObjectKey] {
        try inner.relatedKeys(of: key, through: relationship)
    }
    func allocatePrimaryKeys(for entity: NSEntityDescription, count: Int) throws -> [Int64] {
        try inner.allocatePrimaryKeys(for: entity, count: count)
    }
    func save(_ changes: StoreChangeSet) throws -> StoreSaveResult { try inner.save(changes) }
    func batchDelete(_ request: StoreBatchDeleteRequest) throws -> [ObjectKey] { try inner.batchDelete(request) }
    func close() { inner.close() }
}

@Suite struct BatchRequestDefaultsTests {
    @Test func aStoreAdoptingNoBatchProtocolGivesUnsupportedAndSkipsTheCases() throws {
        NSPersistentStoreCoordinator.registerStoreClass(CoreOnlyStore.self, forStoreType: "CoreOnlyTest")
        let plan = ConformancePlan(ConformanceConfiguration(storeTypeName: "CoreOnlyTest"))
        let skipped = plan.skipped.map(\.name)
        #expect(skipped.contains("batch-update/predicate"))
        #expect(skipped.contains("batch-insert/dictionaries"))
        #expect(!plan.applicable.contains { $0.name.hasPrefix("batch-update/") || $0.name.hasPrefix("batch-insert/") })

        let model = NSManagedObjectModel(entities: [{
            let entity = NSEntityDescription(name: "Thing")
            entity.properties = [NSAttributeDescription(name: "n", type: .integer64)]
            return entity
        }()])
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        _ = try coordinator.addPersistentStore(ofType: "CoreOnlyTest", configurationName: nil, at: nil, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let update = NSBatchUpdateRequest(entityName: "Thing")
        update.propertiesToUpdate = ["n": 1]
        let insert = NSBatchInsertRequest(entityName: "Thing", objects: [["n": 1]])
        for request in [update, insert] as [NSPersistentStoreRequest] {
            let error = context.performAndWait { () -> NSError? in
                do { _ = try context.execute(request); return nil } catch { return error as NSError }
            }
            #expect(error?.code == NSPersistentStoreUnsupportedRequestTypeError)
        }
    }

    /// A store that does not adopt `DerivedAttributeComputing` cannot be added with a model that has derived
    /// attributes: the add fails with 134091 naming the attribute, before the store is opened, rather than the
    /// attribute silently staying nil.
    @Test func aStoreAdoptingNoDerivedAttributeProtocolRefusesAModelWithThem() throws {
        NSPersistentStoreCoordinator.registerStoreClass(CoreOnlyStore.self, forStoreType: "CoreOnlyTest")
        let plan = ConformancePlan(ConformanceConfiguration(storeTypeName: "CoreOnlyTest"))
        #expect(!plan.applicable.contains { $0.name.hasPrefix("derived/count") })
        let shelf = NSEntityDescription(name: "Shelf")
        let books = NSAttributeDescription(name: "title", type: .string)
        let upper = NSDerivedAttributeDescription()
        upper.name = "upperTitle"
        upper.attributeType = .stringAttributeType
        upper.derivationExpression = NSExpression(forFunction: "uppercase:", arguments: [NSExpression(forKeyPath: "title")])
        shelf.properties = [books, upper]
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: NSManagedObjectModel(entities: [shelf]))
        do {
            _ = try coordinator.addPersistentStore(ofType: "CoreOnlyTest", configurationName: nil, at: nil, options: nil)
            Issue.record("the add should fail")
        } catch let error as NSError {
            #expect(error.code == NSPersistentStoreUnsupportedRequestTypeError)
            #expect(error.localizedDescription.contains("Shelf.upperTitle"), "\(error.localizedDescription)")
        }
        #expect(coordinator.persistentStores.isEmpty)
    }
}
