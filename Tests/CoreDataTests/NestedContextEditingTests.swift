import Foundation
import CoreData
import Testing

/// A child context used as an editor across several saves of child and parent.
struct NestedContextEditingTests {
    /// The editor pattern: a child inserts, child and parent save, the user keeps editing in the same child.
    /// The child's second save reaches the parent as an update of the saved object (not of the temporary ID the
    /// parent no longer has), and the parent's later saves succeed with the edit.
    @Test func childKeepsEditingAfterTheParentSavedItsInsert() throws {
        let root = try inMemoryContext()
        let child = childContext(of: root)
        let author = try child.performAndWait {
            let author = Author(context: child)
            author.name = "Ann"
            try child.save()
            return author
        }
        try root.performAndWait { try root.save() }
        try child.performAndWait {
            author.name = "Anne"
            try child.save()
        }
        root.performAndWait {
            #expect(throws: Never.self) { try root.save() }
            let other = Author(context: root)
            other.name = "Bob"
            #expect(throws: Never.self, "an unrelated later save of the parent") { try root.save() }
            let request = NSFetchRequest<NSDictionary>(entityName: "Author")
            request.resultType = .dictionaryResultType
            request.propertiesToFetch = ["name"]
            let names = (try? root.fetch(request))?.compactMap { $0["name"] as? String }.sorted()
            #expect(names == ["Anne", "Bob"])
        }
    }
}
