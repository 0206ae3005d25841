import CoreData
import CoreDataModelCommands
import Foundation

/// `coredata inspect <store> [--model <model>]`: prints a store's metadata and the number of objects per entity.
enum InspectCommand: Command {
    static let name = "inspect"
    static let summary = "print a store's type, UUID, metadata and object counts per entity"
    static let usage = """
        usage: coredata inspect <store> [--model <model>] [--type sqlite|xml|binary]

          <store>          a SQLite, XML or binary store file, its type told by its content (not its name);
                           read-only: nothing beside it is created and no file changes
          --model <model>  the model the store was saved with (.xcdatamodeld, .xcdatamodel, .momd, .mom); of a
                           package, the version whose hashes the store records is used and named; optional for
                           a SQLite store that caches its model (Apple's since about 2015, and this package's)
          --type <type>    the store type the file must have (checked against its content)

        Exit status: 0 success, 1 failure (no such file, a directory, not a store, a damaged store, a model
        that does not match), 64 usage error (and when a model is needed and not given). See Docs/Tool.md.
        """

    static func run(_ arguments: [String]) throws {
        for line in try report(arguments) { print(line) }
    }

    /// The lines `run` prints.
    static func report(_ arguments: [String]) throws -> [String] {
        let parsed = try ParsedArguments(arguments, valued: ["--model", "--type"])
        guard parsed.positional.count == 1, let store = parsed.positional.first else { throw UsageError("expected one store") }
        let opened = try StoreOpening.open(store: store, model: parsed.options["--model"], type: parsed.options["--type"])
        defer { opened.close() }
        let (coordinator, persistentStore) = (opened.coordinator, opened.store)
        let metadata = coordinator.metadata(for: persistentStore)
        var lines = [
            "store:  \(opened.url.path)",
            "type:   \(persistentStore.type)",
            "uuid:   \(persistentStore.identifier ?? "")",
            "model:  \(opened.modelSource)",
        ]
        let other = metadata.keys.filter { ![NSStoreTypeKey, NSStoreUUIDKey, NSStoreModelVersionHashesKey].contains($0) }.sorted()
        for key in other { lines.append("meta:   \(key) = \(metadata[key].map { FieldValue(propertyList: $0).cell(shortIDs: false) } ?? "nil")") }
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        lines.append("entities:")
        for entity in coordinator.managedObjectModel.entitiesInStoreOrder {
            guard let name = entity.name else { continue }
            let request = NSFetchRequest<NSManagedObject>(entityName: name)
            request.includesSubentities = false
            let count = try context.performAndWait { try context.count(for: request) }
            lines.append("  \(name.padding(toLength: 28, withPad: " ", startingAt: 0)) \(count)")
        }
        return lines
    }
}
