#if canImport(Glibc)
import Glibc
#endif
import Testing
import CoreData
import StoreTestSupport

/// Migrations and crashes (issue 15, item 7): a migration killed at any moment leaves the old store or the
/// migrated one, whole, and the next open with the new model finishes the work and removes what the killed
/// migration left; two processes that open an old store at once with a new model migrate it once. The child
/// processes are this test binary, running `migrationChild`.
@Suite struct MigrationCrashSafetyTests {
    /// Items in the version-1 store: enough that a migration takes a while to kill in, few enough that the 108
    /// child migrations stay a small part of the test run. (At this size a kill once landed in the first steps
    /// of folding the old store's log before the file swap, and left a journal SQLite ignores, which the next
    /// open took for an unfinished transaction; `HotJournalMigrationTests` covers that case directly.)
    static let itemCount = 500
    static let killRounds = 8
    static let concurrentRounds = 3
    static let storeVariable = "COREDATA_MIGRATION_CHILD_STORE"
    static let typeVariable = "COREDATA_MIGRATION_CHILD_TYPE"
    static let modeVariable = "COREDATA_MIGRATION_CHILD_MODE"
    static let goVariable = "COREDATA_MIGRATION_CHILD_GO"
    static let readyMarker = "MIGRATION-CHILD-READY"
    static let doneMarker = "MIGRATION-CHILD-DONE "

    static let migrating: [AnyHashable: Any] = [NSMigratePersistentStoresAutomaticallyOption: true,
                                                NSInferMappingModelAutomaticallyOption: true]

    /// Version 2 of `everyTypeModel()`: Item's `title` is now `heading` (with `title` as its renaming
    /// identifier), and Owner has a required `grade` whose default is 7.
    static func version2() -> NSManagedObjectModel {
        let model = everyTypeModel()
        if let title = model.entitiesByName["Item"]?.propertiesByName["title"] {
            title.name = "heading"
            title.renamingIdentifier = "title"
        }
        model.entitiesByName["Owner"]?.properties.append(NSAttributeDescription(name: "grade", type: .integer64, isOptional: false, defaultValue: 7))
        model.entities = Array(model.entities)
        return model
    }

    // MARK: Killed migrations

    /// Kills a process while it migrates a store, in place, with automatic lightweight migration
    /// ("lightweight"), with `NSMigrationManager` and the inferred mapping ("manager"), or when added with
    /// `NSMigratePersistentStoresAutomaticallyOption` alone and a mapping model beside the model ("mapping"), at random moments
    /// spread over the time one migration takes. After each kill the store must open with version 1 or
    /// version 2 of the model (never neither), and an open with version 2 and the migration options must find
    /// every object, migrated, and leave no temporary file beside the store.
    @Test(arguments: [NSSQLiteStoreType, NSXMLStoreType, NSBinaryStoreType], ["lightweight", "manager", "mapping"])
    func killedMigrationsLeaveTheOldStoreOrTheNew(_ typeName: String, _ mode: String) throws {
        let type = NSPersistentStore.StoreType(rawValue: typeName)
        let directory = TemporaryDirectory(prefix: "crash-migration")
        let template = try Self.makeVersion1(type, in: directory)
        // One migration timed here, so the kills land before, during and after the migration in the child.
        let calibration = directory.file("calibration")
        try Self.copyStore(template, to: calibration)
        let began = Date()
        _ = try Self.migrate(type, at: calibration, mode: mode)
        let window = UInt32(min(Date().timeIntervalSince(began) * 1.5, 5) * 1_000_000) + 10_000

        let executable = try Self.testExecutable()
        var random = SplitMix64(seed: UInt64(typeName.utf8.count * 131 + mode.utf8.count))
        var versions = [1: 0, 2: 0]
        for round in 0..<Self.killRounds {
            let url = directory.file("store-\(round)")
            try Self.copyStore(template, to: url)
            _ = try CrashSafetyTests.runChildUntilKilled(executable, suite: "MigrationCrashSafetyTests", test: "migrationChild",
                                                         environment: [Self.storeVariable: url.path, Self.typeVariable: typeName, Self.modeVariable: mode],
                                                         after: Self.readyMarker, within: window, random: &random, round: round)
            let version = try #require(try Self.version(of: url, type: type), "round \(round): the store opens with neither version of the model")
            versions[version, default: 0] += 1
            try Self.expectMigrated(type, at: url, step: "round \(round), killed at version \(version)")
            let leftovers = try Self.leftovers(of: url)
            #expect(leftovers.isEmpty, "round \(round): the open must remove what the killed migration left: \(leftovers)")
        }
        #expect(versions[1, default: 0] + versions[2, default: 0] == Self.killRounds)
        print("\(typeName) \(mode): \(Self.killRounds) kills in a \(window / 1000) ms window; the store was left at version 1 \(versions[1] ?? 0) times, at version 2 \(versions[2] ?? 0) times")
    }

