import CoreData
import Testing

/// Uniqueness constraints with a merge policy, across relationships: the usual "insert what arrived, let the
/// constraint find the duplicates" import, on an in-memory store and on SQLite with a reopen.
struct UniquenessMergeTests {
    /// Author (unique handle) —< Post >—< Tag (unique name).
    static func model() -> NSManagedObjectModel {
        let author = NSEntityDescription(name: "Author"), post = NSEntityDescription(name: "Post"), tag = NSEntityDescription(name: "Tag")
        let posts = NSRelationshipDescription(name: "posts", destination: post, toMany: true)
        let postAuthor = NSRelationshipDescription(name: "author", destination: author, toMany: false)
        posts.inverseRelationship = postAuthor
        postAuthor.inverseRelationship = posts
        let tags = NSRelationshipDescription(name: "tags", destination: tag, toMany: true)
        let tagPosts = NSRelationshipDescription(name: "posts", destination: post, toMany: true)
        tags.inverseRelationship = tagPosts
        tagPosts.inverseRelationship = tags
        author.properties = [NSAttributeDescription(name: "handle", type: .string), NSAttributeDescription(name: "bio", type: .string), posts]
        author.uniquenessConstraints = [["handle"]]
        post.properties = [NSAttributeDescription(name: "title", type: .string), postAuthor, tags]
        tag.properties = [NSAttributeDescription(name: "name", type: .string), tagPosts]
        tag.uniquenessConstraints = [["name"]]
        return NSManagedObjectModel(entities: [author, post, tag])
    }

    enum Kind: String, CaseIterable { case inMemory, sqlite }

    private func coordinator(_ kind: Kind, _ url: URL) throws -> NSPersistentStoreCoordinator {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: Self.model())
        try coordinator.addPersistentStore(type: kind == .sqlite ? .sqlite : .inMemory, at: url)
        return coordinator
    }

    private func context(_ coordinator: NSPersistentStoreCoordinator) -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        context.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
        return context
    }

    private func titles(_ object: NSManagedObject?, _ key: String = "posts") -> [String] {
        ((object?.value(forKey: key) as? Set<NSManagedObject>) ?? []).compactMap { $0.value(forKey: "title") as? String }.sorted()
    }

    @Test(arguments: Kind.allCases)
    func duplicatesCollapseAndKeepTheirRelationships(_ kind: Kind) throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("uniqueness-\(UUID().uuidString).sqlite")
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) } }
        let coordinator = try coordinator(kind, url)
        let first = context(coordinator)
        try first.performAndWait {
            let ann = insert("Author", ["handle": "ann", "bio": "writes"], into: first)
            let swift = insert("Tag", ["name": "swift"], into: first)
            let post = insert("Post", ["title": "one", "author": ann], into: first)
            post.mutableSetValue(forKey: "tags").add(swift)
            try first.save()
        }

        // An import that makes new objects for everything it reads.
        let importer = context(coordinator)
        let imported = try importer.performAndWait {
            let ann = insert("Author", ["handle": "ann"], into: importer)
            let swift = insert("Tag", ["name": "swift"], into: importer)
            let linux = insert("Tag", ["name": "linux"], into: importer)
            let post = insert("Post", ["title": "two", "author": ann], into: importer)
            post.mutableSetValue(forKey: "tags").addObjects(from: [swift, linux])
            try importer.save()
            #expect(ann.value(forKey: "bio") as? String == "writes", "the saved bio stays: the import did not set it")
            #expect(titles(ann) == ["one", "two"])
            #expect(titles(swift) == ["one", "two"])
            return (ann.objectID, swift.objectID)
        }

        // A context that already holds the saved tag, and makes another one with the same name.
        let editor = context(coordinator)
        try editor.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Tag")
            request.predicate = NSPredicate(format: "name == %@", "swift")
            let saved = try #require(try editor.fetch(request).first)
            let duplicate = insert("Tag", ["name": "swift"], into: editor)
            let post = insert("Post", ["title": "three"], into: editor)
            post.mutableSetValue(forKey: "tags").add(duplicate)
            try editor.save()
            #expect(duplicate.managedObjectContext == nil, "the duplicate merged into the object the context held")
            #expect(titles(saved) == ["one", "three", "two"])
            #expect((post.value(forKey: "tags") as? Set<NSManagedObject>) == [saved])
        }

        let check = kind == .sqlite ? context(try self.coordinator(kind, url)) : context(coordinator)
        try check.performAndWait {
            #expect(try check.count(for: NSFetchRequest<NSManagedObject>(entityName: "Author")) == 1)
            #expect(try check.count(for: NSFetchRequest<NSManagedObject>(entityName: "Tag")) == 2)
            let ann = try #require(check.persistentStoreCoordinator?.managedObjectID(forURIRepresentation: imported.0.uriRepresentation()))
            #expect(titles(try check.existingObject(with: ann)) == ["one", "two"])
            let swift = try #require(check.persistentStoreCoordinator?.managedObjectID(forURIRepresentation: imported.1.uriRepresentation()))
            #expect(titles(try check.existingObject(with: swift)) == ["one", "three", "two"])
        }
    }
}
