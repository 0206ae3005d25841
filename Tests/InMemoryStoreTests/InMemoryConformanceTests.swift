import Testing
import CoreData
import CoreDataConformance

@Suite struct InMemoryConformanceTests {
    @Test(arguments: ConformanceSuite.cases)
    func conformance(_ testCase: ConformanceCase) throws {
        do {
            try testCase.run(with: ConformanceConfiguration(storeType: .inMemory))
        } catch let skip as ConformanceSkip {
            try Test.cancel(Comment(rawValue: skip.description))
        }
    }
}
