import CoreData

/// Derived attributes after batch requests, on every store that computes them: a batch update, insert or
/// delete leaves each derived attribute equal to its derivation from the store's data, as Apple's SQLite store
/// does with its `Z_DA_` triggers inside the statement, without a save. The values are read through a context
/// that did not run the request (batch requests change no context), and again after a reopen.
///
/// The cases use `DerivedAttributeCases.model()` (`Writer`, `Volume`, `Leaf`).
enum DerivedAttributeBatchCases {
    typealias Derived = DerivedAttributeCases

    /// Saves writer Ada; volume "First" by Ada with leaves of 100, 20 and 3 words; volume "Second" with a
    /// leaf of 7 words; volume "Third" without leaves.
    static func saveLibrary(_ context: NSManagedObjectContext) throws {
        try context.performAndWait {
            let ada = Derived.insert("Writer", into: context, ["name": "Ada"])
            let first = Derived.insert("Volume", into: context, ["title": "First", "writer": ada])
            let second = Derived.insert("Volume", into: context, ["title": "Second"])
            Derived.insert("Volume", into: context, ["title": "Third"])
            for words in [100, 20, 3] { Derived.insert("Leaf", into: context, ["words": words, "volume": first]) }
            Derived.insert("Leaf", into: context, ["words": 7, "volume": second])
            try context.save()
        }
    }

    /// Each volume's derived values, by title, as a new context fetches them.
    struct Values: Equatable, CustomStringConvertible {
        var leafCount: Int64?
        var wordTotal: Int64?
        var writerName: String?
        var lowerTitle: String?
        var savedAt: Date?

        var description: String {
            "leafCount \(leafCount.map(String.init) ?? "nil"), wordTotal \(wordTotal.map(String.init) ?? "nil"), "
                + "writerName \(writerName ?? "nil"), lowerTitle \(lowerTitle ?? "nil"), savedAt \(savedAt.map { "\($0)" } ?? "nil")"
        }
    }

    static func values(_ context: NSManagedObjectContext) throws -> [String: Values] {
        try context.performAndWait {
            try Derived.volumes(context).mapValues { volume in
                Values(leafCount: Derived.integer(volume.value(forKey: "leafCount")), wordTotal: Derived.integer(volume.value(forKey: "wordTotal")),
                       writerName: volume.value(forKey: "writerName") as? String, lowerTitle: volume.value(forKey: "lowerTitle") as? String,
                       savedAt: volume.value(forKey: "savedAt") as? Date)
            }
        }
    }

    /// Checks the volumes' values now and after a reopen (`check` runs on both).
    static func expectValues(_ env: ConformanceEnvironment, _ coordinator: NSPersistentStoreCoordinator, model: NSManagedObjectModel,
                             _ check: ([String: Values], String) throws -> Void) throws {
        try check(try values(env.context(coordinator)), "")
        try check(try values(CompositeAttributeCases.reopened(env, coordinator, model: model)), " after a reopen")
    }

