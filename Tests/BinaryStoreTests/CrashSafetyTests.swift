#if canImport(Glibc)
import Glibc
#endif
import Testing
import CoreData
import StoreTestSupport

/// A save killed part-way leaves the store file complete: either as it was before that save or as it was
/// after it. The test runs a child process (this test binary, running `crashChildSaves`) that saves in a
/// loop, kills it with SIGKILL at random moments, and opens the store after each kill.
@Suite struct CrashSafetyTests {
    static let itemCount = 3000
    static let rounds = 8
    static let storeVariable = "COREDATA_CRASH_CHILD_STORE"
    static let typeVariable = "COREDATA_CRASH_CHILD_TYPE"
    static let savedPrefix = "CRASH-CHILD-SAVED "

    /// The store at `url`: the marker's generation, and whether the item changed with that generation agrees.
    static func verify(_ type: NSPersistentStore.StoreType, at url: URL) throws -> (generation: Int64, items: Int, consistent: Bool) {
        let context = try openStore(type, at: url, model: everyTypeModel())
        return try context.performAndWait {
            let owners = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Owner"))
            let generation = Int64(owners.first?.value(forKey: "name") as? String ?? "") ?? -1
            let items = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item"))
            let changed = items.filter { ($0.value(forKey: "count64") as? NSNumber)?.int64Value == generation }
            let expectedTitle = generation == 0 ? nil : "item \(generation % Int64(itemCount))"
            let consistent = owners.count == 1 && (generation == 0 || changed.contains { $0.value(forKey: "title") as? String == expectedTitle })
            return (generation, items.count, consistent)
        }
    }

