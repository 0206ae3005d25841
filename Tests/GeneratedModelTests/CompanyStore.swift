import CoreData
import Foundation
import GeneratedModelExample
import Testing

/// The stores the generated classes are tested against.
enum CompanyStore: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case inMemory
    case sqlite

    var testDescription: String { rawValue }
}

/// One test's stack on the `Company` model, loaded by name from the bundle the build plugin filled, as an app
/// would. A SQLite store lives in a fresh temporary folder, removed when the fixture goes. Its contexts are
/// main-queue contexts, used as an app uses its view context: the suites that use them run on the main actor.
final class CompanyStack {
    let kind: CompanyStore
    private let folder: URL
    /// The first container; an in-memory store lives as long as it does.
    let container: NSPersistentContainer
    var context: NSManagedObjectContext { container.viewContext }

    init(_ kind: CompanyStore) throws {
        self.kind = kind
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("GeneratedModelTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        container = try Self.open(kind, in: folder)
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    /// A context that sees only what was saved: for SQLite a new container on the same file (a reopen), in
    /// memory a new context on the same coordinator.
    func reopened() throws -> NSManagedObjectContext {
        switch kind {
        case .inMemory:
            let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
            context.persistentStoreCoordinator = container.persistentStoreCoordinator
            return context
        case .sqlite:
            return try Self.open(kind, in: folder).viewContext
        }
    }

    private static func open(_ kind: CompanyStore, in folder: URL) throws -> NSPersistentContainer {
        let container = NSPersistentContainer(name: CompanyModel.name)
        let description: NSPersistentStoreDescription
        switch kind {
        case .inMemory:
            description = NSPersistentStoreDescription()
            description.type = NSInMemoryStoreType
        case .sqlite:
            description = NSPersistentStoreDescription(url: folder.appendingPathComponent("Company.sqlite"))
        }
        container.persistentStoreDescriptions = [description]
        var failure: Error?
        container.loadPersistentStores { _, error in failure = error }
        if let failure { throw failure }
        return container
    }
}

/// The one object a fetch must find.
func fetchOne<T>(_ request: NSFetchRequest<T>, in context: NSManagedObjectContext, _ format: String, _ arguments: CVarArg...,
                 sourceLocation: SourceLocation = #_sourceLocation) throws -> T {
    request.predicate = NSPredicate(format: format, argumentArray: arguments)
    let found = try context.fetch(request)
    try #require(found.count == 1, "\(format) matched \(found.count) objects", sourceLocation: sourceLocation)
    return found[0]
}
