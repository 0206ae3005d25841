import CSQLite
import CoreData
import CoreDataSQLite
import Foundation
import StoreTestSupport
import Testing

/// The metadata a SQLite store writes is Apple's: the model keys Apple's Core Data writes, with Apple's
/// values, kept across every save; stores are compared by hash, and bad hashes are a thrown 134100.
struct StoreMetadataTests {
    static func model() -> NSManagedObjectModel {
        let name = NSAttributeDescription(name: "name", type: .string, isOptional: false)
        return NSManagedObjectModel(entities: [entity("Member", [name, attribute("rank", .integer32)])])
    }

    /// Replaces the plist in `Z_METADATA` (the UUID column is left as it is).
    static func writePlist(_ plist: [String: Any], to url: URL) throws {
        let data = try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0)
        var db: OpaquePointer?
        guard sqlite3_open_v2(url.path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, let db else { throw Fixtures.FixtureMissing() }
        defer { sqlite3_close_v2(db) }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, "UPDATE Z_METADATA SET Z_PLIST = ?", -1, &statement, nil) == SQLITE_OK, let statement else {
            throw Fixtures.FixtureMissing()
        }
        defer { sqlite3_finalize(statement) }
        _ = data.withUnsafeBytes { sqlite3_bind_blob(statement, 1, $0.baseAddress, Int32(data.count), unsafeBitCast(-1, to: sqlite3_destructor_type.self)) }
        #expect(sqlite3_step(statement) == SQLITE_DONE)
    }

    static func expectApplesModelKeys(_ metadata: [String: Any], _ model: NSManagedObjectModel,
                                      sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(metadata[NSStoreModelVersionHashesKey] as? [String: Data] == model.entityVersionHashesByName, sourceLocation: sourceLocation)
        #expect(metadata[NSStoreModelVersionHashesVersionKey] as? Int == 3, sourceLocation: sourceLocation)
        #expect(metadata[NSStoreModelVersionIdentifiersKey] as? [String] == [""], sourceLocation: sourceLocation)
        #expect(metadata["NSStoreModelVersionHashesDigest"] as? String == VersionHashing.digest(of: model.entityVersionHashesByName),
                sourceLocation: sourceLocation)
        #expect(metadata["NSStoreModelVersionChecksumKey"] as? String == model.versionChecksum, sourceLocation: sourceLocation)
        #expect(metadata[NSPersistenceFrameworkVersionKey] as? Int == 1344, sourceLocation: sourceLocation)
        #expect(metadata["_NSAutoVacuumLevel"] as? String == "2", sourceLocation: sourceLocation)
        #expect(model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata), sourceLocation: sourceLocation)
    }

    @Test func aNewStoreRecordsItsModelAsAppleDoes() throws {
        let url = TemporaryStore.url()
        let model = Self.model()
        try Stack(model: model, url: url).close()
        let metadata = try SQLiteStore.metadataForStore(at: url, options: nil)
        Self.expectApplesModelKeys(metadata, model)
        #expect(RawSQLite.rows(url, "SELECT Z_UUID FROM Z_METADATA") == [[try #require(metadata[NSStoreUUIDKey] as? String)]])
    }

    @Test func theModelKeysSurviveMetadataAnAppSets() throws {
        let url = TemporaryStore.url()
        let model = Self.model()
        let stack = try Stack(model: model, url: url)
        stack.coordinator.setMetadata(["app": "value"], for: stack.store)
        try stack.context.performAndWait {
            NSManagedObject(entity: try #require(model.entitiesByName["Member"]), insertInto: stack.context).setValue("a", forKey: "name")
            try stack.context.save()
        }
        try stack.close()
        let metadata = try SQLiteStore.metadataForStore(at: url, options: nil)
        #expect(metadata["app"] as? String == "value")
        Self.expectApplesModelKeys(metadata, model)
        let reopened = try Stack(model: Self.model(), url: url)
        #expect(try reopened.count("Member") == 1)
        try reopened.close()
    }

    @Test func aStoreWithAnotherModelsHashesIsRefused() throws {
        let url = TemporaryStore.url()
        try Stack(model: Self.model(), url: url).close()
        let other = NSManagedObjectModel(entities: [entity("Member", [attribute("name", .string), attribute("rank", .integer32)])])
        let error = thrownError { _ = try Stack(model: other, url: url) }
        #expect(error?.code == NSPersistentStoreIncompatibleVersionHashError)
    }

    @Test func badHashesInAStoreAreAThrown134100() throws {
        let url = TemporaryStore.url()
        let model = Self.model()
        try Stack(model: model, url: url).close()
        let good = try SQLiteStore.metadataForStore(at: url, options: nil)
        for bad in [Data(count: 31), Data(count: 33), "text"] as [Any] {
            var plist = good
            plist[NSStoreUUIDKey] = nil
            plist[NSStoreModelVersionHashesKey] = ["Member": bad]
            try Self.writePlist(plist, to: url)
            let before = fileBytes(url)
            let error = thrownError { _ = try Stack(model: model, url: url) }
            #expect(error?.code == NSPersistentStoreIncompatibleVersionHashError, "\(bad)")
            #expect(fileBytes(url) == before)
        }
    }

    /// A store written by an earlier version of this package records hashes of its own scheme: its schema is
    /// checked, not its hashes, and it records Apple's keys from its next metadata write.
    @Test func aStoreOfAnEarlierVersionOfThisPackageOpensAndIsUpgraded() throws {
        let url = TemporaryStore.url()
        let model = Self.model()
        try Stack(model: model, url: url).close()
        var plist = try SQLiteStore.metadataForStore(at: url, options: nil)
        plist[NSStoreUUIDKey] = nil
        plist[NSPersistenceFrameworkVersionKey] = "swift-coredata 1"
        plist[NSStoreModelVersionHashesKey] = ["Member": Data(repeating: 7, count: 32)]
        plist["NSStoreModelVersionHashesDigest"] = nil
        plist["NSStoreModelVersionChecksumKey"] = nil
        try Self.writePlist(plist, to: url)
        let stack = try Stack(model: model, url: url)
        stack.coordinator.setMetadata(["app": 1], for: stack.store)
        try stack.context.performAndWait {
            NSManagedObject(entity: try #require(model.entitiesByName["Member"]), insertInto: stack.context).setValue("a", forKey: "name")
            try stack.context.save()
        }
        try stack.close()
        Self.expectApplesModelKeys(try SQLiteStore.metadataForStore(at: url, options: nil), model)
    }

    /// The rebuilt model of SampleModel3 is exact, so Apple's store opens with it; a changed one is refused.
    @Test(.enabled(if: Fixtures.available)) func anAppleStoreOpensWithAnExactModelBuiltInCode() throws {
        let url = try Fixtures.copy("alemar11__CoreDataPlus__Tests__Resources__SampleModel3__Fixtures__SampleModel3_V1.sqlite")
        let metadata = try SQLiteStore.metadataForStore(at: url, options: nil)
        #expect(FixtureModels.sampleModel3().isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
        let stack = try Stack(model: FixtureModels.sampleModel3(), url: url, options: [NSReadOnlyPersistentStoreOption: true])
        #expect(try stack.count("User") == 12)
        try stack.close()
        let loose = FixtureModels.sampleModel3()
        loose.entitiesByName["User"]?.attributesByName["name"]?.isOptional = true
        #expect(thrownError { _ = try Stack(model: loose, url: url) }?.code == NSPersistentStoreIncompatibleVersionHashError)
    }
}
