//
//  Managed.swift
//  Journal
//
//  The `Managed` protocol many Core Data codebases declare (the pattern of objc.io's "Core Data" book): a name
//  this package also uses, for its `@Managed` property wrapper. A module's own declaration wins inside it.
//

import CoreData

protocol Managed: AnyObject, NSFetchRequestResult {
    static var entityName: String { get }
    static var defaultSortDescriptors: [NSSortDescriptor] { get }
}

extension Managed {
    static var defaultSortDescriptors: [NSSortDescriptor] { return [] }

    static var sortedFetchRequest: NSFetchRequest<Self> {
        let request = NSFetchRequest<Self>(entityName: entityName)
        request.sortDescriptors = defaultSortDescriptors
        return request
    }
}

extension Managed where Self: NSManagedObject {
    static var entityName: String { return entity().name! }

    static func fetch(in context: NSManagedObjectContext, configurationBlock: (NSFetchRequest<Self>) -> () = { _ in }) -> [Self] {
        let request = NSFetchRequest<Self>(entityName: Self.entityName)
        configurationBlock(request)
        return try! context.fetch(request)
    }
}

extension Entry: Managed {
    static var defaultSortDescriptors: [NSSortDescriptor] {
        return [NSSortDescriptor(key: "createdAt", ascending: false)]
    }
}

/// The entries' titles, newest first, through the codebase's own `Managed` protocol.
public func newestEntryTitles(in context: NSManagedObjectContext) throws -> [String] {
    try context.fetch(Entry.sortedFetchRequest).map(\.title)
}

/// The entries whose title starts with `prefix`, through `Managed.fetch(in:configurationBlock:)`.
public func entryTitles(startingWith prefix: String, in context: NSManagedObjectContext) -> [String] {
    Entry.fetch(in: context) { request in
        request.predicate = NSPredicate(format: "title BEGINSWITH %@", prefix)
    }.map(\.title).sorted()
}