    static let all: [ConformanceCase] = [
        ConformanceCase("derived/after-batch-update", adopting: [.derivedAttributeComputing, .batchUpdating]) { env in
            let model = Derived.model()
            let coordinator = try env.openCoordinator(model: model)
            let context = env.context(coordinator)
            try saveLibrary(context)
            let before = try values(env.context(coordinator))
            Thread.sleep(forTimeInterval: 0.05)
            let batchStart = Date()
            try context.performAndWait {
                let leaves = NSBatchUpdateRequest(entityName: "Leaf")
                leaves.predicate = NSPredicate(format: "words == 20")
                leaves.propertiesToUpdate = ["words": 25]
                _ = try context.execute(leaves)
                let writers = NSBatchUpdateRequest(entityName: "Writer")
                writers.propertiesToUpdate = ["name": "Augusta Ada"]
                _ = try context.execute(writers)
                let titles = NSBatchUpdateRequest(entityName: "Volume")
                titles.predicate = NSPredicate(format: "title == 'Second'")
                titles.propertiesToUpdate = ["title": "SECOND"]
                _ = try context.execute(titles)
            }
            try expectValues(env, coordinator, model: model) { volumes, when in
                let first = try env.require(volumes["First"], "volume First\(when)")
                let second = try env.require(volumes["SECOND"], "volume SECOND\(when)")
                try env.expectEqual(first.wordTotal, 128, "@sum after a batch update of a leaf's words\(when)")
                try env.expectEqual(first.leafCount, 3, "@count unchanged by a batch update\(when)")
                try env.expectEqual(first.writerName, "Augusta Ada", "writer.name after a batch update of the writer\(when)")
                try env.expectEqual(first.savedAt, before["First"]?.savedAt, "now() of a volume the batch updates did not update\(when)")
                try env.expectEqual(second.lowerTitle, "second", "lowercase:(title) after a batch update of the title\(when)")
                let savedAt = try env.require(second.savedAt, "now() of the batch-updated volume\(when)")
                try env.expect(savedAt >= batchStart.addingTimeInterval(-0.01) && savedAt.timeIntervalSinceNow < 1,
                               "now() is the time of the batch update of the volume (\(savedAt), the update started at \(batchStart))\(when)")
            }
        },

        ConformanceCase("derived/after-batch-insert", adopting: [.derivedAttributeComputing, .batchInserting]) { env in
            let model = Derived.model()
            let coordinator = try env.openCoordinator(model: model)
            let context = env.context(coordinator)
            try saveLibrary(context)
            let batchStart = Date()
            try context.performAndWait {
                let request = NSBatchInsertRequest(entityName: "Volume", objects: [["title": "Fourth Volume"], ["title": "Fifth"]])
                _ = try context.execute(request)
            }
            try expectValues(env, coordinator, model: model) { volumes, when in
                let fourth = try env.require(volumes["Fourth Volume"], "the batch-inserted volume\(when)")
                try env.expectEqual(fourth.lowerTitle, "fourth volume", "lowercase:(title) of a batch-inserted volume\(when)")
                try env.expectEqual(fourth.leafCount, 0, "@count of a batch-inserted volume is 0\(when)")
                try env.expectEqual(fourth.wordTotal, 0, "@sum of a batch-inserted volume is 0\(when)")
                try env.expect(fourth.writerName == nil, "writer.name of a batch-inserted volume is nil\(when)")
                let savedAt = try env.require(fourth.savedAt, "now() of the batch-inserted volume\(when)")
                try env.expect(savedAt >= batchStart.addingTimeInterval(-0.01) && savedAt.timeIntervalSinceNow < 1,
                               "now() is the time of the batch insert (\(savedAt), the insert started at \(batchStart))\(when)")
                try env.expectEqual(volumes["Fifth"]?.lowerTitle, "fifth", "every batch-inserted row is computed\(when)")
                try env.expectEqual(volumes["First"]?.wordTotal, 123, "other volumes keep their values\(when)")
            }
        },

        ConformanceCase("derived/after-batch-delete", adopting: [.derivedAttributeComputing]) { env in
            let model = Derived.model()
            let coordinator = try env.openCoordinator(model: model)
            let context = env.context(coordinator)
            try saveLibrary(context)
            try context.performAndWait {
                let leaves = NSFetchRequest<NSFetchRequestResult>(entityName: "Leaf")
                leaves.predicate = NSPredicate(format: "words < 50")
                _ = try context.execute(NSBatchDeleteRequest(fetchRequest: leaves))
                _ = try context.execute(NSBatchDeleteRequest(fetchRequest: NSFetchRequest(entityName: "Writer")))
            }
            try expectValues(env, coordinator, model: model) { volumes, when in
                let first = try env.require(volumes["First"], "volume First\(when)")
                let second = try env.require(volumes["Second"], "volume Second\(when)")
                try env.expectEqual(first.leafCount, 1, "@count after a batch delete of two of the leaves\(when)")
                try env.expectEqual(first.wordTotal, 100, "@sum after a batch delete of two of the leaves\(when)")
                try env.expectEqual(second.leafCount, 0, "@count after a batch delete of the only leaf\(when)")
                try env.expectEqual(second.wordTotal, 0, "@sum of no leaves is 0\(when)")
                try env.expect(first.writerName == nil, "writer.name after a batch delete of the writer is nil\(when)")
                try env.expectEqual(volumes["Third"]?.leafCount, 0, "a volume the deletes did not reach\(when)")
            }
        },
    ]
}
