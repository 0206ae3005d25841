import Testing
import CoreData
import StoreTestSupport
import CoreDataStoreKit

/// Opening a file store removes the temporary files a killed save or creation left beside it, exactly those:
/// `.<store file name>.<UUID>.tmp` (and, for SQLite, that name with `-journal`, `-wal` or `-shm`, and the
/// `.<store file name>.migration` database a killed migration left), never the store, other stores' temporary
/// files, a temporary file a live writer holds, or any other file in the directory.
@Suite struct LeftoverFileTests {
    static let types = [NSSQLiteStoreType, NSXMLStoreType, NSBinaryStoreType]

    /// Names that look like leftovers but are not this store's: all must survive every open.
    static func strangers(of name: String) -> [String] {
        let uuid = UUID().uuidString
        return [
            ".other.\(name.split(separator: ".").last ?? "").\(uuid).tmp", ".\(name)x.\(uuid).tmp", "\(name).\(uuid).tmp",
            ".\(name).not-a-uuid.tmp", ".\(name).\(uuid).tmpx", ".\(name).\(uuid).tmp-other", ".\(name).\(uuid)",
            "notes.txt", ".\(name).\(uuid.lowercased().dropLast()).tmp",
        ] + (name.hasSuffix(".sqlite") ? [".\(name).migration-other"] : [".\(name).migration"])
    }

    /// This store's leftovers: a killed save's (or creation's) temporary file, and for SQLite its journals.
    static func leftovers(of name: String, typeName: String) -> [String] {
        let base = ".\(name).\(UUID().uuidString).tmp"
        return typeName == NSSQLiteStoreType ? [base, ".\(name).\(UUID().uuidString).tmp-journal", base + "-wal", base + "-shm",
                                                ".\(name).migration", ".\(name).migration-journal"]
            : [base, ".\(name).\(UUID().uuidString).tmp"]
    }

    func place(_ names: [String], in directory: TemporaryDirectory) throws {
        for name in names { try Data("left by \(name)".utf8).write(to: directory.file(name)) }
    }

    func contents(_ names: [String], in directory: TemporaryDirectory) -> [String: Data] {
        Dictionary(uniqueKeysWithValues: names.compactMap { name in
            FileManager.default.contents(atPath: directory.file(name).path).map { (name, $0) }
        })
    }

    @Test(arguments: types) func openingAnExistingStoreRemovesOnlyItsLeftovers(_ typeName: String) throws {
        let type = NSPersistentStore.StoreType(rawValue: typeName)
        let directory = TemporaryDirectory(prefix: "leftovers")
        let name = "store.\(typeName.lowercased())"
        try populate(try openStore(type, at: directory.file(name), model: everyTypeModel()), items: 5)
        let leftovers = Self.leftovers(of: name, typeName: typeName), strangers = Self.strangers(of: name)
        try place(leftovers + strangers, in: directory)
        let before = contents(strangers, in: directory)

        let context = try openStore(type, at: directory.file(name), model: everyTypeModel())
        #expect(try context.performAndWait { try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Item")) } == 5)
        for leftover in leftovers {
            #expect(!FileManager.default.fileExists(atPath: directory.file(leftover).path), "\(leftover) must be removed")
        }
        #expect(contents(strangers, in: directory) == before, "every other file must be left as it was")
    }

    @Test(arguments: types) func creatingAStoreRemovesTheLeftoversOfAKilledCreation(_ typeName: String) throws {
        let type = NSPersistentStore.StoreType(rawValue: typeName)
        let directory = TemporaryDirectory(prefix: "leftovers")
        let name = "store.\(typeName.lowercased())"
        let leftovers = Self.leftovers(of: name, typeName: typeName), strangers = Self.strangers(of: name)
        try place(leftovers + strangers, in: directory)
        let before = contents(strangers, in: directory)

        let context = try openStore(type, at: directory.file(name), model: everyTypeModel())
        #expect(try context.performAndWait { try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Item")) } == 0)
        let remaining = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
        #expect(Set(leftovers).isDisjoint(with: remaining), "the killed creation's files must be removed: \(remaining)")
        #expect(contents(strangers, in: directory) == before, "every other file must be left as it was")
    }

    /// A temporary file a live writer holds (a save or creation in another process, at the moment this one opens
    /// the store) is not a leftover: it stays, with its journal, until its writer lets go of it.
    @Test(arguments: types) func aTemporaryFileAWriterStillHoldsIsLeftAlone(_ typeName: String) throws {
        let type = NSPersistentStore.StoreType(rawValue: typeName)
        let directory = TemporaryDirectory(prefix: "leftovers")
        let name = "store.\(typeName.lowercased())"
        try populate(try openStore(type, at: directory.file(name), model: everyTypeModel()), items: 2)
        let claim = try TemporaryFileClaim(beside: directory.file(name))
        let held = [claim.url.lastPathComponent] + (typeName == NSSQLiteStoreType ? [claim.url.lastPathComponent + "-journal"] : [])
        try place(held, in: directory)
        let leftovers = Self.leftovers(of: name, typeName: typeName)
        try place(leftovers, in: directory)

        _ = try openStore(type, at: directory.file(name), model: everyTypeModel())
        for file in held {
            #expect(FileManager.default.contents(atPath: directory.file(file).path) == Data("left by \(file)".utf8), "a held file stays: \(file)")
        }
        for leftover in leftovers {
            #expect(!FileManager.default.fileExists(atPath: directory.file(leftover).path), "\(leftover) must be removed")
        }
        claim.release()
        _ = try openStore(type, at: directory.file(name), model: everyTypeModel())
        for file in held {
            #expect(!FileManager.default.fileExists(atPath: directory.file(file).path), "once let go of, it is a leftover: \(file)")
        }
    }

    @Test(arguments: types) func aReadOnlyOpenRemovesNothing(_ typeName: String) throws {
        let type = NSPersistentStore.StoreType(rawValue: typeName)
        let directory = TemporaryDirectory(prefix: "leftovers")
        let name = "store.\(typeName.lowercased())"
        try populate(try openStore(type, at: directory.file(name), model: everyTypeModel()), items: 2)
        let leftovers = Self.leftovers(of: name, typeName: typeName)
        try place(leftovers, in: directory)
        _ = try openStore(type, at: directory.file(name), model: everyTypeModel(), options: [NSReadOnlyPersistentStoreOption: true])
        for leftover in leftovers {
            #expect(FileManager.default.fileExists(atPath: directory.file(leftover).path), "a read-only open writes nothing: \(leftover)")
        }
    }

    /// Creating a SQLite store leaves nothing but the store beside it, and the store opens again with what was saved.
    @Test func aNewSQLiteStoreLeavesNoWriteAheadLogBehindItsCreation() throws {
        let directory = TemporaryDirectory(prefix: "leftovers")
        let url = directory.file("new.sqlite")
        let context = try openStore(.sqlite, at: url, model: everyTypeModel())
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
        #expect(names.allSatisfy { !$0.contains(".tmp") }, "creation leaves no temporary file: \(names)")
        try populate(context, items: 3)
        let reopened = try openStore(.sqlite, at: url, model: everyTypeModel())
        #expect(try reopened.performAndWait { try reopened.count(for: NSFetchRequest<NSManagedObject>(entityName: "Item")) } == 3)
    }
}
