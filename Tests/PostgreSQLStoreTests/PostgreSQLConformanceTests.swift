import CoreData
import CoreDataConformance
import Testing

/// The shared conformance suite, every case, on the PostgreSQL store: each case's stores in a schema of
/// their own on the test server (`PostgreSQLTestServer`). Skipped, with the reason, when no server can be had.
@Suite(.enabled(if: PostgreSQLTestServer.url != nil, Comment(rawValue: PostgreSQLTestServer.unavailableReason)))
struct PostgreSQLConformanceTests {
    static let plan = ConformancePlan(ConformanceConfiguration(storeType: .postgreSQL, makeURL: { PostgreSQLTestServer.newStoreURL() }))

    @Test(arguments: PostgreSQLTestServer.url == nil ? [] : plan.applicable)
    func conformance(_ testCase: ConformanceCase) throws {
        try Self.plan.run(testCase)
    }

    /// The cases that do not apply. Its comment is fixed text, not `plan.skipReport`: a trait's comment is made
    /// when the tests are listed, in every test process (filtered or not), and making the plan there would start
    /// the PostgreSQL server in processes that run no PostgreSQL test.
    @Test(.disabled(if: PostgreSQLTestServer.url == nil || !plan.skipped.isEmpty,
                    "cases the PostgreSQL store lacks a capability for (ConformancePlan.skipReport names each and what it needs)"),
          arguments: PostgreSQLTestServer.url == nil ? [] : plan.skipped)
    func skipped(_ testCase: ConformanceCase) {}
}
