import CoreData
import CoreDataModelCommands
import Foundation

/// `coredata import <export.json> <new store> --to <type> --model <model>`: creates a store of the given type
/// holding the objects of a `coredata export` document (`StoreImport`).
enum ImportCommand: Command {
    static let name = "import"
    static let summary = "create a store of any type from a `coredata export` JSON document"
    static let usage = """
        usage: coredata import <export.json> <new store> --to sqlite|xml|binary|postgresql --model <model>

          <export.json>   what `coredata export` wrote (- reads standard input)
          <new store>     the store to create: a file path, or a postgresql:// URI; an existing store is
                          never overwritten
          --to <type>     the new store's type
          --model <model> the model (.xcdatamodeld, .xcdatamodel, .momd, .mom); of a package, the version whose
                          entity version hashes the export records is used; another model is refused (134100)

        Every object is validated with the model's rules in one save; on any error nothing is left at the
        destination. Prints the number of objects per entity. Exit status: 0 success, 1 failure (a damaged
        export names the line and column, or the object and key), 64 usage error.
        """

    static func run(_ arguments: [String]) throws {
        let parsed = try ParsedArguments(arguments, valued: ["--to", "--model"])
        guard parsed.positional.count == 2 else { throw UsageError("expected an export file and a new store") }
        let (source, destinationText) = (parsed.positional[0], parsed.positional[1])
        let destination = try StoreDestination(destinationText, toOption: parsed.options["--to"])
        guard let modelPath = parsed.options["--model"] else { throw UsageError("--model is required: an export records its model's hashes, not the model") }
        let document = try StoreImport(data: try read(source), path: source)
        let model = try modelVersion(at: modelPath, matching: document)
        try destination.checkAbsent()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(ofType: destination.kind.storeType, configurationName: nil, at: destination.url, options: nil)
        let counts: [String: Int]
        do {
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            counts = try document.insert(into: context, store: store)
            try coordinator.remove(store)
        } catch {
            try? coordinator.remove(store)
            destination.removeLeftovers()
            throw error
        }
        let total = counts.values.reduce(0, +)
        print("imported \(total) object\(total == 1 ? "" : "s") into \(destination.displayName) (\(store.type))")
        for name in counts.keys.sorted() { print("  \(name.padding(toLength: 28, withPad: " ", startingAt: 0)) \(counts[name] ?? 0)") }
    }

    /// The bytes of the export file (`-`: standard input).
    /// - Throws: 260 when there is no such file, 256 when it cannot be read.
    static func read(_ path: String) throws -> Data {
        if path == "-" { return FileHandle.standardInput.readDataToEndOfFile() }
        guard FileManager.default.fileExists(atPath: path) else {
            throw CoreDataError.make(NSFileReadNoSuchFileError, "There is no export file at \(path).", userInfo: [NSFilePathErrorKey: path])
        }
        do { return try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw CoreDataError.make(NSFileReadUnknownError, "The export file \(path) cannot be read: \(error.localizedDescription)",
                                     userInfo: [NSFilePathErrorKey: path, NSUnderlyingErrorKey: error])
        }
    }

    /// The model at `path` whose entity version hashes are the document's: the file's model, or of a package
    /// the version that matches.
    /// - Throws: 134100 naming the entities that differ when none matches.
    static func modelVersion(at path: String, matching document: StoreImport) throws -> NSManagedObjectModel {
        let versions = try NSManagedObjectModel.versions(ofModelAt: URL(fileURLWithPath: path))
        if let match = versions.first(where: { document.mismatchedEntities(of: $0.model).isEmpty }) { return match.model }
        let current = versions.first(where: \.isCurrent) ?? versions.first
        let differing = current.map { document.mismatchedEntities(of: $0.model) } ?? []
        throw CoreDataError.make(NSPersistentStoreIncompatibleVersionHashError,
                                 "The model \(path) is not the one the export was made with: the version hashes of "
                                 + "\(differing.isEmpty ? "its entities" : "entities \(differing.joined(separator: ", "))") differ"
                                 + (versions.count > 1 ? " in every version of it" : "") + ".",
                                 userInfo: [NSFilePathErrorKey: path])
    }
}
