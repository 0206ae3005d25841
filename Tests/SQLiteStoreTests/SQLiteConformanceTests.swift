import Testing
import CoreData
import CoreDataConformance

/// The shared conformance suite, every case, on the SQLite store.
@Suite struct SQLiteConformanceTests {
    static let plan = ConformancePlan(ConformanceConfiguration(storeType: .sqlite))

    @Test(arguments: plan.applicable)
    func conformance(_ testCase: ConformanceCase) throws {
        try Self.plan.run(testCase)
    }

    @Test(.disabled(if: !plan.skipped.isEmpty, Comment(rawValue: plan.skipReport)), arguments: plan.skipped)
    func skipped(_ testCase: ConformanceCase) {}
}

/// The shared conformance suite on SQLite stores at `/dev/null`: Apple's in-memory SQLite store, which tests
/// and previews use. Each store is a database of its own in memory; nothing is written to any file.
@Suite struct DevNullSQLiteConformanceTests {
    static let plan = ConformancePlan(ConformanceConfiguration(storeType: .sqlite, makeURL: { URL(fileURLWithPath: "/dev/null") }))

    @Test(arguments: plan.applicable)
    func conformance(_ testCase: ConformanceCase) throws {
        try Self.plan.run(testCase)
    }

    @Test(.disabled(if: !plan.skipped.isEmpty, Comment(rawValue: plan.skipReport)), arguments: plan.skipped)
    func skipped(_ testCase: ConformanceCase) {}
}
