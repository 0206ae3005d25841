import Testing
import CoreData
import CoreDataConformance

/// The shared conformance suite, every case, against the XML store (files in temporary directories).
@Suite struct XMLConformanceTests {
    static let plan = ConformancePlan(ConformanceConfiguration(storeType: .xml))

    @Test(arguments: plan.applicable)
    func conformance(_ testCase: ConformanceCase) throws {
        try Self.plan.run(testCase)
    }

    @Test(.disabled(if: !plan.skipped.isEmpty, Comment(rawValue: plan.skipReport)), arguments: plan.skipped)
    func skipped(_ testCase: ConformanceCase) {}
}
