import CoreData

/// One predicate, one meaning: a fetch with a predicate returns exactly the objects for which
/// `NSPredicate.evaluate(with:)` is true, on every store.
///
/// The case saves a fixed data set (strings that differ in case and accents, empty strings, nils, numbers of
/// every attribute type, dates, UUIDs, to-one, to-many and many-to-many relationships), then fetches each of a
/// few thousand generated predicates and compares the result with the objects, fetched without a predicate,
/// that the predicate evaluates true for in memory. The generator is deterministic (a fixed seed): the same
/// predicates run on every store and in every run.
enum PredicateCases {
    /// How many predicates the differential case fetches per entity.
    static let itemPredicateCount = 2200
    static let ownerPredicateCount = 1100

    /// Saves the fixed data set and returns a differential on a context that reads it back (after a reopen
    /// where the store keeps a file).
    static func seededDifferential(_ env: ConformanceEnvironment) throws -> PredicateDifferential {
        let coordinator = try env.openCoordinator()
        let seeding = env.context(coordinator)
        try seeding.performAndWait {
            try PredicateData.populate(seeding)
            try seeding.save()
        }
        let reading = try env.reopenedContext(or: coordinator)
        return try reading.performAndWait { try PredicateDifferential(context: reading) }
    }

    static let all: [ConformanceCase] = [
        ConformanceCase("fetch/predicates-agree-with-evaluate") { env in
            let differential = try seededDifferential(env)
            try differential.context.performAndWait {
                var generator = PredicateGenerator(seed: 0x0517_0003, objects: differential.arguments)
                var failures: [String] = []
                for _ in 0..<itemPredicateCount {
                    failures += try differential.check(generator.predicate(for: .item), entity: "Item")
                }
                for _ in 0..<ownerPredicateCount {
                    failures += try differential.check(generator.predicate(for: .owner), entity: "Owner")
                }
                let total = itemPredicateCount + ownerPredicateCount
                try env.expect(failures.isEmpty, "\(failures.count) of \(total) predicates fetch other objects than evaluate(with:) selects:\n"
                               + failures.prefix(15).joined(separator: "\n"))
            }
        },
        ConformanceCase("fetch/mutated-predicates-never-trap") { env in
            let differential = try seededDifferential(env)
            try differential.context.performAndWait {
                var generator = PredicateGenerator(seed: 0x0517_0017, objects: differential.arguments)
                var mutator = PredicateMutator(seed: 0x0517_0018)
                var failures: [String] = []
                var outcomes: [PredicateDifferential.MutatedOutcome: Int] = [:]
                for index in 0..<mutatedPredicateCount {
                    let target: PredicateGenerator.Target = index % 3 == 2 ? .owner : .item
                    let generated = generator.predicate(for: target)
                    let mutated = (mutator.mutate(generated.format), generated.arguments)
                    let (outcome, failure) = differential.checkMutated(mutated, entity: target == .owner ? "Owner" : "Item")
                    outcomes[outcome, default: 0] += 1
                    failures += failure.map { [$0] } ?? []
                }
                try env.expect(failures.isEmpty, "\(failures.count) of \(mutatedPredicateCount) mutated predicates fetch other objects than evaluate(with:) selects, or fail without a Cocoa error:\n"
                               + failures.prefix(15).joined(separator: "\n"))
                // The mutations must leave enough formats that parse for the fetches to be exercised.
                try env.expect((outcomes[.fetched] ?? 0) > mutatedPredicateCount / 10, "too few mutated predicates were fetched: \(outcomes)")
            }
        },
    ]

    /// How many mutated predicates `fetch/mutated-predicates-never-trap` tries per store: 300, or the number in
    /// `COREDATA_FUZZ_ITERATIONS` for a longer run.
    static var mutatedPredicateCount: Int {
        ProcessInfo.processInfo.environment["COREDATA_FUZZ_ITERATIONS"].flatMap { Int($0) }.map { max(1, $0) } ?? 300
    }
}