    // MARK: Two processes at once

    /// Starts two processes that open the same old store with version 2 and the migration options at the
    /// same moment. Both must succeed and see the same file afterwards (a second migration would have moved
    /// a new file into place: a different inode), and the store must hold every object, migrated.
    @Test(arguments: [NSSQLiteStoreType, NSXMLStoreType, NSBinaryStoreType], ["lightweight", "mapping"])
    func twoProcessesOpeningAnOldStoreMigrateItOnce(_ typeName: String, _ mode: String) throws {
        let type = NSPersistentStore.StoreType(rawValue: typeName)
        let directory = TemporaryDirectory(prefix: "concurrent-migration")
        let template = try Self.makeVersion1(type, in: directory)
        let executable = try Self.testExecutable()
        for round in 0..<Self.concurrentRounds {
            let url = directory.file("store-\(round)")
            try Self.copyStore(template, to: url)
            let go = directory.file("go-\(round)")
            let environment = [Self.storeVariable: url.path, Self.typeVariable: typeName, Self.modeVariable: mode, Self.goVariable: go.path]
            let children = try (0..<2).map { _ in try ChildProcess(executable, test: "MigrationCrashSafetyTests/migrationChild", environment: environment) }
            for child in children { try child.read(until: Self.readyMarker) }
            FileManager.default.createFile(atPath: go.path, contents: Data())
            let outputs = children.map { $0.finish() }
            let inodes = outputs.map { output in
                output.components(separatedBy: "\n").compactMap { line in line.range(of: Self.doneMarker).map { String(line[$0.upperBound...]) } }.first
            }
            #expect(inodes.allSatisfy { $0 != nil }, "round \(round): both processes must open the store: \(outputs.map { $0.suffix(3000) })")
            #expect(Set(inodes.compactMap { $0 }).count == 1, "round \(round): the store must be migrated once, but the processes saw files \(inodes)")
            try Self.expectMigrated(type, at: url, step: "round \(round)")
        }
    }

    // MARK: The child

    /// The child side: migrates the store named by the environment (waiting for the go file first, when one
    /// is named), then prints the inode of the store file it then sees. Runs only when started by the tests above.
    @Test(.enabled(if: ProcessInfo.processInfo.environment[storeVariable] != nil, "runs only as a child process"))
    func migrationChild() throws {
        let environment = ProcessInfo.processInfo.environment
        let url = URL(fileURLWithPath: try #require(environment[Self.storeVariable]))
        let type = NSPersistentStore.StoreType(rawValue: try #require(environment[Self.typeVariable]))
        let mode = try #require(environment[Self.modeVariable])
        FileHandle.standardOutput.write(Data("\(Self.readyMarker)\n".utf8))
        if let go = environment[Self.goVariable] {
            let deadline = Date().addingTimeInterval(60)
            while !FileManager.default.fileExists(atPath: go) && Date() < deadline { usleep(200) }
        }
        let inode = try Self.migrate(type, at: url, mode: mode)
        FileHandle.standardOutput.write(Data("\(Self.doneMarker)\(inode)\n".utf8))
    }

    // MARK: Stores

    /// Migrates the store at `url` to version 2 in place and returns the inode of the store file afterwards.
    static func migrate(_ type: NSPersistentStore.StoreType, at url: URL, mode: String) throws -> UInt64 {
        if mode == "manager" {
            let manager = NSMigrationManager(sourceModel: everyTypeModel(), destinationModel: version2())
            let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: everyTypeModel(), destinationModel: version2())
            try manager.migrateStore(from: url, type: type, mapping: mapping, to: url, type: type)
        } else if mode == "mapping" {
            // Without the inference option: only the mapping model beside the package can migrate it.
            let model = try NSManagedObjectModel.load(contentsOf: url.deletingLastPathComponent().appendingPathComponent("Every.momd"))
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            let store = try coordinator.addPersistentStore(type: type, at: url, options: [NSMigratePersistentStoresAutomaticallyOption: true])
            try coordinator.remove(store)
        } else {
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: version2())
            let store = try coordinator.addPersistentStore(type: type, at: url, options: migrating)
            try coordinator.remove(store)
        }
        var status = stat()
        guard stat(url.path, &status) == 0 else { return 0 }
        return UInt64(status.st_ino)
    }

