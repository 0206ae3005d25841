import CoreData
import CoreDataModelCommands
import CoreDataSQLite
import Foundation

/// `coredata validate <store> [--model <model>]`: checks a store and prints a report: the file's integrity,
/// whether the model matches the store's entity version hashes, and every object validated with the model's
/// rules (`validateForUpdate()`: required values, ranges, lengths, patterns, relationship counts), with the
/// number of objects per entity and each problem found.
///
/// The store is read as `inspect` reads it: nothing beside it is created or changed. Exit status 1 when any
/// problem was found (after the whole report), 0 when none.
enum ValidateCommand: Command {
    static let name = "validate"
    static let summary = "check a store: file integrity, model version hashes, every object validated; a report with counts"
    static let usage = """
        usage: coredata validate <store> [--model <model>] [--type sqlite|xml|binary]

          <store>          a SQLite, XML or binary store file (told by its content), or a postgresql:// URI;
                           read-only, nothing beside it is created or changed
          --model <model>  the model to check against; of a package, the version whose hashes the store
                           records; optional for a SQLite store that caches its model
          --type <type>    the store type, checked against the file's content

        Checks: integrity (SQLite: PRAGMA integrity_check; XML and binary: the whole file reads, the binary
        store's checksums included), model (every entity's version hash equals the store's), objects (each
        validated as a save would: validateForUpdate). Prints a report with counts; exit status 0 when
        nothing is wrong, 1 when something is (or the store cannot be read), 64 usage error.
        """

    /// One line of the report's problems, and the error it came from.
    struct Problem {
        let text: String
        let code: Int
    }

    static func run(_ arguments: [String]) throws {
        let parsed = try ParsedArguments(arguments, valued: ["--model", "--type"])
        guard parsed.positional.count == 1, let path = parsed.positional.first else { throw UsageError("expected one store") }
        let (kind, url) = try StoreOpening.locate(path, type: parsed.options["--type"])
        let (readable, temporaryFolder) = try StoreOpening.readableLocation(of: url, kind: kind)
        defer { if let temporaryFolder { try? FileManager.default.removeItem(at: temporaryFolder) } }
        let options = StoreOpening.readOnlyOptions(kind: kind, copied: temporaryFolder != nil)
        let location = StoreDestination.displayName(of: url, kind: kind)
        var lines = ["store:      \(location)", "type:       \(kind.storeType)"]
        var problems: [Problem] = []

        let integrity = integrityProblems(readable, kind: kind, copied: temporaryFolder != nil)
        lines.append("integrity:  " + integrityLine(kind: kind, problems: integrity))
        problems += integrity.map { Problem(text: "integrity: \($0)", code: NSFileReadCorruptFileError) }

        do {
            let (modelLines, modelProblems) = try checkModelAndObjects(readable, named: url, kind: kind, modelPath: parsed.options["--model"], options: options)
            lines += modelLines
            problems += modelProblems
        } catch let error as UsageError {
            throw error
        } catch {
            // A store that does not open is one more problem of the report (after a failed integrity check, the likely one).
            let error = error as NSError
            lines.append("objects:    not validated: the store does not open")
            problems.append(Problem(text: "store: \(error.localizedDescription) (\(error.code))", code: error.code))
        }
        if !problems.isEmpty {
            lines.append("problems:")
            lines += problems.map { "  " + $0.text }
        }
        lines.append("result:     " + (problems.isEmpty ? "valid" : "\(problems.count) problem\(problems.count == 1 ? "" : "s")"))
        print(lines.joined(separator: "\n"))
        if let first = problems.first {
            throw CoreDataError.make(first.code, "\(problems.count) problem\(problems.count == 1 ? "" : "s") found in \(location) (listed on standard output).")
        }
    }

