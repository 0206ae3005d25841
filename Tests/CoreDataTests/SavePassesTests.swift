import Foundation
import Testing
import CoreData

/// A save walks its objects fewer times: the objects of its last store's plan take their committed values in the pass
/// that gives them their versions (the other stores' after every write), and inserted objects that all got their
/// permanent IDs in one store go to that store's plan without a walk of their own. Each case checks what the objects
/// report after the save (committed values, changes, IDs) and what the stores hold after a reopen.
@Suite struct SavePassesTests {
    typealias Item = SaveListItem

    static func context(_ urls: [URL]) throws -> NSManagedObjectContext {
        try SaveListsTests.context(SaveListsTests.model(), stores: urls)
    }

    static func numbers(at url: URL) throws -> [Int64] {
        try SaveListsTests.reopenedNumbers(SaveListsTests.model(), at: url)
    }

    /// Objects inserted into two stores, then updated in both: after each save every object's committed values are
    /// what it saved and it has no changes, whichever store's plan was written last.
    @Test func objectsOfEveryStoreCommitWhatTheySaved() throws {
        let folder = SaveListsTests.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let urls = [folder.appendingPathComponent("a.sqlite"), folder.appendingPathComponent("b.sqlite")]
        let context = try Self.context(urls)
        try context.performAndWait {
            let stores = try #require(context.persistentStoreCoordinator?.persistentStores)
            let items = (Int64(0)..<6).map { number in
                let item = Item(context: context)
                item.number = number
                context.assign(item, to: stores[Int(number % 2)])
                return item
            }
            try context.save()
            for item in items {
                #expect(item.committedValues(forKeys: ["number"])["number"] as? Int64 == item.number)
                #expect(item.changedValues().isEmpty)
                #expect(!item.objectID.isTemporaryID)
            }
            for item in items { item.number += 100 }
            try context.save()
            for item in items {
                #expect(item.committedValues(forKeys: ["number"])["number"] as? Int64 == item.number)
                #expect(item.changedValues().isEmpty)
            }
            // A change after the save is measured against the saved values, and rolling it back restores them.
            items[0].number = 7
            items[1].number = 7
            #expect(items[0].changedValues()["number"] as? Int64 == 7)
            context.rollback()
            #expect(items.map(\.number) == [100, 101, 102, 103, 104, 105])
        }
        #expect(try Self.numbers(at: urls[0]) == [100, 102, 104])
        #expect(try Self.numbers(at: urls[1]) == [101, 103, 105])
    }

    /// Some inserted objects got permanent IDs before the save (`obtainPermanentIDs(for:)`): those keep them, the others
    /// get theirs in the save, and every object is written once, in one store or split between two.
    @Test(arguments: [1, 2])
    func insertsWithSomePermanentIDsAreEachWrittenOnce(storeCount: Int) throws {
        let folder = SaveListsTests.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let urls = (0..<storeCount).map { folder.appendingPathComponent("s\($0).sqlite") }
        let context = try Self.context(urls)
        try context.performAndWait {
            let stores = try #require(context.persistentStoreCoordinator?.persistentStores)
            let items = (Int64(0)..<8).map { number in
                let item = Item(context: context)
                item.number = number
                if storeCount > 1 { context.assign(item, to: stores[number < 4 ? 0 : 1]) }
                return item
            }
            try context.obtainPermanentIDs(for: [items[2], items[5]])
            let early = [items[2].objectID, items[5].objectID]
            #expect(early.allSatisfy { !$0.isTemporaryID })
            try context.save()
            #expect([items[2].objectID, items[5].objectID] == early)
            #expect(Set(items.map(\.objectID)).count == 8)
            for item in items {
                #expect(!item.objectID.isTemporaryID)
                #expect(try context.existingObject(with: item.objectID) === item)
                #expect(item.committedValues(forKeys: ["number"])["number"] as? Int64 == item.number)
            }
        }
        if storeCount == 1 {
            #expect(try Self.numbers(at: urls[0]) == Array(0..<8))
        } else {
            #expect(try Self.numbers(at: urls[0]) == [0, 1, 2, 3])
            #expect(try Self.numbers(at: urls[1]) == [4, 5, 6, 7])
        }
    }
}