/// Random damage to a predicate format: characters removed, swapped or repeated, and fragments of the
/// predicate language (operators, keys of the conformance model, quotes, brackets, aggregates, numbers)
/// inserted or substituted. Deterministic for a seed.
struct PredicateMutator {
    static let fragments = [
        "(", ")", "{", "}", "[", "]", ",", ".", "==", "=", "<", ">=", "!=", "!", "&&", "||", "AND", "OR", "NOT", "ANY",
        "ALL", "NONE", "IN", "BETWEEN", "LIKE", "MATCHES", "CONTAINS", "BEGINSWITH", "[cd]", "[c]", "@count", "@sum",
        "@avg", "@max", ".@min", "%@", "%K", "'", "\"", "\\", "*", "?", "-", "/", "+", "1e999", "-9223372036854775808",
        "0x10", "SUBQUERY(items, $i, $i.rank > 1)", "$i", "SELF", "nil", "NULL", "TRUEPREDICATE", "FALSEPREDICATE",
        " ", "é", "name", "string", "rank", "int16", "decimal", "double", "date", "uuid", "data", "uri", "owner",
        "items", "tags", "label", "chapters", "profile", "bio", "FIRST", "LAST", "SIZE", "CAST(", "'NSDate')", "0",
        "1.5", "''", "'a*'", "nosuchkey", "owner.nosuchkey", "items.nosuchkey",
    ]

    private var random: SplitMix
    init(seed: UInt64) { random = SplitMix(seed: seed) }

    private mutating func below(_ count: Int) -> Int { count <= 0 ? 0 : Int(random.next() % UInt64(count)) }

    /// Words that can stand for each other and keep a format parseable (mostly): operators, quantifiers,
    /// keys of the conformance model, compound operators.
    static let exchangeable: [[String]] = [
        ["==", "!=", "<", "<=", ">", ">=", "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "MATCHES", "IN", "=", "<>",
         "LIKE[c]", "==[cd]", "CONTAINS[d]", "BEGINSWITH[cd]"],
        ["ANY", "ALL", "NONE", "SOME"],
        ["name", "string", "rank", "int16", "int32", "int64", "decimal", "double", "float", "flag", "date", "uuid",
         "data", "uri", "owner", "owner.name", "tags", "tags.label", "items", "items.rank", "nosuchkey", "SELF"],
        ["AND", "OR", "&&", "||"],
        ["TRUEPREDICATE", "FALSEPREDICATE"],
    ]

    /// `format` with one or two random changes: half the time a word exchanged for one of its kind (a
    /// predicate that still parses but compares other things), otherwise characters damaged.
    mutating func mutate(_ format: String) -> String {
        random.next() % 2 == 0 ? exchangeWords(format) : damageCharacters(format)
    }

    private mutating func exchangeWords(_ format: String) -> String {
        var words = format.components(separatedBy: " ")
        for _ in 0...below(2) {
            let candidates = words.indices.filter { index in Self.exchangeable.contains { $0.contains(words[index]) } }
            guard !candidates.isEmpty else { break }
            let index = candidates[below(candidates.count)]
            guard let kind = Self.exchangeable.first(where: { $0.contains(words[index]) }) else { break }
            words[index] = kind[below(kind.count)]
        }
        return words.joined(separator: " ")
    }

    private mutating func damageCharacters(_ format: String) -> String {
        var characters = Array(format)
        for _ in 0...below(2) {
            let position = below(characters.count + 1)
            let fragment = Array(Self.fragments[below(Self.fragments.count)])
            switch random.next() % 5 {
            case 0 where !characters.isEmpty:
                let end = min(characters.count, position + 1 + below(4))
                if position < end { characters.removeSubrange(position..<end) }
            case 1:
                characters.insert(contentsOf: fragment, at: position)
            case 2 where characters.count > 1 && position < characters.count:
                characters.swapAt(position, below(characters.count))
            case 3 where position < characters.count:
                let end = min(characters.count, position + below(8))
                characters.insert(contentsOf: characters[position..<end], at: position)
            default:
                if position < characters.count { characters.replaceSubrange(position...position, with: fragment) }
                else { characters.append(contentsOf: fragment) }
            }
        }
        return String(characters)
    }
}

/// Fetches predicates and compares the result with in-memory evaluation on the objects fetched without one.
/// Made and used on its context's queue (inside `context.performAndWait`).
struct PredicateDifferential {
    let context: NSManagedObjectContext
    /// Every saved object by entity name, fetched without a predicate.
    let objects: [String: [NSManagedObject]]
    /// Objects predicates compare with (`owner == %@`, `%@ IN tags`).
    let arguments: PredicateGenerator.Objects

