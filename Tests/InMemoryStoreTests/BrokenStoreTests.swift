import Testing
import CoreData
import CoreDataConformance
import CoreDataInMemory

/// An in-memory store that ignores sort descriptors: the suite must catch it.
final class UnsortedStore: InMemoryStore {
    override class var storeTypeName: String { "UnsortedTest" }
    override func fetch(_ request: StoreFetchRequest) throws -> StoreFetchResult {
        var unsorted = request
        unsorted.sortDescriptors = []
        return try super.fetch(unsorted)
    }
}

/// An in-memory store that forgets to-many relationships on save.
final class ForgetfulStore: InMemoryStore {
    override class var storeTypeName: String { "ForgetfulTest" }
    override func save(_ changes: StoreChangeSet) throws -> StoreSaveResult {
        var withoutToMany = changes
        withoutToMany.toManyChanges = []
        return try super.save(withoutToMany)
    }
}

/// An in-memory store that ignores fetch predicates: the predicate cases, mutated formats included, must catch it.
final class UnfilteredStore: InMemoryStore {
    override class var storeTypeName: String { "UnfilteredTest" }
    override func fetch(_ request: StoreFetchRequest) throws -> StoreFetchResult {
        var unfiltered = request
        unfiltered.predicate = nil
        return try super.fetch(unfiltered)
    }
}

/// An in-memory store that answers a request for several rows with the first one only: the faulting cases
/// must catch it, since batches of faults read their rows together.
final class FirstRowOnlyStore: InMemoryStore {
    override class var storeTypeName: String { "FirstRowOnlyTest" }
    override func rows(for keys: [ObjectKey]) throws -> [StoreRow] {
        Array(try super.rows(for: keys).prefix(1))
    }
}

@Suite struct BrokenStoreTests {
    static func failures(of storeClass: AnyClass, type: String) -> [String] {
        NSPersistentStoreCoordinator.registerStoreClass(storeClass, forStoreType: type)
        var failed: [String] = []
        for testCase in ConformanceSuite.cases {
            do {
                try testCase.run(with: ConformanceConfiguration(storeTypeName: type))
            } catch is ConformanceSkip {
                continue
            } catch {
                failed.append(testCase.name)
            }
        }
        return failed
    }

    @Test func suiteCatchesAStoreThatIgnoresSortOrder() {
        let failed = Self.failures(of: UnsortedStore.self, type: "UnsortedTest")
        #expect(failed.contains("fetch/sort-limit-offset"))
        #expect(failed.contains("fetch/key-paths-through-relationships"))
        #expect(!failed.contains("save/insert-update-delete"))
    }

    @Test func suiteCatchesAStoreThatIgnoresPredicates() {
        let failed = Self.failures(of: UnfilteredStore.self, type: "UnfilteredTest")
        #expect(failed.contains("fetch/predicates-agree-with-evaluate"))
        #expect(failed.contains("fetch/mutated-predicates-never-trap"))
        #expect(!failed.contains("save/insert-update-delete"))
    }

    @Test func suiteCatchesAStoreThatLosesToManyRelationships() {
        let failed = Self.failures(of: ForgetfulStore.self, type: "ForgetfulTest")
        #expect(failed.contains("save/many-to-many"))
        #expect(failed.contains("save/ordered"))
    }

    @Test func suiteCatchesAStoreThatAnswersABatchWithOneRow() {
        let failed = Self.failures(of: FirstRowOnlyStore.self, type: "FirstRowOnlyTest")
        #expect(failed.contains("faults/batched-fetch"))
        #expect(!failed.contains("faults/fetched-objects-are-faults"))
        #expect(!failed.contains("save/insert-update-delete"))
    }

    @Test func unregisteredClassGivesAppleError() throws {
        NSPersistentStoreCoordinator.registerStoreClass(NSObject.self, forStoreType: "NotAStore")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: NSManagedObjectModel())
        #expect(throws: NSError.self) {
            try coordinator.addPersistentStore(ofType: "NotAStore", configurationName: nil, at: nil, options: nil)
        }
        do {
            try coordinator.addPersistentStore(ofType: "NotAStore", configurationName: nil, at: nil, options: nil)
        } catch let error as NSError {
            #expect(error.domain == NSCocoaErrorDomain && error.code == NSPersistentStoreInvalidTypeError)
        }
    }
}
