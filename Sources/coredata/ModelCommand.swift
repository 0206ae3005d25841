import CoreData
import CoreDataModelCommands
import CoreDataModelTools
import CoreDataStoreKit
import Foundation

/// `coredata model <model>`: prints a summary of a model; `coredata model --diff <old> <new>`: what changed
/// between two model versions, and whether lightweight migration can infer the mapping (`ModelDiff`).
enum ModelCommand: Command {
    static let name = "model"
    static let summary = "print a summary of a model, or (--diff) what changed between two versions"
    static let usage = """
        usage: coredata model <model>
               coredata model --diff <old model> <new model>

          <model>   a .xcdatamodeld, .xcdatamodel, .momd or .mom (of a package, its current version; name one
                    version with its path inside the package, Model.xcdatamodeld/Model 2.xcdatamodel)
          --diff    compare two models: entities and properties added (+), removed (-) and changed (~, with
                    what changed; renames by renaming identifier), then whether lightweight migration can
                    infer the mapping (NSMappingModel.inferredMappingModel) or what stops it (134190)
        """

    static func run(_ arguments: [String]) throws {
        let parsed = try ParsedArguments(arguments, valued: [], flags: ["--diff"])
        if parsed.flags.contains("--diff") {
            guard parsed.positional.count == 2 else { throw UsageError("--diff expects two models: the old and the new") }
            let models = try parsed.positional.map { try NSManagedObjectModel.load(contentsOf: URL(fileURLWithPath: $0)) }
            print("old: \(parsed.positional[0])\nnew: \(parsed.positional[1])")
            print(ModelDiff(old: models[0], new: models[1]).lines().joined(separator: "\n"))
            return
        }
        guard parsed.positional.count == 1, let path = parsed.positional.first else { throw UsageError("expected one model") }
        let url = URL(fileURLWithPath: path)
        let model = try NSManagedObjectModel.load(contentsOf: url)
        print(ModelSummary.text(of: model, source: try ModelFileLoader.currentVersionFile(of: url)))
    }
}