    init(context: NSManagedObjectContext) throws {
        self.context = context
        var objects: [String: [NSManagedObject]] = [:]
        for entity in ["Item", "Owner", "Tag"] {
            let request = NSFetchRequest<NSManagedObject>(entityName: entity)
            request.sortDescriptors = [NSSortDescriptor(key: entity == "Tag" ? "label" : "name", ascending: true)]
            objects[entity] = try context.fetch(request)
        }
        self.objects = objects
        arguments = PredicateGenerator.Objects(owners: objects["Owner"] ?? [], tags: objects["Tag"] ?? [], items: objects["Item"] ?? [])
    }

    /// A description of each way the fetch of `predicate` differs from evaluation: the objects, then the count.
    func check(_ generated: (format: String, arguments: [Any]), entity: String) throws -> [String] {
        let predicate = NSPredicate(format: generated.format, argumentArray: generated.arguments)
        let shown = "\(entity) [\(generated.format)] \(generated.arguments.map { "\($0)" })"
        guard predicate.parseError == nil else { return ["\(shown): the generated format does not parse: \(predicate.parseError!)"] }
        let expected = Set((objects[entity] ?? []).filter { predicate.evaluate(with: $0) }.map(\.objectID))
        let request = NSFetchRequest<NSManagedObject>(entityName: entity)
        request.predicate = predicate
        let fetched: Set<NSManagedObjectID>
        let counted: Int
        do {
            fetched = Set(try context.fetch(request).map(\.objectID))
            counted = try context.count(for: request)
        } catch {
            return ["\(shown): the fetch threw \(error)"]
        }
        var failures: [String] = []
        if fetched != expected {
            failures.append("\(shown): evaluate(with:) selects \(names(expected)), the fetch returns \(names(fetched))")
        }
        if counted != expected.count {
            failures.append("\(shown): evaluate(with:) selects \(expected.count), count(for:) says \(counted)")
        }
        return failures
    }

    /// What became of a mutated format.
    enum MutatedOutcome: Hashable { case unparsed, fetched, refused }

    /// Checks a mutated, possibly invalid format: it either fails to parse (with a parse error), or its fetch
    /// throws a Cocoa error (a key the entity lacks, an operator the store cannot run), or the fetch and
    /// `count(for:)` return exactly what `evaluate(with:)` selects. A description of the failure, if any.
    func checkMutated(_ mutated: (format: String, arguments: [Any]), entity: String) -> (MutatedOutcome, String?) {
        let predicate = NSPredicate(format: mutated.format, argumentArray: mutated.arguments)
        let shown = "\(entity) [\(mutated.format)] \(mutated.arguments.map { "\($0)" })"
        guard predicate.parseError == nil else { return (.unparsed, nil) }
        let request = NSFetchRequest<NSManagedObject>(entityName: entity)
        request.predicate = predicate
        let fetched: Set<NSManagedObjectID>
        do {
            fetched = Set(try context.fetch(request).map(\.objectID))
        } catch let error as NSError where error.domain == NSCocoaErrorDomain {
            if let counted = try? context.count(for: request) {
                return (.refused, "\(shown): the fetch threw \(error.code) but count(for:) returned \(counted)")
            }
            return (.refused, nil)
        } catch {
            return (.refused, "\(shown): the fetch threw \(error), not a Cocoa error")
        }
        let expected = Set((objects[entity] ?? []).filter { predicate.evaluate(with: $0) }.map(\.objectID))
        if fetched != expected {
            return (.fetched, "\(shown): evaluate(with:) selects \(names(expected)), the fetch returns \(names(fetched))")
        }
        do {
            let counted = try context.count(for: request)
            if counted != expected.count { return (.fetched, "\(shown): evaluate(with:) selects \(expected.count), count(for:) says \(counted)") }
        } catch {
            return (.fetched, "\(shown): the fetch succeeded but count(for:) threw \(error)")
        }
        return (.fetched, nil)
    }

