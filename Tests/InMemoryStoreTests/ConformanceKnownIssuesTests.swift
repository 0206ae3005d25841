import Testing
import CoreData
import CoreDataConformance
import CoreDataInMemory

/// A store that keeps its rows in memory but states that it is `persistent`: a real gap, which
/// `add-store/reopen` finds (a new coordinator sees none of the saved rows).
final class MemoryOnlyClaimingPersistenceStore: PersistentStoreBackend {
    private let inner: InMemoryStore
    init(_ request: StoreOpenRequest) throws { inner = try InMemoryStore(request) }
    static func metadataForStore(at url: URL, options: [AnyHashable: Any]?) throws -> [String: Any] {
        throw CoreDataError.unsupported("metadata of stores without files")
    }
    var metadata: [String: Any] { inner.metadata }
    var capabilities: StoreCapabilities { [.persistent] }
    func fetch(_ request: StoreFetchRequest) throws -> StoreFetchResult { try inner.fetch(request) }
    func rows(for keys: [ObjectKey]) throws -> [StoreRow] { try inner.rows(for: keys) }
    func relatedKeys(of key: ObjectKey, through relationship: NSRelationshipDescription) throws -> [ObjectKey] {
        try inner.relatedKeys(of: key, through: relationship)
    }
    func allocatePrimaryKeys(for entity: NSEntityDescription, count: Int) throws -> [Int64] {
        try inner.allocatePrimaryKeys(for: entity, count: count)
    }
    func save(_ changes: StoreChangeSet) throws -> StoreSaveResult { try inner.save(changes) }
    func batchDelete(_ request: StoreBatchDeleteRequest) throws -> [ObjectKey] { try inner.batchDelete(request) }
    func close() { inner.close() }
}

/// The known-issues table: a listed case that fails is reported as a known issue (the test passes), and a
/// listed case that passes is reported as an issue ("known issue was not recorded").
@Suite struct ConformanceKnownIssuesTests {
    // A name of its own: BrokenStoreTests registers another class as "ForgetfulTest", and suites run in parallel.
    static let storeType = "MemoryOnlyClaimingPersistenceTest"
    static let plan: ConformancePlan = {
        NSPersistentStoreCoordinator.registerStoreClass(MemoryOnlyClaimingPersistenceStore.self, forStoreType: storeType)
        return ConformancePlan(ConformanceConfiguration(storeTypeName: storeType), knownIssues: [
            ConformanceKnownIssue(storeType: storeType, caseName: "add-store/reopen", reason: "rows live in memory only"),
            ConformanceKnownIssue(storeType: storeType, caseName: "add-store/unknown-type", reason: "listed although it passes"),
            ConformanceKnownIssue(storeType: "SomeOtherStore", caseName: "save/ordered", reason: "another store's gap"),
        ])
    }()

    static func testCase(_ name: String) throws -> ConformanceCase {
        try #require(ConformanceSuite.cases.first { $0.name == name })
    }

    @Test func theTableKeepsTheStoreTypesEntriesOnly() {
        #expect(Self.plan.knownIssues == ["add-store/reopen": "rows live in memory only",
                                          "add-store/unknown-type": "listed although it passes"])
    }

    @Test func theGapIsRealWithoutTheTable() throws {
        let plain = ConformancePlan(ConformanceConfiguration(storeTypeName: Self.storeType), knownIssues: [])
        #expect(Self.plan.applicable.contains { $0.name == "add-store/reopen" })
        let reopen = try Self.testCase("add-store/reopen")
        #expect(throws: ConformanceFailure.self) { try plain.run(reopen) }
    }

    @Test func aListedCaseThatFailsIsAKnownIssue() throws {
        // Without the table this throws the case's failure (as `theGapIsRealWithoutTheTable` shows) and the test
        // fails; with it, the failure is recorded as a known issue.
        try Self.plan.run(try Self.testCase("add-store/reopen"))
    }

    @Test func aListedCaseThatPassesIsReported() throws {
        let passing = try Self.testCase("add-store/unknown-type")
        try withKnownIssue("the listed case passed, so the entry must go") {
            try Self.plan.run(passing)
        } matching: { issue in
            if case .knownIssueNotRecorded = issue.kind { return true }
            return false
        }
    }
}