    @Test(arguments: [NSBinaryStoreType, NSXMLStoreType])
    func killedSavesLeaveACompleteStore(_ typeName: String) throws {
        let type = NSPersistentStore.StoreType(rawValue: typeName)
        let directory = TemporaryDirectory()
        let url = directory.file("store.\(typeName.lowercased())")
        let context = try openStore(type, at: url, model: everyTypeModel())
        try populate(context, items: Self.itemCount)
        try context.performAndWait { () throws -> Void in
            let owner = try #require(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Owner")).first)
            owner.setValue("0", forKey: "name")
            // A large value makes writing the file most of each save, so most kills land in the middle of a write.
            let big = try #require(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item")).first)
            big.setValue(Data((0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }), forKey: "payload")
            try context.save()
        }
        let executable = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        var random = SplitMix64(seed: typeName == NSXMLStoreType ? 7 : 11)
        var lastReported: Int64 = 0
        var killsDuringWrite = 0
        for round in 0..<Self.rounds {
            // Wait for the child's first completed save, then let it run a random while and kill it.
            let text = try Self.runChildUntilKilled(executable, test: "crashChildSaves",
                                                    environment: [Self.storeVariable: url.path, Self.typeVariable: typeName],
                                                    after: Self.savedPrefix, within: 400_000, random: &random,
                                                    round: round)
            let reported = text.components(separatedBy: "\n").compactMap { line -> Int64? in
                guard let range = line.range(of: Self.savedPrefix) else { return nil }
                return Int64(line[range.upperBound...].trimmingCharacters(in: .whitespaces))
            }
            lastReported = reported.max() ?? lastReported
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { $0.hasSuffix(".tmp") }
            if !leftovers.isEmpty { killsDuringWrite += 1 }

            let (generation, items, consistent) = try Self.verify(type, at: url)
            #expect(items == Self.itemCount, "round \(round): the store must hold every item")
            #expect(consistent, "round \(round): generation \(generation) must be complete")
            #expect(generation == lastReported || generation == lastReported + 1,
                    "round \(round): the store holds generation \(generation); the child last reported \(lastReported)")
            let remaining = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { $0.hasSuffix(".tmp") }
            #expect(remaining.isEmpty, "round \(round): opening the store must remove the killed save's temporary file: \(remaining)")
            lastReported = generation
        }
        // Kills land at random in the save loop: while the context applies changes, while the store encodes the
        // file, or while the new file is written (which leaves a partly written temporary file behind).
        print("\(typeName): \(killsDuringWrite) of \(Self.rounds) kills left a partly written temporary file")
    }

    /// The child side: saves forever (each save sets the marker to the next generation and changes one item),
    /// printing each completed generation. Runs only when started by `killedSavesLeaveACompleteStore`.
    @Test(.enabled(if: ProcessInfo.processInfo.environment[storeVariable] != nil, "runs only as a child process"))
    func crashChildSaves() throws {
        let environment = ProcessInfo.processInfo.environment
        let url = URL(fileURLWithPath: try #require(environment[Self.storeVariable]))
        let type = NSPersistentStore.StoreType(rawValue: try #require(environment[Self.typeVariable]))
        let context = try openStore(type, at: url, model: everyTypeModel())
        try context.performAndWait { () throws -> Void in
            let owner = try #require(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Owner")).first)
            let items = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item"))
            let byTitle = Dictionary(items.map { ($0.value(forKey: "title") as? String ?? "", $0) }, uniquingKeysWith: { first, _ in first })
            var generation = Int64(owner.value(forKey: "name") as? String ?? "") ?? 0
            let deadline = Date().addingTimeInterval(60)
            while Date() < deadline {
                generation += 1
                owner.setValue(String(generation), forKey: "name")
                byTitle["item \(generation % Int64(Self.itemCount))"]?.setValue(generation, forKey: "count64")
                try context.save()
                FileHandle.standardOutput.write(Data("\(Self.savedPrefix)\(generation)\n".utf8))
            }
        }
    }

    // MARK: Creation and saves on every file store

    static let directoryVariable = "COREDATA_CRASH_CHILD_DIRECTORY"
    static let startVariable = "COREDATA_CRASH_CHILD_START"
    static let createdPrefix = "CRASH-CHILD-CREATED "
    static let creationRounds = 24
    static let creationItems = 20
    static let savesPerStore = 3

    static func creationStoreURL(_ directory: URL, _ index: Int, _ typeName: String) -> URL {
        directory.appendingPathComponent("store-\(index).\(typeName.lowercased())")
    }

    /// The generation a store of the creation test holds (0 when it has no owner) and its item count.
    static func creationState(_ type: NSPersistentStore.StoreType, at url: URL) throws -> (generation: Int, items: Int) {
        let context = try openStore(type, at: url, model: everyTypeModel())
        return try context.performAndWait {
            let owners = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Owner"))
            let items = try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Item"))
            return (owners.count == 1 ? Int(owners[0].value(forKey: "name") as? String ?? "") ?? -1 : owners.isEmpty ? 0 : -1, items)
        }
    }

    /// Runs this test binary as a child running `test` of `suite` with `environment` added, waits until it
    /// prints `marker`, lets it run for a random time under `within` microseconds, kills it with SIGKILL and
    /// returns everything it printed.
    static func runChildUntilKilled(_ executable: URL, suite: String = "CrashSafetyTests", test: String, environment: [String: String],
                                    after marker: String, within microseconds: UInt32, random: inout SplitMix64, round: Int) throws -> String {
        let child = Process()
        child.executableURL = executable
        child.arguments = ["--testing-library", "swift-testing", "--filter", "\(suite)/\(test)"]
        child.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let output = Pipe()
        child.standardOutput = output
        child.standardError = FileHandle.nullDevice
        try child.run()
        let pid = child.processIdentifier
        var reaped = false
        defer { if !reaped { kill(pid, SIGKILL); Self.reap(pid) } }
        var text = ""
        while !text.contains(marker) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        try #require(text.contains(marker), "round \(round): the child never printed \"\(marker)\": \(text.suffix(400))")
        usleep(UInt32.random(in: 0..<microseconds, using: &random))
        kill(pid, SIGKILL)
        Self.reap(pid)
        reaped = true
        return text + String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }

    /// Waits for a killed child with `waitpid` itself: Foundation's `Process.waitUntilExit()` sometimes never
    /// learns that a killed child exited (seen under load: the child a zombie, the test waiting forever).
    /// A child Foundation reaped first makes `waitpid` fail with `ECHILD`, which is just as good.
    static func reap(_ pid: pid_t) {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    }

    /// A process killed while it creates stores and saves to them (`crashChildCreatesAndSaves`) leaves, for
    /// each store, no file or a complete store: every later open succeeds, with the last completed save or
    /// the one in progress, and removes the temporary files the killed process left.
    @Test(arguments: [NSSQLiteStoreType, NSXMLStoreType, NSBinaryStoreType])
    func killedCreationsAndSavesLeaveNoStoreOrACompleteOne(_ typeName: String) throws {
        let type = NSPersistentStore.StoreType(rawValue: typeName)
        let directory = TemporaryDirectory(prefix: "crash-creation")
        let executable = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        var random = SplitMix64(seed: UInt64(typeName.utf8.count) &* 0x9E37)
        var start = 0
        var killsDuringCreation = 0
        let began = Date()
        for round in 0..<Self.creationRounds {
            // Wait until the child has created its first store, then kill it a random while later.
            let text = try Self.runChildUntilKilled(executable, test: "crashChildCreatesAndSaves",
                                                    environment: [Self.directoryVariable: directory.url.path, Self.typeVariable: typeName,
                                                                  Self.startVariable: String(start)],
                                                    after: Self.createdPrefix, within: 120_000, random: &random,
                                                    round: round)

            let lines = text.components(separatedBy: "\n")
            let created = lines.compactMap { Self.number(after: Self.createdPrefix, in: $0) }.max() ?? start
            let saved = lines.compactMap { Self.number(after: Self.savedPrefix, in: $0) }
                .filter { $0 / 10 == created }.map { $0 % 10 }.max() ?? 0
            let next = Self.creationStoreURL(directory.url, created + 1, typeName)
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { $0.hasPrefix("." + next.lastPathComponent + ".") }
            if saved == Self.savesPerStore, !leftovers.isEmpty || FileManager.default.fileExists(atPath: next.path) { killsDuringCreation += 1 }

            // The store last created: the last save it reported, or the one in progress when it was killed.
            let (generation, items) = try Self.creationState(type, at: Self.creationStoreURL(directory.url, created, typeName))
            #expect(generation == saved || generation == saved + 1, "round \(round): store \(created) holds generation \(generation); the child reported \(saved)")
            #expect(items == (generation == 0 ? 0 : Self.creationItems), "round \(round): store \(created) holds \(items) items at generation \(generation)")
            // The store it may have been creating: no store (the open makes an empty one) or a complete, empty one.
            let (nextGeneration, nextItems) = try Self.creationState(type, at: next)
            #expect(nextGeneration == 0 && nextItems == 0, "round \(round): store \(created + 1) must be empty")
            let remaining = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { $0.contains(".tmp") }
            #expect(remaining.isEmpty, "round \(round): the opens must remove the killed process's temporary files: \(remaining)")
            start = created + 2
        }
        print("\(typeName): \(Self.creationRounds) kills, \(killsDuringCreation) while creating a store, in \(Int(Date().timeIntervalSince(began) * 1000)) ms")
    }

    static func number(after prefix: String, in line: String) -> Int? {
        guard let range = line.range(of: prefix) else { return nil }
        return Int(line[range.upperBound...].trimmingCharacters(in: .whitespaces))
    }

    /// The child side: creates store after store, each with an owner and some items over `savesPerStore`
    /// saves, printing each creation and each completed save (`store * 10 + save`). Runs only when started by
    /// `killedCreationsAndSavesLeaveNoStoreOrACompleteOne`.
    @Test(.enabled(if: ProcessInfo.processInfo.environment[directoryVariable] != nil, "runs only as a child process"))
    func crashChildCreatesAndSaves() throws {
        let environment = ProcessInfo.processInfo.environment
        let directory = URL(fileURLWithPath: try #require(environment[Self.directoryVariable]))
        let typeName = try #require(environment[Self.typeVariable])
        let type = NSPersistentStore.StoreType(rawValue: typeName)
        var index = Int(environment[Self.startVariable] ?? "") ?? 0
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let context = try openStore(type, at: Self.creationStoreURL(directory, index, typeName), model: everyTypeModel())
            FileHandle.standardOutput.write(Data("\(Self.createdPrefix)\(index)\n".utf8))
            try context.performAndWait { () throws -> Void in
                let owner = NSEntityDescription.insertNewObject(forEntityName: "Owner", into: context)
                for number in 0..<Self.creationItems {
                    let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
                    item.setValue("item \(number)", forKey: "title")
                    item.setValue(owner, forKey: "owner")
                }
                for generation in 1...Self.savesPerStore {
                    owner.setValue(String(generation), forKey: "name")
                    try context.save()
                    FileHandle.standardOutput.write(Data("\(Self.savedPrefix)\(index * 10 + generation)\n".utf8))
                }
            }
            index += 1
        }
    }
}
