import CoreData
import Foundation

/// `coredata query <store> [--model <model>] --entity <name> [--where <predicate>] [--sort <key>] [--limit n]`:
/// prints the matching objects, one per line.
enum QueryCommand: Command {
    static let name = "query"
    static let summary = "fetch objects of an entity with a predicate, and print them"
    static let usage = """
        usage: coredata query <store> [--model <model>] --entity <name> [--where <predicate>] [--sort <key>[,-key…]] [--limit <n>] [--type sqlite|xml|binary]

          --model <model>      the model file; optional for a SQLite store that caches its model
          --where <predicate>  an NSPredicate format, e.g. "age > 30 AND name BEGINSWITH[c] 'a'"
          --sort <keys>        comma-separated keys; a leading - sorts descending
          --limit <n>          at most n objects
        """

    static func run(_ arguments: [String]) throws {
        for line in try report(arguments) { print(line) }
    }

    /// The lines `run` prints.
    static func report(_ arguments: [String]) throws -> [String] {
        let parsed = try ParsedArguments(arguments, valued: ["--model", "--type", "--entity", "--where", "--sort", "--limit"])
        guard parsed.positional.count == 1, let store = parsed.positional.first else { throw UsageError("expected one store") }
        guard let entityName = parsed.options["--entity"] else { throw UsageError("--entity is required") }
        let opened = try StoreOpening.open(store: store, model: parsed.options["--model"], type: parsed.options["--type"])
        let coordinator = opened.coordinator
        guard let entity = coordinator.managedObjectModel.entitiesByName[entityName] else {
            throw UsageError("the model has no entity \(entityName); it has \(coordinator.managedObjectModel.entitiesByName.keys.sorted().joined(separator: ", "))")
        }
        let request = NSFetchRequest<NSManagedObject>(entityName: entityName)
        if let format = parsed.options["--where"] {
            request.predicate = try NSPredicate.parse(format: format)
        }
        if let sort = parsed.options["--sort"] {
            request.sortDescriptors = try sortDescriptors(sort, entity: entity)
        }
        if let limit = parsed.options["--limit"] {
            guard let value = Int(limit), value >= 0 else { throw UsageError("--limit takes a whole number") }
            request.fetchLimit = value
        }
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let objects = try context.performAndWait { try context.fetch(request) }
        var lines = objects.map { ObjectPrinting.line(for: $0, entity: entity) }
        let modelNote = parsed.options["--model"] == nil ? "; model: \(opened.modelSource)" : ""
        lines.append("(\(objects.count) \(entityName) object\(objects.count == 1 ? "" : "s")\(modelNote))")
        return lines
    }
}

extension QueryCommand {
    /// `--sort`'s comma-separated keys (a leading - sorts descending), each checked against the entity as
    /// `--where`'s keys are, so a key the entity lacks is the same clear error.
    static func sortDescriptors(_ text: String, entity: NSEntityDescription) throws -> [NSSortDescriptor] {
        try text.split(separator: ",").map { item in
            let descending = item.hasPrefix("-")
            let key = String(descending ? item.dropFirst() : item)
            guard !key.isEmpty else { throw UsageError("--sort has an empty key") }
            try NSPredicate(format: "%K != nil", key).validateKeys(against: entity)
            return NSSortDescriptor(key: key, ascending: !descending)
        }
    }
}

/// One line per object: its URI, then its attributes and to-one destinations.
enum ObjectPrinting {
    static func line(for object: NSManagedObject, entity: NSEntityDescription) -> String {
        var parts: [String] = []
        for property in object.entity.layout.allProperties where !property.isTransient {
            if let relationship = property as? NSRelationshipDescription {
                if relationship.isToMany { continue }
                let target = (object.value(forKey: property.name) as? NSManagedObject)?.objectID.uriRepresentation().lastPathComponent
                parts.append("\(property.name)=\(target ?? "nil")")
            } else {
                parts.append("\(property.name)=\(describe(object.value(forKey: property.name)))")
            }
        }
        let id = object.objectID.uriRepresentation()
        return "\(id.pathComponents.suffix(2).joined(separator: "/")) \(parts.joined(separator: " "))"
    }

    static func describe(_ value: Any?) -> String {
        switch value {
        case nil: return "nil"
        case let string as String: return "\"\(string)\""
        case let data as Data: return "<\(data.count) bytes>"
        case let date as Date: return ISO8601DateFormatter().string(from: date)
        case let some?: return "\(some)"
        }
    }
}
