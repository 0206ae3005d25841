import CoreData
import CoreDataModelCommands
import Foundation

/// `coredata query <store> --entity <name> …`: fetches objects of an entity and prints them as a table, JSON,
/// JSON Lines or CSV (`QueryFormat`), or prints how many there are.
enum QueryCommand: Command {
    static let name = "query"
    static let summary = "fetch objects of an entity with a predicate, and print them (table, JSON, JSON Lines, CSV) or count them"
    static let usage = """
        usage: coredata query <store> --entity <name> [--where <predicate>] [--sort <key>[,-key…]] [--fields <key,…>]
                              [--limit <n>] [--offset <n>] [--format table|json|jsonl|csv] [--count]
                              [--var <name>=<value>…] [--model <model>] [--type sqlite|xml|binary]

          <store>              a SQLite, XML or binary store file, told by its content; read-only, nothing beside it
                               is created or changed
          --entity <name>      the entity to fetch (its subentities' objects too)
          --where <predicate>  an NSPredicate format, e.g. "age > 30 AND name BEGINSWITH[c] 'a'"
          --var <name>=<value> binds $name in --where (repeatable); the value is a literal of the predicate
                               language (30, 4.5, 'text', YES, nil, {1,2}), or else a string. A $variable
                               nothing binds is a usage error
          --sort <keys>        comma-separated keys; a leading - sorts descending
          --fields <keys>      the columns, comma-separated: properties or key paths across to-one relationships
                               (author.name); default: every stored attribute and relationship
          --limit <n>          at most n objects
          --offset <n>         skip the first n objects
          --format <format>    table (default): aligned columns, long values cut with …, IDs as Entity/pN;
                               json: an array of objects; jsonl: one object per line; csv: RFC 4180, CRLF lines.
                               json, jsonl and csv give each object "objectID" (its URI) and "entity" first
          --count              print only the number of matching objects (with --where, --limit, --offset)
          --model <model>      the model file; optional for a SQLite store that caches its model
          --type <type>        the store type, checked against the file's content

        Values: numbers as numbers, Booleans true/false, dates ISO 8601 in UTC, UUIDs, data as its length and
        first 16 bytes in hex, transformable values as JSON (their property list), a to-one as the destination's
        ID, a to-many as its destinations' IDs, nil as null (empty in table and csv). A key the entity does not
        have, in --where, --sort or --fields, is the same error. Exit status: 0 success, 1 failure (the store
        cannot be read, a key or predicate is wrong), 64 usage error. See Docs/Tool.md.
        """

    static func run(_ arguments: [String]) throws {
        StandardOutput.write(try report(arguments))
    }

    /// What the options ask for, checked.
    struct Options {
        var store: String
        var entityName: String
        var format = QueryFormat.table
        var counts = false
        var limit: Int?
        var offset: Int?

        init(_ parsed: ParsedArguments) throws {
            guard parsed.positional.count == 1, let store = parsed.positional.first else { throw UsageError("expected one store") }
            guard let entityName = parsed.options["--entity"] else { throw UsageError("--entity is required") }
            (self.store, self.entityName) = (store, entityName)
            if let name = parsed.options["--format"] {
                guard let format = QueryFormat(rawValue: name) else { throw UsageError("--format must be table, json, jsonl or csv, not \(name)") }
                self.format = format
            }
            counts = parsed.flags.contains("--count")
            if counts, parsed.options["--fields"] != nil { throw UsageError("--count prints only a number; it takes no --fields") }
            limit = try parsed.options["--limit"].map { try Self.count($0, option: "--limit") }
            offset = try parsed.options["--offset"].map { try Self.count($0, option: "--offset") }
        }

        private static func count(_ text: String, option: String) throws -> Int {
            guard let value = Int(text), value >= 0 else { throw UsageError("\(option) takes a whole number, not \(text)") }
            return value
        }
    }

