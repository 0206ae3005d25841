import CoreData
import Foundation
import Testing

/// What the PostgreSQL store does beyond the conformance suite: its URL and options, its column types as a
/// user of `psql` sees them, and clear errors when the server cannot be reached.
@Suite(.enabled(if: PostgreSQLTestServer.url != nil, Comment(rawValue: PostgreSQLTestServer.unavailableReason)))
struct PostgreSQLStoreTests {
    static func model() -> NSManagedObjectModel {
        let sample = NSEntityDescription(name: "Sample")
        sample.properties = [
            NSAttributeDescription(name: "name", type: .string),
            NSAttributeDescription(name: "count", type: .integer64),
            NSAttributeDescription(name: "small", type: .integer16),
            NSAttributeDescription(name: "flag", type: .boolean),
            NSAttributeDescription(name: "when", type: .date),
            NSAttributeDescription(name: "price", type: .decimal),
            NSAttributeDescription(name: "ratio", type: .double),
            NSAttributeDescription(name: "id", type: .uuid),
            NSAttributeDescription(name: "blob", type: .binaryData),
        ]
        return NSManagedObjectModel(entities: [sample])
    }

    static func context(_ url: URL, model: NSManagedObjectModel = model(), options: [AnyHashable: Any] = [:]) throws -> NSManagedObjectContext {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .postgreSQL, at: url, options: options)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// `psql`'s view of the database (of the test server's, or `server`'s): one value, as text.
    static func psql(_ sql: String, server: URL? = nil) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["psql", "-X", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", sql, try #require(server ?? PostgreSQLTestServer.url).absoluteString]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "psql ran \(sql)")
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func schema(of url: URL) -> String {
        URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "schema" }?.value ?? "public"
    }

    @Test func valuesKeepTheirTypesOnTheServerAndComeBackExactly() throws {
        let url = PostgreSQLTestServer.newStoreURL()
        defer { try? NSPersistentStoreCoordinator(managedObjectModel: Self.model()).destroyPersistentStore(at: url, type: .postgreSQL) }
        let context = try Self.context(url)
        let when = Date(timeIntervalSinceReferenceDate: 700_000_000.123456)
        let id = UUID()
        try context.performAndWait {
            let sample = NSEntityDescription.insertNewObject(forEntityName: "Sample", into: context)
            sample.setValue("héllo 'quoted'", forKey: "name")
            sample.setValue(Int64.max, forKey: "count")
            sample.setValue(Int16.min, forKey: "small")
            sample.setValue(true, forKey: "flag")
            sample.setValue(when, forKey: "when")
            sample.setValue(Decimal(string: "12345678901234567890.123456789")!, forKey: "price")
            sample.setValue(0.1, forKey: "ratio")
            sample.setValue(id, forKey: "id")
            sample.setValue(Data([0, 1, 254, 255]), forKey: "blob")
            try context.save()
        }
        let schema = Self.schema(of: url)
        let types = try Self.psql("""
            SELECT string_agg(column_name || ' ' || data_type, ', ' ORDER BY column_name) FROM information_schema.columns
            WHERE table_schema = '\(schema)' AND table_name = 'zsample'
            """)
        #expect(types == "z_ent bigint, z_opt bigint, z_pk bigint, zblob bytea, zcount bigint, zflag boolean, zid uuid, zname text, zprice numeric, zratio double precision, zsmall smallint, zwhen timestamp with time zone")
        #expect(try Self.psql("SELECT zwhen FROM \(schema).zsample") == "2023-03-08 20:26:40.123456+00")
        #expect(try Self.psql("SELECT zprice FROM \(schema).zsample") == "12345678901234567890.123456789")
        #expect(try Self.psql("SELECT zid FROM \(schema).zsample") == id.uuidString.lowercased())

        let reopened = try Self.context(url)
        try reopened.performAndWait {
            let sample = try #require(try reopened.fetch(NSFetchRequest<NSManagedObject>(entityName: "Sample")).first)
            #expect(sample.value(forKey: "name") as? String == "héllo 'quoted'")
            #expect(sample.value(forKey: "count") as? Int64 == Int64.max)
            #expect(sample.value(forKey: "small") as? Int16 == Int16.min)
            #expect(sample.value(forKey: "flag") as? Bool == true)
            #expect(sample.value(forKey: "when") as? Date == when)
            #expect(sample.value(forKey: "price") as? Decimal == Decimal(string: "12345678901234567890.123456789")!)
            #expect(sample.value(forKey: "ratio") as? Double == 0.1)
            #expect(sample.value(forKey: "id") as? UUID == id)
            #expect(sample.value(forKey: "blob") as? Data == Data([0, 1, 254, 255]))
        }
    }