    /// A version-1 store of `itemCount` items, closed; beside it `Every.momd` (versions 1 and 2, the second current)
    /// and `EveryV1toV2.cdm` (the inferred mapping), which "mapping" migrations find.
    static func makeVersion1(_ type: NSPersistentStore.StoreType, in directory: TemporaryDirectory) throws -> URL {
        let package = directory.file("Every.momd")
        try FileManager.default.createDirectory(at: package, withIntermediateDirectories: true)
        for (name, model) in [("Every1", everyTypeModel()), ("Every2", version2())] {
            let file = package.appendingPathComponent(name + ".mom")
            try MOMArchiveWriter.archive(model, file: file).write(to: file)
        }
        let info: [String: Any] = ["NSManagedObjectModel_CurrentVersionName": "Every2", "NSManagedObjectModel_VersionHashes": [String: Any]()]
        try PropertyListSerialization.data(fromPropertyList: info, format: .binary, options: 0).write(to: package.appendingPathComponent("VersionInfo.plist"))
        try NSMappingModel.inferredMappingModel(forSourceModel: everyTypeModel(), destinationModel: version2())
            .write(to: directory.file("EveryV1toV2.cdm"))
        let url = directory.file("template")
        let context = try openStore(type, at: url, model: everyTypeModel())
        try populate(context, items: itemCount)
        if let coordinator = context.persistentStoreCoordinator {
            for store in coordinator.persistentStores { try coordinator.remove(store) }
        }
        return url
    }

    /// Copies a closed store's file and whatever SQLite companions it has.
    static func copyStore(_ source: URL, to destination: URL) throws {
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: source.path + suffix) {
            try FileManager.default.copyItem(atPath: source.path + suffix, toPath: destination.path + suffix)
        }
    }

    /// Which version of the model the store opens with, without migrating: 1, 2, or nil.
    ///
    /// The open is writable, as an app's is: a kill while SQLite rewrites the file's header (switching the
    /// journal mode, as folding a log before a move and the first open of a moved file do) leaves a hot
    /// `-journal`, which a writable open rolls back and a read-only open refuses (134080, as SQLite itself does).
    static func version(of url: URL, type: NSPersistentStore.StoreType) throws -> Int? {
        for (version, model) in [(1, everyTypeModel()), (2, version2())] {
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            do {
                let store = try coordinator.addPersistentStore(type: type, at: url, options: nil)
                try coordinator.remove(store)
                return version
            } catch let error as NSError where error.code == NSPersistentStoreIncompatibleVersionHashError {
                continue
            }
        }
        return nil
    }

    /// Opens the store with version 2 and the migration options and checks every object arrived migrated.
    static func expectMigrated(_ type: NSPersistentStore.StoreType, at url: URL, step: String) throws {
        let context = try openStore(type, at: url, model: version2(), options: migrating)
        defer {
            if let coordinator = context.persistentStoreCoordinator {
                for store in coordinator.persistentStores { try? coordinator.remove(store) }
            }
        }
        try context.performAndWait { () throws -> Void in
            let items = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item"))
            let headings = Set(items.compactMap { $0.value(forKey: "heading") as? String })
            #expect(headings == Set((0..<itemCount).map { "item \($0)" }), "\(step): every item with its renamed title")
            let owned = items.filter { $0.value(forKey: "owner") != nil }.count
            #expect(owned == (itemCount + 2) / 3, "\(step): every item's owner")
            let owners = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Owner"))
            #expect(owners.map { $0.value(forKey: "grade") as? Int64 } == [7], "\(step): the new required attribute takes its default")
            let tagged = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Tag"))
                .map { ($0.value(forKey: "items") as? Set<NSManagedObject>)?.count ?? 0 }.reduce(0, +)
            #expect(tagged == itemCount, "\(step): every item's tag")
        }
    }

    /// The files beside `url` that are neither the store nor its SQLite companions: what a killed migration
    /// or save may leave.
    static func leftovers(of url: URL) throws -> [String] {
        let name = url.lastPathComponent
        return try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path)
            .filter { $0.hasPrefix("." + name + ".") }
    }

    static func testExecutable() throws -> URL {
        URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
    }
}

/// This test binary started again as a child running one test, with its standard output read by the test.
private final class ChildProcess {
    private let process = Process()
    private let output = Pipe()
    private var text = ""

    init(_ executable: URL, test: String, environment: [String: String]) throws {
        process.executableURL = executable
        process.arguments = ["--testing-library", "swift-testing", "--filter", test]
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = output
        process.standardError = output  // a failing child's error then shows in the parent's message
        try process.run()
    }

    /// Reads the child's output until it contains `marker`.
    func read(until marker: String) throws {
        while !text.contains(marker) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        try #require(text.contains(marker), "the child never printed \"\(marker)\": \(text.suffix(400))")
    }

    /// Everything the child printed, once it has exited (and been reaped).
    func finish() -> String {
        text += String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        CrashSafetyTests.reap(process.processIdentifier)
        return text
    }
}
