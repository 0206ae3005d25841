import CoreData
import Testing

/// `NSAsynchronousFetchRequest`: `execute(_:)` returns at once, the completion block gets the results on the
/// context's queue.
struct AsynchronousFetchTests {
    @Test func completesWithTheResults() async throws {
        let context = try inMemoryContext()
        try context.performAndWait {
            for name in ["Ann", "Bea"] { Author(context: context).name = name }
            try context.save()
        }
        let names: [String] = try await withCheckedThrowingContinuation { continuation in
            let fetch = NSFetchRequest<Author>(entityName: "Author")
            fetch.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
            let request = NSAsynchronousFetchRequest(fetchRequest: fetch) { result in
                if let error = result.operationError { continuation.resume(throwing: error); return }
                continuation.resume(returning: (result.finalResult ?? []).compactMap(\.name))
            }
            context.perform {
                do {
                    let started = try context.execute(request) as? NSAsynchronousFetchResult<Author>
                    #expect(started?.finalResult == nil, "execute returns before the fetch runs")
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
        #expect(names == ["Ann", "Bea"])
    }

    @Test func aCancelledFetchReportsItsError() async throws {
        let context = try inMemoryContext()
        let code: Int? = await withCheckedContinuation { continuation in
            let request = NSAsynchronousFetchRequest(fetchRequest: NSFetchRequest<Author>(entityName: "Author")) { result in
                continuation.resume(returning: (result.operationError as NSError?)?.code)
            }
            context.perform {
                let started = try? context.execute(request) as? NSAsynchronousFetchResult<Author>
                started?.cancel()
            }
        }
        #expect(code == NSUserCancelledError)
    }
}
