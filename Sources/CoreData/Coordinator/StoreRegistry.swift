import CoreDataInMemory
import CoreDataPostgreSQL
import CoreDataSQLite
import CoreDataXML
import CoreDataBinary

/// The store types a coordinator can add, by type name. The built-in stores are registered here; users add
/// theirs with `NSPersistentStoreCoordinator.registerStoreClass(_:type:)`.
///
/// `@unchecked Sendable`: `classes` is read and written only under `lock`.
final class StoreRegistry: @unchecked Sendable {
    static let shared = StoreRegistry()

    private let lock = NSLock()
    private var classes: [String: AnyClass] = [
        NSInMemoryStoreType: InMemoryStore.self,
        NSSQLiteStoreType: SQLiteStore.self,
        NSXMLStoreType: XMLStore.self,
        NSBinaryStoreType: BinaryStore.self,
        NSPostgreSQLStoreType: PostgreSQLStore.self,
    ]

    func register(_ storeClass: AnyClass?, for type: String) {
        lock.lock()
        defer { lock.unlock() }
        classes[type] = storeClass
    }

    func storeClass(for type: String) -> AnyClass? {
        lock.lock()
        defer { lock.unlock() }
        return classes[type]
    }

    /// The backend type registered for `type`.
    /// - Throws: 134000 when no class is registered, or the class does not implement the store contract.
    func backendType(for type: String) throws -> PersistentStoreBackend.Type {
        guard let storeClass = storeClass(for: type) else { throw CoreDataError.unknownStoreType(type) }
        guard let backend = storeClass as? PersistentStoreBackend.Type else {
            throw CoreDataError.make(NSPersistentStoreInvalidTypeError,
                                     "The class registered for store type \"\(type)\" (\(storeClass)) does not implement PersistentStoreBackend.")
        }
        return backend
    }

    var registeredTypes: [String: AnyClass] {
        lock.lock()
        defer { lock.unlock() }
        return classes
    }
}
