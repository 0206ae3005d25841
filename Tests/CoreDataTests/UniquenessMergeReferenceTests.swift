import Foundation
import CoreData
import Testing

/// Merging uniqueness-constraint duplicates keeps every reference to them valid and every inverse in step.
struct UniquenessMergeReferenceTests {
    /// Author (unique handle); Note —> Author with no inverse (allowed; Apple only warns).
    static func noInverseModel() -> NSManagedObjectModel {
        let author = NSEntityDescription(name: "Author"), note = NSEntityDescription(name: "Note")
        let noteAuthor = NSRelationshipDescription(name: "author", destination: author, toMany: false)
        author.properties = [NSAttributeDescription(name: "handle", type: .string), NSAttributeDescription(name: "bio", type: .string)]
        author.uniquenessConstraints = [["handle"]]
        note.properties = [NSAttributeDescription(name: "text", type: .string), noteAuthor]
        return NSManagedObjectModel(entities: [author, note])
    }

    /// Two new duplicates, each referenced by a new object through a relationship without an inverse: the
    /// Note of the merged duplicate points at the survivor afterwards (never at an object gone from the context).
    @Test func noteOfMergedDuplicatePointsAtTheSurvivor() throws {
        let context = try inMemoryContext(model: Self.noInverseModel())
        context.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
        try context.performAndWait {
            let a1 = insert("Author", ["handle": "ann"], into: context)
            let a2 = insert("Author", ["handle": "ann", "bio": "b"], into: context)
            let n1 = insert("Note", ["text": "one", "author": a1], into: context)
            let n2 = insert("Note", ["text": "two", "author": a2], into: context)
            try context.save()
            let survivor = n1.value(forKey: "author") as? NSManagedObject
            #expect(survivor?.managedObjectContext === context)
            #expect((n2.value(forKey: "author") as? NSManagedObject) === survivor,
                    "the note of the merged duplicate should point at the survivor")
        }
    }

    /// Same, when the duplicate of a saved row is referenced and the context already holds the row: the Note
    /// points at the held row, which takes the duplicate's values.
    @Test func noteOfDuplicateOfAHeldRowPointsAtTheRow() throws {
        let context = try inMemoryContext(model: Self.noInverseModel())
        context.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
        try context.performAndWait {
            let saved = insert("Author", ["handle": "ann"], into: context)
            try context.save()
            let duplicate = insert("Author", ["handle": "ann", "bio": "new"], into: context)
            let note = insert("Note", ["text": "n", "author": duplicate], into: context)
            try context.save()
            #expect((note.value(forKey: "author") as? NSManagedObject) === saved)
            #expect(saved.value(forKey: "bio") as? String == "new")
        }
    }

    /// Person with two single-attribute constraints; merging the first conflict creates a new one on the second,
    /// which the policy resolves too, so the save goes through.
    @Test func conflictCreatedByResolvingAnotherIsResolvedToo() throws {
        let person = NSEntityDescription(name: "Person")
        person.properties = [NSAttributeDescription(name: "email", type: .string), NSAttributeDescription(name: "phone", type: .string)]
        person.uniquenessConstraints = [["email"], ["phone"]]
        let context = try inMemoryContext(model: NSManagedObjectModel(entities: [person]))
        context.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
        try context.performAndWait {
            _ = insert("Person", ["email": "a", "phone": "1"], into: context)
            _ = insert("Person", ["email": "a", "phone": "2"], into: context)
            _ = insert("Person", ["email": "b", "phone": "2"], into: context)
            #expect(throws: Never.self, "a resolving merge policy should make the save go through") { try context.save() }
        }
    }

    /// NSOverwriteMergePolicy, duplicate of a row the context already holds: the merged object's to-many
    /// relationships replace the row's (Decisions.md), rather than being added to them.
    @Test func overwriteReplacesTheHeldRowsToMany() throws {
        let context = try inMemoryContext(model: UniquenessMergeTests.model())
        context.mergePolicy = NSOverwriteMergePolicy
        try context.performAndWait {
            let ann = insert("Author", ["handle": "ann"], into: context)
            _ = insert("Post", ["title": "one", "author": ann], into: context)
            try context.save()
            let duplicate = insert("Author", ["handle": "ann"], into: context)
            _ = insert("Post", ["title": "two", "author": duplicate], into: context)
            try context.save()
            let titles = ((ann.value(forKey: "posts") as? Set<NSManagedObject>) ?? []).compactMap { $0.value(forKey: "title") as? String }.sorted()
            #expect(titles == ["two"], "Decisions.md: under overwrite the merged object's to-many replaces the row's")
        }
    }

    /// NSOverwriteMergePolicy, duplicate of a row the context does not hold (the new object takes the row
    /// over): relationship and inverse stay in step — every post naming the author is among its `posts`.
    @Test func overwriteTakeOverKeepsInversesInStep() throws {
        let model = UniquenessMergeTests.model()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .inMemory, at: URL(fileURLWithPath: "/dev/null"))
        func context() -> NSManagedObjectContext {
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            context.mergePolicy = NSOverwriteMergePolicy
            return context
        }
        let first = context()
        try first.performAndWait {
            let ann = insert("Author", ["handle": "ann"], into: first)
            _ = insert("Post", ["title": "one", "author": ann], into: first)
            try first.save()
        }
        let second = context()
        try second.performAndWait {
            let duplicate = insert("Author", ["handle": "ann"], into: second)
            _ = insert("Post", ["title": "two", "author": duplicate], into: second)
            try second.save()
        }
        let check = context()
        try check.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Post")
            request.predicate = NSPredicate(format: "title == %@", "one")
            let one = try #require(try check.fetch(request).first)
            let author = one.value(forKey: "author") as? NSManagedObject
            let posts = (author?.value(forKey: "posts") as? Set<NSManagedObject>) ?? []
            #expect(author == nil || posts.contains(one), "post one names an author whose posts do not contain it")
        }
    }
}
