import CoreData
import CoreDataStoreKit
import Foundation

/// `coredata model <model>`: prints a summary of a model.
enum ModelCommand: Command {
    static let name = "model"
    static let summary = "print a summary of a model: entities, properties, configurations, templates"
    static let usage = """
        usage: coredata model <model>

          <model>   a .xcdatamodeld, .xcdatamodel, .momd or .mom
        """

    static func run(_ arguments: [String]) throws {
        let parsed = try ParsedArguments(arguments, valued: [])
        guard parsed.positional.count == 1, let path = parsed.positional.first else { throw UsageError("expected one model") }
        let url = URL(fileURLWithPath: path)
        let model = try NSManagedObjectModel.load(contentsOf: url)
        print(ModelSummary.text(of: model, source: try ModelFileLoader.currentVersionFile(of: url)))
    }
}
