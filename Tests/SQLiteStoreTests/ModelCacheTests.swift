import CSQLite
import CoreData
import CoreDataSQLite
import Foundation
import StoreTestSupport
import Testing

/// The model Apple caches in a store (`Z_MODELCACHE.Z_CONTENT`, raw DEFLATE) inflates to the `.mom` extracted
/// from it, loads, and opens its store; `SQLiteStore.cachedModel(at:)` reads it without changing the file.
@Suite(.enabled(if: Fixtures.available, "fixtures not found (set COREDATA_FIXTURES or put them in ../shared/fixtures)"))
struct ModelCacheTests {
    /// Every fixture store file (not its `-wal`/`-shm`).
    static let stores: [String] = {
        guard let folder = Fixtures.sqlite("") else { return [] }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".sqlite") }.sorted()
    }()

    /// The `.mom` extracted from a store's `Z_MODELCACHE`, when there is one.
    static func extractedModel(_ store: String) -> URL? {
        guard let url = Fixtures.root?.appendingPathComponent("apple/mom/from_Z_MODELCACHE/\(store).Z_MODELCACHE.mom"),
              FileManager.default.fileExists(atPath: url.path) else { return nil }
        return url
    }

    /// The first non-empty `Z_MODELCACHE.Z_CONTENT`, read with the C API; nil when there is none.
    static func cachedContent(_ url: URL) throws -> Data? {
        var db: OpaquePointer?
        guard sqlite3_open_v2(url.path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK, let db else { throw Fixtures.FixtureMissing() }
        defer { sqlite3_close_v2(db) }
        var statement: OpaquePointer?
        let sql = "SELECT Z_CONTENT FROM Z_MODELCACHE WHERE length(Z_CONTENT) > 0 LIMIT 1"
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else { return nil }  // no table
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW, let bytes = sqlite3_column_blob(statement, 0) else { return nil }
        return Data(bytes: bytes, count: Int(sqlite3_column_bytes(statement, 0)))
    }

    @Test("every cached model inflates to the extracted .mom and loads", arguments: stores)
    func cachedContentInflatesToTheExtractedModel(_ store: String) throws {
        let url = try Fixtures.copy(store)
        let extracted = Self.extractedModel(store)
        guard let content = try Self.cachedContent(url) else {
            #expect(extracted == nil, "the store has no cached model, but \(store).Z_MODELCACHE.mom exists")
            return
        }
        let expected = try Data(contentsOf: try #require(extracted, "no extracted .mom for \(store)"))
        let inflated = try RawDeflate.inflate(content, maximumSize: 64 << 20)
        #expect(inflated == expected)
        let model = try ModelFileLoader.model(fromCompiledData: inflated, source: url)
        #expect(!model.entities.isEmpty)
        #expect(ModelComparison.differences(model, try NSManagedObjectModel.load(contentsOf: try #require(extracted))) == [])
    }

    @Test("every store with a cache has its extracted .mom, and the other way round")
    func everyExtractedModelHasAStore() throws {
        let extracted = try FileManager.default.contentsOfDirectory(
            atPath: try #require(Fixtures.root).appendingPathComponent("apple/mom/from_Z_MODELCACHE").path).filter { $0.hasSuffix(".mom") }
        #expect(!extracted.isEmpty)
        for name in extracted {
            let store = String(name.dropLast(".Z_MODELCACHE.mom".count))
            #expect(Self.stores.contains(store), "\(name) has no store")
        }
    }

    @Test("cachedModel(at:) opens the store with the row counts, and leaves the file as it was",
          arguments: FixtureStoreTests.cases)
    func cachedModelOpensItsStore(_ test: FixtureStoreTests.Case) throws {
        let url = try Fixtures.copy(test.file)
        let folder = url.deletingLastPathComponent()
        let before = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted().map { ($0, fileBytes(folder.appendingPathComponent($0))) }
        let model = try SQLiteStore.cachedModel(at: url)
        let after = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted().map { ($0, fileBytes(folder.appendingPathComponent($0))) }
        #expect(before.map(\.0) == after.map(\.0), "files appeared beside the store")
        // The `-shm` file is SQLite's shared-memory index of the log, not data: any reader of a WAL store may
        // rebuild it. The store and its log must stay byte for byte as they were.
        let data = { (files: [(String, Data?)]) in files.filter { !$0.0.hasSuffix("-shm") }.map(\.1) }
        #expect(data(before) == data(after), "the store or its log changed")
        guard let model else {
            #expect(Self.extractedModel(test.file) == nil, "cachedModel(at:) returned nil for a store with a cached model")
            return
        }
        #expect(Self.extractedModel(test.file) != nil)
        let stack = try Stack(model: model, url: url, options: [NSReadOnlyPersistentStoreOption: true])
        for (entity, count) in test.counts {
            #expect(try stack.count(entity) == count, "\(entity)")
        }
        try stack.close()
    }

    /// A store written here caches its model as Apple's does (raw DEFLATE of the `.mom` archive), so it opens
    /// with `cachedModel(at:)` alone.
    @Test func storeWrittenHereCachesItsModel() throws {
        let url = TemporaryStore.url()
        let model = FixtureModels.sampleModel()
        let stack = try Stack(model: model, url: url)
        try stack.close()
        let content = try #require(try Self.cachedContent(url))
        let archive = try RawDeflate.inflate(content, maximumSize: 64 << 20)
        #expect(archive.starts(with: Array("bplist00".utf8)))
        let cached = try #require(try SQLiteStore.cachedModel(at: url))
        #expect(ModelComparison.differences(cached, model) == [])
        #expect(cached.entityVersionHashesByName == model.entityVersionHashesByName)
        let reopened = try Stack(model: cached, url: url, options: [NSReadOnlyPersistentStoreOption: true])
        #expect(try reopened.count("Car") == 0)
        try reopened.close()
    }

    /// A derived attribute is written into the cache with its expression: the cached model reopens the store.
    @Test func storeOfAModelWithADerivedAttributeCachesIt() throws {
        let url = TemporaryStore.url()
        let model = FixtureModels.sampleModel3()
        let entity = try #require(model.entities.first)
        let derived = NSDerivedAttributeDescription()
        derived.name = "nameCopy"
        derived.attributeType = .stringAttributeType
        derived.isOptional = true
        derived.derivationExpressionFormat = "name"
        entity.properties = entity.properties + [derived]
        let stack = try Stack(model: model, url: url)
        try stack.close()
        let cached = try #require(try SQLiteStore.cachedModel(at: url))
        let cachedDerived = cached.entitiesByName[entity.name ?? ""]?.propertiesByName["nameCopy"] as? NSDerivedAttributeDescription
        #expect(cachedDerived?.derivationExpressionFormat == "name")
        #expect(ModelComparison.differences(cached, model) == [])
        #expect(cached.entityVersionHashesByName == model.entityVersionHashesByName)
        let reopened = try Stack(model: cached, url: url, options: [NSReadOnlyPersistentStoreOption: true])
        #expect(try reopened.count(entity.name ?? "") == 0)
        try reopened.close()
    }

    /// A model the `.mom` writer refuses (a block validation predicate, which has no archived form) leaves the
    /// cache empty.
    @Test func storeOfAModelTheWriterRefusesHasNoCachedModel() throws {
        let url = TemporaryStore.url()
        let model = FixtureModels.sampleModel3()
        let entity = try #require(model.entities.first)
        let attribute = try #require(entity.properties.first { $0 is NSAttributeDescription })
        attribute.setValidationPredicates([NSPredicate { _, _ in true }], withValidationWarnings: ["never"])
        let stack = try Stack(model: model, url: url)
        try stack.close()
        #expect(try SQLiteStore.cachedModel(at: url) == nil)
    }

    /// Every fixture store's cached model, written in Apple's form and read back, equals it with its hashes.
    @Test("every cached model round-trips through the .mom writer", arguments: stores)
    func cachedModelRoundTrips(_ store: String) throws {
        let url = try Fixtures.copy(store)
        guard let model = try SQLiteStore.cachedModel(at: url) else {
            #expect(Self.extractedModel(store) == nil, "cachedModel(at:) returned nil for a store with a cached model")
            return
        }
        let back = try ModelFileLoader.model(fromCompiledData: try MOMArchiveWriter.archive(model, file: url), source: url)
        #expect(ModelComparison.differences(model, back) == [])
        #expect(back.entityVersionHashesByName == model.entityVersionHashesByName)
        #expect(back.versionChecksum == model.versionChecksum)
    }

    /// Validation predicates are written into the cache, and read back.
    @Test func storeOfAModelWithValidationPredicatesCachesThem() throws {
        let url = TemporaryStore.url()
        let model = FixtureModels.sampleModel3()
        let entity = try #require(model.entities.first)
        let attribute = try #require(entity.properties.first { $0 is NSAttributeDescription })
        attribute.validationPredicateFormats = ["length >= 1"]
        attribute.validationPredicateFormatWarnings = ["too short"]
        let stack = try Stack(model: model, url: url)
        try stack.close()
        let cached = try #require(try SQLiteStore.cachedModel(at: url))
        #expect(cached.entitiesByName[entity.name ?? ""]?.propertiesByName[attribute.name]?.validationPredicateFormats == ["length >= 1"])
    }

    @Test func missingFileAndOtherFilesThrow() throws {
        let missing = TemporaryStore.url()
        #expect(thrownError { _ = try SQLiteStore.cachedModel(at: missing) }?.code == NSFileReadNoSuchFileError)
        let text = TemporaryStore.url()
        try Data(String(repeating: "not a database ", count: 20).utf8).write(to: text)
        #expect(thrownError { _ = try SQLiteStore.cachedModel(at: text) }?.code == NSPersistentStoreInvalidTypeError)
        let plain = TemporaryStore.url()
        RawSQLite.execute(plain, "CREATE TABLE T (A INTEGER)")
        #expect(thrownError { _ = try SQLiteStore.cachedModel(at: plain) }?.code == NSPersistentStoreInvalidTypeError)
    }

    @Test func damagedCacheThrows259() throws {
        let url = try Fixtures.copy("alemar11__CoreDataPlus__Tests__Resources__SampleModel3__Fixtures__SampleModel3_V1.sqlite")
        RawSQLite.execute(url, "UPDATE Z_MODELCACHE SET Z_CONTENT = X'07FFFF'")
        let error = thrownError { _ = try SQLiteStore.cachedModel(at: url) }
        #expect(error?.code == NSFileReadCorruptFileError)
        #expect(error?.localizedDescription.contains("Z_MODELCACHE") == true, "\(error?.localizedDescription ?? "no error")")
    }

    /// Truncations and random damage of a real cached model: the decoder returns or throws 259, never traps.
    @Test func damagedContentOnlyThrows() throws {
        let url = try Fixtures.copy("alemar11__CoreDataPlus__Tests__Resources__SampleModel__Fixtures__SampleModel_V1.sqlite")
        let content = try #require(try Self.cachedContent(url))
        var inputs: [Data] = stride(from: 0, to: content.count, by: max(1, content.count / 100)).map { content.prefix($0) }
        var random = SplitMix64(seed: 0x2D0D_E1CA)
        for _ in 0..<300 {
            inputs.append(mutate(content, &random))
        }
        var thrown = 0
        for (index, input) in inputs.enumerated() {
            do {
                let output = try RawDeflate.inflate(input, maximumSize: 1 << 20)
                #expect(output.count <= 1 << 20)
            } catch let error as NSError {
                thrown += 1
                #expect(error.domain == NSCocoaErrorDomain && error.code == NSFileReadCorruptFileError, "input \(index): \(error)")
            }
        }
        #expect(thrown >= 100)  // every truncation, at least
    }
}
