import Testing
import CoreData
import CoreDataConformance

@Suite struct InMemoryConformanceTests {
    static let plan = ConformancePlan(ConformanceConfiguration(storeType: .inMemory))

    @Test(arguments: plan.applicable)
    func conformance(_ testCase: ConformanceCase) throws {
        try Self.plan.run(testCase)
    }

    @Test(.disabled(if: !plan.skipped.isEmpty, Comment(rawValue: plan.skipReport)), arguments: plan.skipped)
    func skipped(_ testCase: ConformanceCase) {}
}