    /// Integers are read in place from libpq's text: every width's extremes, zero and negative numbers.
    @Test func integersAtTheirLimitsComeBackExactly() throws {
        let url = PostgreSQLTestServer.newStoreURL()
        defer { try? NSPersistentStoreCoordinator(managedObjectModel: Self.model()).destroyPersistentStore(at: url, type: .postgreSQL) }
        let counts: [Int64] = [Int64.min, -1, 0, 7, Int64.max]
        let smalls: [Int16] = [Int16.min, -1, 0, 7, Int16.max]
        let context = try Self.context(url)
        try context.performAndWait {
            for (count, small) in zip(counts, smalls) {
                let sample = NSEntityDescription.insertNewObject(forEntityName: "Sample", into: context)
                sample.setValue(count, forKey: "count")
                sample.setValue(small, forKey: "small")
            }
            try context.save()
        }
        let reopened = try Self.context(url)
        try reopened.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Sample")
            request.sortDescriptors = [NSSortDescriptor(key: "count", ascending: true)]
            let samples = try reopened.fetch(request)
            #expect(samples.map { $0.value(forKey: "count") as? Int64 } == counts)
            #expect(samples.map { $0.value(forKey: "small") as? Int16 } == smalls)
        }
    }

    @Test func theSchemaComesFromTheOptionOrTheURL() throws {
        let url = PostgreSQLTestServer.newStoreURL()
        let named = "t_option_" + UUID().uuidString.prefix(8).lowercased()
        defer {
            try? NSPersistentStoreCoordinator(managedObjectModel: Self.model()).destroyPersistentStore(at: url, type: .postgreSQL, options: [NSPostgreSQLSchemaOption: named])
        }
        let context = try Self.context(url, options: [NSPostgreSQLSchemaOption: named])
        try context.performAndWait {
            NSEntityDescription.insertNewObject(forEntityName: "Sample", into: context).setValue("in the option's schema", forKey: "name")
            try context.save()
        }
        #expect(try Self.psql("SELECT zname FROM \(named).zsample") == "in the option's schema")
        #expect(try Self.psql("SELECT count(*) FROM pg_namespace WHERE nspname = '\(Self.schema(of: url))'") == "0")
    }

    @Test func serversCreatingOneStoreAtOnceEndWithOneStore() throws {
        let url = PostgreSQLTestServer.newStoreURL()
        defer { try? NSPersistentStoreCoordinator(managedObjectModel: Self.model()).destroyPersistentStore(at: url, type: .postgreSQL) }
        let lock = NSLock()
        var identifiers: [String] = []
        var failures: [String] = []
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            do {
                let coordinator = NSPersistentStoreCoordinator(managedObjectModel: Self.model())
                let store = try coordinator.addPersistentStore(type: .postgreSQL, at: url)
                lock.withLock { identifiers.append(store.identifier ?? "") }
            } catch {
                lock.withLock { failures.append("\(error)") }
            }
        }
        #expect(failures.isEmpty, "\(failures)")
        #expect(identifiers.count == 4 && Set(identifiers).count == 1, "every coordinator opened the one store: \(identifiers)")
    }

    @Test func badLocationsAreClearErrors() throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: Self.model())
        for (url, options) in [(URL(fileURLWithPath: "/tmp/not-a-server.sqlite"), [:]),
                               (PostgreSQLTestServer.newStoreURL(), [NSPostgreSQLSchemaOption: "Bad Name; DROP"] as [AnyHashable: Any]),
                               (PostgreSQLTestServer.newStoreURL(), [NSPostgreSQLSchemaOption: 7] as [AnyHashable: Any])] {
            #expect(throws: NSError.self) { try coordinator.addPersistentStore(type: .postgreSQL, at: url, options: options) }
            do {
                try coordinator.addPersistentStore(type: .postgreSQL, at: url, options: options)
            } catch let error as NSError {
                #expect(error.domain == NSCocoaErrorDomain && error.code == NSPersistentStoreOpenError, "\(error)")
            }
        }
        #expect(coordinator.persistentStores.isEmpty)
    }

    @Test func anUnreachableServerIsAnOpenErrorThatNeverShowsThePassword() throws {
        let url = URL(string: "postgresql://someone@127.0.0.1:1/nowhere?schema=s&connect_timeout=2")!
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: Self.model())
        do {
            try coordinator.addPersistentStore(type: .postgreSQL, at: url, options: [NSPostgreSQLPasswordOption: "s3cret-value"])
            Issue.record("a store on a closed port must not open")
        } catch let error as NSError {
            #expect(error.domain == NSCocoaErrorDomain && error.code == NSPersistentStoreOpenError)
            #expect(error.localizedDescription.contains("127.0.0.1"), "\(error.localizedDescription)")
            #expect(!"\(error)".contains("s3cret-value"))
        }
    }
}