    private func names(_ ids: Set<NSManagedObjectID>) -> String {
        let labels = ids.compactMap { id -> String? in
            guard let object = try? context.existingObject(with: id) else { return nil }
            let key = object.entity.name == "Tag" ? "label" : "name"
            return "\(object.entity.name ?? "?"):\((object.value(forKey: key) as? String).map { "'\($0)'" } ?? "nil")"
        }
        return "\(ids.count) \(labels.sorted())"
    }
}

/// The saved data: deterministic, with the values where stores tend to differ (every Item has the same
/// values on every store and in every run).
enum PredicateData {
    static let strings: [String?] = [nil, "", "item", "Item 2", "ITEM", "émile", "Emile", "a*b", "a?c", "50%", "[x]", "100",
                                     "É", "e", "ann", "Ann", "x_y", "line\nbreak"]
    static let uuids = [UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!, UUID(uuidString: "00000000-0000-0000-0000-000000000001")!]
    static let tagLabels: [String?] = ["red", "Red", "", "blüe", nil]
    static let chapterTitles = ["One", "two", "", "Émile"]

    /// Inserts owners, tags and items into `context` (unsaved).
    static func populate(_ context: NSManagedObjectContext) throws {
        var random = SplitMix(seed: 0xDA7A)
        func pick<T>(_ values: [T]) -> T { values[Int(random.next() % UInt64(values.count))] }
        func maybe<T>(_ value: T) -> T? { random.next() % 5 == 0 ? nil : value }
        let owners = ["Ann", "bob", "Émile", "ann", ""].map { Fixtures.owner(context, $0) }
        for (index, owner) in owners.enumerated() where index < 3 {
            for title in chapterTitles.prefix(index + 1) { addChapter(owner, Fixtures.chapter(context, title)) }
            if index != 1 {
                let profile = NSEntityDescription.insertNewObject(forEntityName: "Profile", into: context)
                profile.setValue(index == 0 ? "Writes" : nil, forKey: "bio")
                owner.setValue(profile, forKey: "profile")
            }
        }
        let tags = tagLabels.map { label -> NSManagedObject in
            let tag = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: context)
            tag.setValue(label, forKey: "label")
            return tag
        }
        for index in 0..<26 {
            let item = Fixtures.item(context, pick(strings), rank: Int64(index % 9) - 3, special: index % 8 == 7)
            if index % 6 == 5 { item.setValue(nil, forKey: "rank") }
            item.setValue(pick(strings), forKey: "string")
            item.setValue(maybe(Int16(truncatingIfNeeded: index % 4)), forKey: "int16")
            item.setValue(maybe(Int32(index % 5) - 2), forKey: "int32")
            item.setValue(maybe(Int64(index) * 1_000_000_007), forKey: "int64")
            item.setValue(maybe(Decimal(index % 7) / 4 - 1), forKey: "decimal")
            item.setValue(maybe(Double(index % 11) / 2 - 2), forKey: "double")
            item.setValue(maybe(Float(index % 3) * 0.25), forKey: "float")
            item.setValue(maybe(index % 3 == 0), forKey: "flag")
            item.setValue(maybe(Date(timeIntervalSinceReferenceDate: Double(index % 4) * 86_400)), forKey: "date")
            item.setValue(maybe(pick(uuids)), forKey: "uuid")
            item.setValue(maybe(Data(repeating: UInt8(index % 3), count: index % 2)), forKey: "data")
            item.setValue(maybe(URL(string: "https://example.com/\(index % 3)")!), forKey: "uri")
            item.setValue(index % 5 == 4 ? nil : owners[index % 4], forKey: "owner")
            let chosen = tags.enumerated().filter { (offset, _) in (index >> offset) & 1 == 1 && (index + offset) % 3 != 0 }.map(\.element)
            item.setValue(Set(chosen), forKey: "tags")
            if index % 8 == 7 { item.setValue(Int32(index / 8), forKey: "level") }
        }
    }

    private static func addChapter(_ owner: NSManagedObject, _ chapter: NSManagedObject) {
        let chapters = (owner.value(forKey: "chapters") as? NSOrderedSet)?.mutableCopy() as? NSMutableOrderedSet ?? NSMutableOrderedSet()
        chapters.add(chapter)
        owner.setValue(chapters, forKey: "chapters")
    }
}