    /// The model's lines and problems (version hashes), then, when the model matches, the objects'.
    static func checkModelAndObjects(_ readable: URL, named url: URL, kind: StoreFileKind, modelPath: String?,
                                     options: [String: Any]) throws -> ([String], [Problem]) {
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: kind.storeType, at: readable, options: options)
        let (model, modelSource) = try StoreOpening.model(for: readable, named: url, kind: kind, modelPath: modelPath)
        let mismatched = mismatchedEntities(model, metadata)
        var lines = ["model:      \(modelSource)",
                     "hashes:     " + (mismatched.isEmpty ? "match (\(model.entities.count) entities)" : "\(mismatched.count) differ: \(mismatched.joined(separator: ", "))")]
        var problems = mismatched.map { Problem(text: "model: entity \($0)'s version hash differs from the store's", code: NSPersistentStoreIncompatibleVersionHashError) }
        if mismatched.isEmpty {
            let (objectLines, objectProblems) = try validateObjects(readable, kind: kind, model: model, options: options)
            lines += objectLines
            problems += objectProblems
        } else {
            lines.append("objects:    not validated: the model does not match the store")
        }
        return (lines, problems)
    }

    /// SQLite's integrity check of the file; nothing for the other types, whose whole file is read (and the
    /// binary store's checksums verified) when the store is opened.
    /// A check SQLite cannot finish (a page too damaged to read) is itself the problem.
    static func integrityProblems(_ url: URL, kind: StoreFileKind, copied: Bool) -> [String] {
        guard kind == .sqlite else { return [] }
        do {
            return try SQLiteIntegrityCheck.problems(in: url, immutable: !copied)
        } catch {
            return [error.localizedDescription]
        }
    }

    static func integrityLine(kind: StoreFileKind, problems: [String]) -> String {
        switch kind {
        case .sqlite: return problems.isEmpty ? "ok (PRAGMA integrity_check)" : "\(problems.count) problem\(problems.count == 1 ? "" : "s") (PRAGMA integrity_check)"
        case .xml: return "ok (the XML reads whole)"
        case .binary: return "ok (the file reads whole, its checksums match)"
        case .postgresql: return "not checked (the server keeps its own files)"
        }
    }

    /// The model's entities whose version hash differs from the one the store records (or that one lacks).
    /// For a store of one configuration, only that configuration's entities are compared, as
    /// `isConfiguration(withName:compatibleWithStoreMetadata:)` does.
    static func mismatchedEntities(_ model: NSManagedObjectModel, _ metadata: [String: Any]) -> [String] {
        if model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata) { return [] }
        let stored = metadata[NSStoreModelVersionHashesKey] as? [String: Data] ?? [:]
        let current = model.entityVersionHashesByName
        let differing = Set(stored.keys).union(current.keys).filter { stored[$0] != current[$0] }.sorted()
        return differing.isEmpty ? ["(the store records no version hashes)"] : differing
    }

    /// Every object validated, and the report's lines: per entity (its own objects), how many are invalid.
    static func validateObjects(_ url: URL, kind: StoreFileKind, model: NSManagedObjectModel,
                                options: [String: Any]) throws -> ([String], [Problem]) {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(ofType: kind.storeType, configurationName: nil, at: url, options: options)
        defer { try? coordinator.remove(store) }
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        var lines = ["objects:"]
        var problems: [Problem] = []
        var (total, invalid) = (0, 0)
        for entity in model.entitiesInStoreOrder where !entity.isAbstract {
            guard let name = entity.name else { continue }
            let request = NSFetchRequest<NSManagedObject>(entityName: name)
            request.includesSubentities = false
            // Filled objects: validation reads the values an object holds, and a fault holds none yet.
            request.returnsObjectsAsFaults = false
            let found = try context.performAndWait {
                try context.fetch(request).sorted { QueryField.storeOrder($0.objectID, $1.objectID) }.map { object in
                    (FieldValue.shortID(object.objectID.uriRepresentation().absoluteString), errors(validating: object))
                }
            }
            let bad = found.filter { !$0.1.isEmpty }
            (total, invalid) = (total + found.count, invalid + bad.count)
            lines.append("  \(name.padding(toLength: 28, withPad: " ", startingAt: 0)) \(found.count)" + (bad.isEmpty ? "" : "  (\(bad.count) invalid)"))
            for (id, objectErrors) in bad {
                problems += objectErrors.map { Problem(text: "\(id): \($0.localizedDescription) (\($0.code))", code: $0.code) }
            }
        }
        lines.append("  \(total) object\(total == 1 ? "" : "s"), \(invalid) invalid")
        return (lines, problems)
    }

    /// The validation errors of `object` (`validateForUpdate()`), one per failed rule.
    static func errors(validating object: NSManagedObject) -> [NSError] {
        do {
            try object.validateForUpdate()
            return []
        } catch {
            let error = error as NSError
            if error.code == NSValidationMultipleErrorsError, let details = error.userInfo[NSDetailedErrorsKey] as? [NSError] { return details }
            return [error]
        }
    }
}
