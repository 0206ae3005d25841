import CoreData

/// A batch insert that updates stored objects by a uniqueness constraint (Apple's upsert) at the size of a feed
/// re-imported in full, as Apple's Earthquakes sample does: more rows than a store writes in one statement,
/// rows repeating a key far apart in the request, new and existing keys mixed.
///
/// The case uses a model of its own (`Quake`, one constraint on `code`, and `Aftershock` inheriting it), so the
/// shared model's cases are unaffected. The constraint cases with two constraints are in `ConstraintCases`.
enum BatchUpsertCases {
    static func model() -> NSManagedObjectModel {
        let quake = NSEntityDescription(name: "Quake")
        quake.properties = [
            NSAttributeDescription(name: "code", type: .string),
            NSAttributeDescription(name: "magnitude", type: .double),
            NSAttributeDescription(name: "place", type: .string),
        ]
        quake.uniquenessConstraints = [["code"]]
        let aftershock = NSEntityDescription(name: "Aftershock")
        quake.subentities = [aftershock]
        return NSManagedObjectModel(entities: [quake, aftershock])
    }

    /// A feed row: code `q-<number>`, four digits.
    static func row(_ number: Int, magnitude: Double, place: String) -> [String: Any] {
        ["code": String(format: "q-%04d", number), "magnitude": magnitude, "place": place]
    }

    /// Every `Quake` and `Aftershock` as code → "magnitude place".
    static func quakes(_ context: NSManagedObjectContext) throws -> [String: String] {
        var quakes: [String: String] = [:]
        for quake in try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Quake")) {
            let magnitude = (quake.value(forKey: "magnitude") as? NSNumber)?.doubleValue ?? .nan
            quakes[quake.value(forKey: "code") as? String ?? "-"] = "\(magnitude) \(quake.value(forKey: "place") as? String ?? "-")"
        }
        return quakes
    }

    /// Fails the case unless `actual` is `expected`, naming the first codes that differ rather than both tables.
    static func expectQuakes(_ env: ConformanceEnvironment, _ actual: [String: String], _ expected: [String: String], _ what: String,
                             file: StaticString = #fileID, line: UInt = #line) throws {
        let differing = Set(actual.keys).union(expected.keys).filter { actual[$0] != expected[$0] }.sorted()
        let examples = differing.prefix(5).map { "\($0): expected \(expected[$0] ?? "no object"), got \(actual[$0] ?? "no object")" }
        try env.expect(differing.isEmpty, "\(what): \(differing.count) codes differ (\(examples.joined(separator: "; ")))", file: file, line: line)
    }

    static let manyRows = ConformanceCase("batch-insert/upsert-many-rows", adopting: [.batchInserting]) { env in
        let coordinator = try env.openCoordinator(model: model())
        let context = env.context(coordinator)
        context.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
        func insert(_ objects: [[String: Any]]) throws -> [NSManagedObjectID] {
            let request = NSBatchInsertRequest(entityName: "Quake", objects: objects)
            request.resultType = .objectIDs
            return try env.require((try context.execute(request) as? NSBatchInsertResult)?.result as? [NSManagedObjectID], "object IDs")
        }
        // What the store must hold: the rows applied one by one, the last row of a code winning.
        var expected: [String: String] = [:]
        func apply(_ rows: [[String: Any]]) {
            for row in rows { expected[row["code"] as? String ?? "-"] = "\(row["magnitude"] as? Double ?? .nan) \(row["place"] as? String ?? "-")" }
        }

        let feed = (0..<1_200).map { row($0, magnitude: Double($0), place: "first") }
        var reimport: [[String: Any]] = (0..<1_200).map { row($0, magnitude: Double($0) + 0.5, place: "again") }  // every stored code
        reimport += (0..<100).map { row(1_000 + $0 * 2, magnitude: -Double($0) - 1, place: "later") }  // stored codes again, close by
        reimport += (0..<50).map { row($0 * 7, magnitude: -Double($0) - 1, place: "later") }           // stored codes again, far apart
        reimport += (1_200..<1_400).map { row($0, magnitude: Double($0), place: "new") }   // new codes
        reimport += [row(1_250, magnitude: 99, place: "new twice"), row(3, magnitude: 33, place: "last")]
        try context.performAndWait {
            let aftershock = NSEntityDescription.insertNewObject(forEntityName: "Aftershock", into: context)
            aftershock.setValue("q-9999", forKey: "code")
            aftershock.setValue(1.0, forKey: "magnitude")
            try context.save()
            try env.expectEqual(Set(try insert(feed)).count, 1_200, "the first import writes every row")
            let ids = try insert(reimport)
            try env.expectEqual(Set(ids).count, 1_400, "one object per code: 1,200 updated, 200 new")
            try env.expect(ids.allSatisfy { !$0.isTemporaryID }, "the IDs are permanent")
        }
        apply(feed)
        apply(reimport)
        expected["q-9999"] = "1.0 -"
        try expectQuakes(env, try env.withNewContext(coordinator, quakes), expected, "every code holds its last row's values, read through a new context")

        try context.performAndWait {
            let error = try env.expectError([NSManagedObjectConstraintMergeError], "a row with the code of a saved object of a subentity") {
                _ = try insert([row(5, magnitude: 555, place: "refused"), ["code": "q-9999", "magnitude": 2.0]])
            }
            try env.expect(error.localizedDescription.lowercased().contains("code"), "the message names the constraint: \(error.localizedDescription)")
        }
        try expectQuakes(env, try env.withNewContext(coordinator, quakes), expected, "the refused request wrote nothing")

        let reopened = try env.reopenedContext(or: coordinator, model: model())
        try reopened.performAndWait {
            try expectQuakes(env, try quakes(reopened), expected, "every code holds its last row's values after a reopen")
            try env.expectEqual(try reopened.count(for: NSFetchRequest<NSManagedObject>(entityName: "Aftershock")), 1,
                                "the subentity's object kept its entity")
        }
    }

    static let all: [ConformanceCase] = [manyRows]
}