/// Generates valid predicates over the conformance model: every operator, constants on either side, `[c]`, `[d]`,
/// empty strings, nil, mixed number types and values of the wrong kind, to-many key paths with and without
/// `ANY`/`ALL`/`NONE`, `IN` with arrays and strings, `BETWEEN`, aggregates, `SUBQUERY`, and `AND`/`OR`/`NOT`.
struct PredicateGenerator {
    /// The objects arguments can be.
    struct Objects {
        let owners: [NSManagedObject]
        let tags: [NSManagedObject]
        let items: [NSManagedObject]
    }

    enum Target { case item, owner }
    enum Kind: CaseIterable { case string, number, date, uuid, data, url }

    private var random: SplitMix
    private let objects: Objects
    private var arguments: [Any] = []

    init(seed: UInt64, objects: Objects) {
        random = SplitMix(seed: seed)
        self.objects = objects
    }

    /// A new predicate format for the target entity, with its arguments.
    mutating func predicate(for target: Target) -> (format: String, arguments: [Any]) {
        arguments = []
        let format = compound(target, depth: 0)
        return (format, arguments)
    }

    // MARK: Structure

    private mutating func chance(_ percent: UInt64) -> Bool { random.next() % 100 < percent }
    private mutating func pick<T>(_ values: [T]) -> T { values[Int(random.next() % UInt64(values.count))] }

    private mutating func compound(_ target: Target, depth: Int, prefix: String = "") -> String {
        guard depth < 2, chance(30) else { return comparison(target, prefix: prefix) }
        switch random.next() % 4 {
        case 0: return "(\(compound(target, depth: depth + 1, prefix: prefix)) AND \(compound(target, depth: depth + 1, prefix: prefix)))"
        case 1: return "(\(compound(target, depth: depth + 1, prefix: prefix)) OR \(compound(target, depth: depth + 1, prefix: prefix)))"
        case 2: return "NOT (\(compound(target, depth: depth + 1, prefix: prefix)))"
        default: return chance(50) ? "TRUEPREDICATE" : "FALSEPREDICATE"
        }
    }

    private mutating func comparison(_ target: Target, prefix: String) -> String {
        switch target {
        case .item:
            switch random.next() % 10 {
            case 0: return object(prefix: prefix)
            case 1: return toMany(["tags.label": .string, "owner.items.rank": .number, "owner.items.name": .string], outer: Self.itemKeys, prefix: prefix)
            case 2: return keyAgainstKey(["name", "string", "owner.name"], ["rank", "int16", "int32", "decimal", "double", "float", "flag"], prefix: prefix)
            default: return scalar(Self.itemKeys, prefix: prefix)
            }
        case .owner:
            switch random.next() % 6 {
            case 0: return subquery()
            case 1, 2: return toMany(["items.name": .string, "items.rank": .number, "items.double": .number, "items.flag": .number,
                                      "chapters.title": .string, "items.tags.label": .string, "items.date": .date], outer: Self.ownerKeys, prefix: prefix)
            default: return scalar(Self.ownerKeys, prefix: prefix)
            }
        }
    }

    static let itemKeys: [(String, Kind)] = [
        ("name", .string), ("string", .string), ("owner.name", .string), ("owner.profile.bio", .string),
        ("rank", .number), ("int16", .number), ("int32", .number), ("int64", .number), ("decimal", .number),
        ("double", .number), ("float", .number), ("flag", .number), ("owner.items.@count", .number),
        ("date", .date), ("uuid", .uuid), ("data", .data), ("uri", .url),
    ]
    static let ownerKeys: [(String, Kind)] = [
        ("name", .string), ("profile.bio", .string), ("items.@count", .number), ("items.@sum.rank", .number),
        ("items.@avg.double", .number), ("items.@max.rank", .number), ("items.@min.double", .number),
        ("chapters.@count", .number), ("items.@min.name", .string), ("items.@max.string", .string),
        ("items.name.@count", .number),
    ]

    // MARK: Comparisons

