import CoreData
import CoreDataModelCommands
import Foundation

/// `coredata export <store> [--format json] [--output <file>]`: writes every object of a store as one JSON
/// document (`StoreExport`), which `coredata import` reads back into a new store of any type.
enum ExportCommand: Command {
    static let name = "export"
    static let summary = "write every object of a store as JSON (lossless; `import` reads it back)"
    static let usage = """
        usage: coredata export <store> [--format json] [--output <file>] [--model <model>] [--type sqlite|xml|binary]

          <store>          a SQLite, XML or binary store file (told by its content), or a PostgreSQL store's
                           postgresql:// URI; read-only, nothing beside it is created or changed
          --format json    the only format (the default): entities, objects with every stored attribute in a
                           lossless encoding, relationships as references (<Entity>/<n>); see Docs/Tool.md
          --output <file>  write to this file (replaced whole) instead of standard output
          --model <model>  the model file; optional for a SQLite store that caches its model
          --type <type>    the store type, checked against the file's content

        Export, import into a new store of any type, and export again give the same bytes. Exit status: 0
        success, 1 failure, 64 usage error.
        """

    static func run(_ arguments: [String]) throws {
        let parsed = try ParsedArguments(arguments, valued: ["--format", "--output", "--model", "--type"])
        guard parsed.positional.count == 1, let path = parsed.positional.first else { throw UsageError("expected one store") }
        if let format = parsed.options["--format"], format != "json" { throw UsageError("--format must be json, not \(format)") }
        let opened = try StoreOpening.open(store: path, model: parsed.options["--model"], type: parsed.options["--type"])
        defer { opened.close() }
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = opened.coordinator
        let text = try StoreExport.document(of: context, metadata: opened.coordinator.metadata(for: opened.store))
        if let output = parsed.options["--output"] {
            do {
                try Data(text.utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
            } catch {
                throw CoreDataError.make(NSFileWriteUnknownError, "The export could not be written to \(output): \(error.localizedDescription)",
                                         userInfo: [NSFilePathErrorKey: output, NSUnderlyingErrorKey: error])
            }
        } else {
            StandardOutput.write(text)
        }
    }
}
