// The conformance suite on ScratchStore, the store written from Docs/WritingAStore.md alone (see
// ScratchStore.swift): the test is the document's "Checking a store with the conformance suite" snippet with the
// names changed. Every case that applies must pass; the cases of the refinement protocols the store does not
// adopt (batch update and insert, lightweight migration, history, …) are reported as skipped.
import Testing
import CoreData
import CoreDataConformance

@Suite struct ScratchStoreConformance {
    static let plan: ConformancePlan = {
        NSPersistentStoreCoordinator.registerStoreClass(ScratchStore.self, forStoreType: ScratchStore.typeName)
        return ConformancePlan(ConformanceConfiguration(storeTypeName: ScratchStore.typeName))
    }()

    @Test(arguments: plan.applicable)
    func conformance(_ testCase: ConformanceCase) throws {
        try Self.plan.run(testCase)
    }

    @Test(.disabled(if: !plan.skipped.isEmpty, Comment(rawValue: plan.skipReport)), arguments: plan.skipped)
    func skipped(_ testCase: ConformanceCase) {}
}