    /// `key op constant` or `constant op key`, with the constant mostly of the key's kind.
    private mutating func scalar(_ keys: [(String, Kind)], prefix: String) -> String {
        let (key, kind) = pick(keys)
        let path = prefix + key
        let op = pick(Self.operators)
        let options = self.options(for: op, kind: kind)
        if op != "BETWEEN", chance(25) {
            // The constant on the left; IN then asks whether the constant is in (a substring of) the key's value.
            let lhs = constant(for: op == "IN" ? "==" : op, kind: chance(80) ? kind : pick(Kind.allCases))
            return "\(lhs) \(op)\(options) \(path)"
        }
        return "\(path) \(op)\(options) \(constant(for: op, kind: chance(80) ? kind : pick(Kind.allCases)))"
    }

    /// A to-many key path, with or without a quantifier, compared with a constant or a key path of the
    /// object itself (`ANY items.name == name`: the right side is read from the object, not the element).
    private mutating func toMany(_ paths: [String: Kind], outer: [(String, Kind)], prefix: String) -> String {
        let (path, kind) = pick(paths.sorted { $0.key < $1.key })
        let quantifier = pick(["", "", "ANY ", "ALL ", "NONE ", "SOME "])
        let op = pick(Self.operators)
        let options = self.options(for: op, kind: kind)
        let sameKind = outer.filter { $0.1 == kind }
        if op != "BETWEEN", op != "LIKE", !sameKind.isEmpty, chance(15) {
            return "\(quantifier)\(prefix)\(path) \(op)\(options) \(prefix)\(pick(sameKind).0)"
        }
        return "\(quantifier)\(prefix)\(path) \(op)\(options) \(constant(for: op, kind: chance(85) ? kind : pick(Kind.allCases)))"
    }

    /// Two key paths compared, of the same kind or not.
    private mutating func keyAgainstKey(_ strings: [String], _ numbers: [String], prefix: String) -> String {
        let op = pick(["==", "!=", "<", "<=", ">", ">=", "BEGINSWITH", "CONTAINS", "ENDSWITH", "LIKE", "IN", "MATCHES"])
        let left = chance(70) ? pick(strings) : pick(numbers)
        let right = chance(70) ? pick(strings) : pick(numbers)
        return "\(prefix)\(left) \(op)\(chance(40) ? pick(["[c]", "[d]", "[cd]"]) : "") \(prefix)\(right)"
    }

    /// Comparisons with objects and relationships as wholes.
    private mutating func object(prefix: String) -> String {
        let owner = pick(objects.owners), tag = pick(objects.tags), item = pick(objects.items)
        switch random.next() % 9 {
        case 0: arguments.append(owner); return "\(prefix)owner == %@"
        case 1: arguments.append(owner); return "%@ != \(prefix)owner"
        case 2: return "\(prefix)owner \(pick(["==", "!="])) nil"
        case 3: arguments.append(tag); return "%@ IN \(prefix)tags"
        case 4: arguments.append(tag); return "\(prefix)tags CONTAINS %@"
        case 5: arguments.append(tag); return "\(pick(["ANY", "NONE", "ALL"])) \(prefix)tags == %@"
        case 6: arguments.append([item, pick(objects.items)]); return "SELF IN %@"
        case 7: return "\(prefix)tags.@count \(pick(["==", ">", "<="])) \(random.next() % 4)"
        default: arguments.append(item); return "SELF \(pick(["==", "!="])) %@"
        }
    }

    /// `SUBQUERY(items, $i, …).@count op n`, or over chapters.
    private mutating func subquery() -> String {
        let count = "\(pick(["==", "!=", ">", "<", ">="])) \(random.next() % 3)"
        if chance(25) {
            return "SUBQUERY(chapters, $c, $c.title \(pick(["==[c]", "BEGINSWITH", "!=", "CONTAINS[cd]"])) \(constant(for: "==", kind: .string))).@count \(count)"
        }
        return "SUBQUERY(items, $i, \(compound(.item, depth: 1, prefix: "$i."))).@count \(count)"
    }

