import CoreData
import StoreTestSupport
import Foundation
import Testing

/// A one-entity store (`Note.title`) for tests of store files and history.
enum NoteStore {
    static func model() -> NSManagedObjectModel {
        NSManagedObjectModel(entities: [entity("Note", [attribute("title", .string)])])
    }

    static func insert(_ stack: Stack, _ title: String) throws {
        try stack.context.performAndWait {
            let note = NSManagedObject(entity: try #require(stack.coordinator.managedObjectModel.entitiesByName["Note"]), insertInto: stack.context)
            note.setValue(title, forKey: "title")
            try stack.context.save()
        }
    }

    static func titles(_ url: URL) throws -> [String] {
        let stack = try Stack(model: model(), url: url)
        defer { try? stack.close() }
        return try stack.context.performAndWait { try stack.fetch("Note").compactMap { $0.value(forKey: "title") as? String }.sorted() }
    }
}