    /// The text `run` prints.
    static func report(_ arguments: [String]) throws -> String {
        let parsed = try ParsedArguments(arguments, valued: ["--model", "--type", "--entity", "--where", "--sort", "--limit", "--offset",
                                                             "--fields", "--format", "--var"], flags: ["--count"],
                                            repeatable: ["--var"])
        let options = try Options(parsed)
        let opened = try StoreOpening.open(store: options.store, model: parsed.options["--model"], type: parsed.options["--type"])
        defer { opened.close() }
        let entity = try entity(named: options.entityName, in: opened.coordinator.managedObjectModel)
        let request = try fetchRequest(parsed, options: options, entity: entity)
        let fields = try parsed.options["--fields"].map { try QueryField.parse($0, entity: entity) } ?? QueryField.defaults(for: entity)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = opened.coordinator
        if options.counts {
            return "\(try context.performAndWait { try context.count(for: request) })\n"
        }
        let rows = try context.performAndWait {
            try context.fetch(request).map { object in
                QueryRow(objectID: object.objectID.uriRepresentation().absoluteString, entity: object.entity.name ?? "",
                         values: fields.map { $0.value(of: object) })
            }
        }
        let modelNote = parsed.options["--model"] == nil ? "; model: \(opened.modelSource)" : ""
        let footer = "(\(rows.count) \(options.entityName) object\(rows.count == 1 ? "" : "s")\(modelNote))"
        return options.format.render(rows, fields: fields.map(\.keyPath), footer: footer)
    }

    /// The entity the store's model names `name`.
    /// - Throws: a `UsageError` listing the model's entities (and the closest name) when there is none.
    static func entity(named name: String, in model: NSManagedObjectModel) throws -> NSEntityDescription {
        if let entity = model.entitiesByName[name] { return entity }
        let names = Set(model.entitiesByName.keys)
        let hint = Spelling.closest(to: name, among: names).map { "; did you mean \($0)?" } ?? ""
        throw UsageError("the model has no entity \(name) (it has \(names.sorted().joined(separator: ", ")))\(hint)")
    }

    /// The fetch request of `--where` (its `$variables` bound by `--var`), `--sort`, `--limit` and `--offset`,
    /// its keys checked against the entity.
    /// - Throws: a `UsageError` for a variable nothing binds or a `--var` nothing uses (`PredicateVariables`).
    static func fetchRequest(_ parsed: ParsedArguments, options: Options, entity: NSEntityDescription) throws -> NSFetchRequest<NSManagedObject> {
        let request = NSFetchRequest<NSManagedObject>(entityName: options.entityName)
        let variables = try PredicateVariables.bindings(parsed.repeated["--var"] ?? [])
        if let format = parsed.options["--where"] {
            let predicate = try PredicateVariables.bind(try NSPredicate.parse(format: format), variables)
            try predicate.validateKeys(against: entity)
            request.predicate = predicate
        } else if let name = variables.keys.sorted().first {
            throw UsageError("--var binds $\(name), but there is no --where")
        }
        if let sort = parsed.options["--sort"] {
            request.sortDescriptors = try sortDescriptors(sort, entity: entity)
        }
        if let limit = options.limit { request.fetchLimit = limit }
        if let offset = options.offset { request.fetchOffset = offset }
        return request
    }
}

extension QueryCommand {
    /// `--sort`'s comma-separated keys (a leading - sorts descending), each checked against the entity as
    /// `--where`'s keys are, so a key the entity lacks is the same clear error.
    static func sortDescriptors(_ text: String, entity: NSEntityDescription) throws -> [NSSortDescriptor] {
        try text.split(separator: ",", omittingEmptySubsequences: false).map { item in
            let descending = item.hasPrefix("-")
            let key = String(descending ? item.dropFirst() : item).trimmingCharacters(in: .whitespaces)
            guard !key.isEmpty else { throw UsageError("--sort has an empty key") }
            try NSPredicate(format: "%K != nil", key).validateKeys(against: entity)
            return NSSortDescriptor(key: key, ascending: !descending)
        }
    }
}