    static let operators = ["==", "!=", "<", "<=", ">", ">=", "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "MATCHES", "IN", "BETWEEN", "=", "<>"]

    private mutating func options(for op: String, kind: Kind) -> String {
        guard chance(op == "BEGINSWITH" || op == "ENDSWITH" || op == "CONTAINS" || op == "LIKE" || op == "MATCHES" || kind == .string ? 50 : 10) else { return "" }
        return pick(["[c]", "[d]", "[cd]"])
    }

    // MARK: Constants

    /// A right-hand side for the operator: a literal or an argument, mostly of `kind`.
    private mutating func constant(for op: String, kind: Kind) -> String {
        switch op {
        case "IN":
            switch random.next() % 4 {
            case 0:
                let string = pick(["item ITEM", "", "annÉmile", "a*b x_y", "100"])
                arguments.append(string)
                return "%@"
            case 1:
                arguments.append((0..<Int(random.next() % 4)).map { _ in argument(kind: chance(80) ? kind : pick(Kind.allCases)) })
                return "%@"
            case 2:
                return pick(["'item ITEM'", "''", "'Emile émile'", "'e'"])
            default:
                let items = (0..<Int(random.next() % 4)).map { _ in literal(kind: chance(80) ? kind : pick(Kind.allCases)) }
                return "{" + items.joined(separator: ", ") + "}"
            }
        case "BETWEEN":
            if chance(15) { return pick(["{20, 40 / 40}", "{-1, 1 + 1}", "{'a', 'f'}", "{nil, 5}"]) }
            if chance(25) {
                arguments.append([argument(kind: kind), argument(kind: kind)])
                return "%@"
            }
            return "{\(literal(kind: kind)), \(literal(kind: kind))}"
        case "LIKE":
            return chance(80) ? pick(["'*'", "'a*'", "'*m*'", "'?tem*'", "'item'", "''", "'a?c'", "'*%'", "'[x]'", "'É*'", "'x_y'", "'a\\\\*b'", "-1e-999", "1"])
                : literal(kind: kind)
        case "MATCHES":
            return chance(80) ? pick(["'i.*'", "'.*m.*'", "'[a-z]+'", "'\\\\w+'", "'\\\\D*'", "'.'", "''", "'[É]'", "'(?i)item'", "'line.break'", "'a|ann'", "1"])
                : literal(kind: kind)
        default:
            if chance(30) {
                arguments.append(argument(kind: kind))
                return "%@"
            }
            return literal(kind: kind)
        }
    }

    /// A literal in the format language.
    private mutating func literal(kind: Kind) -> String {
        if chance(8) { return "nil" }
        switch kind {
        case .string: return pick(["''", "'a'", "'A'", "'item'", "'ITEM'", "'Item 2'", "'e'", "'É'", "'é'", "'emile'", "'ann'", "'100'", "'[x]'", "'*'", "'m'", "'x_y'", "'50%'"])
        case .number: return pick(["0", "1", "-1", "2.5", "-0.5", "100", "3", "-1e-999", "1e3", "0x10", "YES", "NO", "-3", "1000000007", "0.25"])
        case .date: return pick(["CAST(0, 'NSDate')", "CAST(86400, 'NSDate')", "CAST(172800.5, 'NSDate')"])
        case .uuid: return pick(["'E621E1F8-C36C-495A-93FC-0C247A3E6E5F'", "CAST('E621E1F8-C36C-495A-93FC-0C247A3E6E5F', 'NSUUID')"])
        case .data, .url:
            // No literal syntax: an argument.
            arguments.append(argument(kind: kind))
            return "%@"
        }
    }

    /// An argument value: Swift and Foundation types of the kind.
    private mutating func argument(kind: Kind) -> Any {
        if chance(5) { return NSNull() }
        switch kind {
        case .string: return pick(["", "a", "ITEM", "émile", "Ann", "100", "e", "x_y"])
        case .number:
            return pick([Int(1), Int16(-3), Int32(2), Int64(1_000_000_007), 2.5, Float(0.25), Decimal(string: "-0.75")!, NSNumber(value: true),
                         NSNumber(value: 0), NSDecimalNumber(string: "1.5"), UInt8(3), -0.0] as [Any])
        case .date: return Date(timeIntervalSinceReferenceDate: pick([0, 86_400, 100_000]))
        case .uuid: return pick([PredicateData.uuids[0], PredicateData.uuids[1], UUID(uuidString: "11111111-2222-3333-4444-555555555555")!] as [Any])
        case .data: return pick([Data(), Data([0]), Data([1]), Data([2, 2])])
        case .url: return pick([URL(string: "https://example.com/1")!, URL(string: "https://example.com/7")!, URL(string: "https://example.com/")!])
        }
    }
}
