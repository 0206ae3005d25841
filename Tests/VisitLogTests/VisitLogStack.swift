import CoreData
import Foundation
import VisitLog

/// One test's SQLite store of the `Visits` model, loaded by name from the bundle the build plugin filled, in a
/// fresh temporary folder removed when the fixture goes. `reopened()` opens the same file in a new container,
/// so what a test reads there was saved. Its contexts are main-queue contexts: the suites run on the main actor.
final class VisitLogStack {
    private let folder: URL
    let container: NSPersistentContainer
    var context: NSManagedObjectContext { container.viewContext }
    /// The containers opened again, kept so their objects keep a live context.
    private var reopenedContainers: [NSPersistentContainer] = []

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("VisitLogTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        container = try Self.open(in: folder)
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    /// The view context of a new container on the same store file.
    func reopened() throws -> NSManagedObjectContext {
        let container = try Self.open(in: folder)
        reopenedContainers.append(container)
        return container.viewContext
    }

    private static func open(in folder: URL) throws -> NSPersistentContainer {
        let container = NSPersistentContainer(name: VisitLogModel.name)
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: folder.appendingPathComponent("Visits.sqlite"))]
        var failure: Error?
        container.loadPersistentStores { _, error in failure = error }
        if let failure { throw failure }
        return container
    }
}
