import CoreData
import Foundation
import Testing

/// `setURL(_:for:)` on a SQLite store: as Apple documents for stores that write in place, the store opens the one
/// that must already exist at the new URL; here it must be a copy of the store. Refusals leave the store where
/// it was, still saving there. (The move itself is the conformance case `add-store/set-url`.)
@Suite struct SQLiteSetURLTests {
    private func insertNote(_ stack: Stack, _ title: String) throws {
        try stack.context.performAndWait {
            NSEntityDescription.insertNewObject(forEntityName: "Note", into: stack.context).setValue(title, forKey: "title")
            try stack.context.save()
        }
    }

    private func titles(at url: URL) throws -> Set<String> {
        let stack = try Stack(model: everythingModel(), url: url)
        defer { try? stack.close() }
        let notes = try stack.fetch("Note")
        return stack.context.performAndWait { Set(notes.compactMap { $0.value(forKey: "title") as? String }) }
    }

    @Test func nothingAtTheNewURLLeavesTheStoreWhereItWas() throws {
        let url = TemporaryStore.url()
        let stack = try Stack(model: everythingModel(), url: url)
        try insertNote(stack, "before")
        let missing = url.deletingLastPathComponent().appendingPathComponent("missing.sqlite")
        #expect(!stack.coordinator.setURL(missing, for: stack.store))
        #expect(stack.store.url == url)
        #expect(!FileManager.default.fileExists(atPath: missing.path), "no store is made there")
        try insertNote(stack, "after")
        try stack.close()
        #expect(try titles(at: url) == ["before", "after"])
    }

    @Test func anotherStoreAtTheNewURLIsRefused() throws {
        let url = TemporaryStore.url()
        let otherURL = TemporaryStore.url()
        let other = try Stack(model: everythingModel(), url: otherURL)
        try insertNote(other, "other")
        try other.close()
        let stack = try Stack(model: everythingModel(), url: url)
        try insertNote(stack, "mine")
        #expect(!stack.coordinator.setURL(otherURL, for: stack.store), "a store with another NSStoreUUID")
        try insertNote(stack, "still mine")
        try stack.close()
        #expect(try titles(at: url) == ["mine", "still mine"])
        #expect(try titles(at: otherURL) == ["other"])
    }

    @Test func aStoreOfAnotherCoordinatorOrAnOccupiedURLIsRefused() throws {
        let first = try Stack(model: everythingModel(), url: TemporaryStore.url())
        let second = try Stack(model: everythingModel(), url: TemporaryStore.url())
        defer { try? first.close(); try? second.close() }
        #expect(!first.coordinator.setURL(TemporaryStore.url(), for: second.store), "not added to this coordinator")
        let extra = try first.coordinator.addPersistentStore(type: .inMemory, at: URL(fileURLWithPath: "/dev/null"))
        #expect(!first.coordinator.setURL(first.store.url!, for: extra), "another store of the coordinator is there")
    }
}
