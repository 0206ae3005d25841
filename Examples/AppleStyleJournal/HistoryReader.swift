//
//  HistoryReader.swift
//  Journal
//
//  Persistent history processing as in Apple's "Consuming Relevant Store Changes": fetch the transactions after
//  the last token, merge those of other authors into the view context, remember the token on disk.
//

import CoreData

public final class HistoryReader {
    private let container: NSPersistentContainer
    private let tokenFile: URL
    private var lastToken: NSPersistentHistoryToken?

    public init(container: NSPersistentContainer, tokenFile: URL) {
        self.container = container
        self.tokenFile = tokenFile
        if let data = try? Data(contentsOf: tokenFile) {
            lastToken = try? NSKeyedUnarchiver.unarchivedObject(ofClass: NSPersistentHistoryToken.self, from: data)
        }
    }

    /// Merges the transactions other authors saved since the last call; returns how many it merged.
    @discardableResult
    public func mergeNewTransactions() throws -> Int {
        let taskContext = container.newBackgroundContext()
        let transactions: [NSPersistentHistoryTransaction] = try taskContext.performAndWait {
            let request = NSPersistentHistoryChangeRequest.fetchHistory(after: lastToken)
            if let fetchRequest = NSPersistentHistoryTransaction.fetchRequest {
                fetchRequest.predicate = NSPredicate(format: "%K != %@", "author", "app")
                request.fetchRequest = fetchRequest
            }
            let result = try taskContext.execute(request) as? NSPersistentHistoryResult
            return result?.result as? [NSPersistentHistoryTransaction] ?? []
        }
        let viewContext = container.viewContext
        viewContext.performAndWait {
            for transaction in transactions {
                viewContext.mergeChanges(fromContextDidSave: transaction.objectIDNotification())
            }
        }
        if let token = transactions.last?.token {
            lastToken = token
            let data = try NSKeyedArchiver.archivedData(withRootObject: token, requiringSecureCoding: true)
            try data.write(to: tokenFile)
        }
        return transactions.count
    }
}
