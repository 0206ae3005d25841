import CoreData
import CoreDataModelCommands
import Foundation

/// `coredata convert <source> <destination> --to <type>`: copies a store into a new store of another type
/// with `NSPersistentStoreCoordinator.migratePersistentStore(_:to:options:type:)`, then checks that the new
/// store holds as many objects of each entity as the source.
///
/// Progress (`ProgressReport`) goes by phase: the source counted, the copy (one save, which the API does
/// not divide further), and the new store counted entity by entity. The source is read without being
/// touched (as `inspect` reads it); a failed copy leaves nothing at the destination.
enum ConvertCommand: Command {
    static let name = "convert"
    static let summary = "copy a store into a new store of another type (SQLite, XML, binary, PostgreSQL)"
    static let usage = """
        usage: coredata convert <source> <destination> --to sqlite|xml|binary|postgresql [--model <model>]
                                [--type sqlite|xml|binary]

          <source>        a SQLite, XML or binary store file (told by its content), or a postgresql:// URI;
                          read-only, nothing beside it is created or changed
          <destination>   the new store: a file path, or a postgresql:// URI for --to postgresql; an existing
                          store is never overwritten
          --to <type>     the new store's type
          --model <model> the model file; optional for a SQLite store that caches its model
          --type <type>   the source's type, checked against its content

        Copies with migratePersistentStore(_:to:options:type:): every object, attribute and relationship, and
        the metadata the store's user set; the new store numbers the objects itself (object IDs change).
        Progress: a bar on a terminal, `progress: N% …` lines otherwise. Exit status: 0 success, 1 failure,
        64 usage error.
        """

    static func run(_ arguments: [String]) throws {
        let parsed = try ParsedArguments(arguments, valued: ["--to", "--model", "--type"])
        guard parsed.positional.count == 2 else { throw UsageError("expected a source store and a destination") }
        let destination = try StoreDestination(parsed.positional[1], toOption: parsed.options["--to"])
        let progress = ProgressReport()
        defer { progress.finish() }
        progress.update(0, "opening \(parsed.positional[0])")
        let opened = try StoreOpening.open(store: parsed.positional[0], model: parsed.options["--model"], type: parsed.options["--type"])
        defer { opened.close() }
        try destination.checkAbsent()
        let entities = opened.coordinator.managedObjectModel.entitiesInStoreOrder.filter { !$0.isAbstract }
        let sourceCounts = try counts(of: entities, in: opened.coordinator)
        let total = sourceCounts.values.reduce(0, +)
        progress.update(0.1, "copying \(total) object\(total == 1 ? "" : "s") into a new \(destination.kind.storeType) store")
        let converted = try opened.coordinator.migratePersistentStore(opened.store, to: destination.url, options: nil, type: .init(rawValue: destination.kind.storeType))
        defer { try? opened.coordinator.remove(converted) }
        do {
            try check(entities, sourceCounts, in: opened.coordinator, progress: progress)
        } catch {
            try? opened.coordinator.remove(converted)
            destination.removeLeftovers()
            throw error
        }
        progress.update(1, "done")
        progress.finish()
        print("converted \(total) object\(total == 1 ? "" : "s") from \(opened.store.type) to \(converted.type): \(destination.displayName)")
    }

    /// Checks that the coordinator's store (the new one) holds as many objects of each entity as `expected`.
    /// - Throws: 134070 naming the first entity whose count differs.
    static func check(_ entities: [NSEntityDescription], _ expected: [String: Int], in coordinator: NSPersistentStoreCoordinator,
                      progress: ProgressReport) throws {
        for (index, entity) in entities.enumerated() {
            let name = entity.name ?? ""
            progress.update(0.9 + 0.1 * Double(index) / Double(max(1, entities.count)), "checking \(name)")
            let count = try counts(of: [entity], in: coordinator).values.reduce(0, +)
            guard count == expected[name] else {
                throw CoreDataError.make(NSPersistentStoreOperationError,
                                         "The new store holds \(count) \(name) objects where the source holds \(expected[name] ?? 0).")
            }
        }
    }

    /// The number of each entity's own objects (no subentities') in the coordinator's one store.
    static func counts(of entities: [NSEntityDescription], in coordinator: NSPersistentStoreCoordinator) throws -> [String: Int] {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        var counts: [String: Int] = [:]
        for entity in entities {
            guard let name = entity.name else { continue }
            let request = NSFetchRequest<NSManagedObject>(entityName: name)
            request.includesSubentities = false
            counts[name] = try context.performAndWait { try context.count(for: request) }
        }
        return counts
    }
}
