//
//  Journal+CoreDataProperties.swift
//  Journal
//

import Foundation
import CoreData


extension Journal {

    @nonobjc public class func fetchRequest() -> NSFetchRequest<Journal> {
        return NSFetchRequest<Journal>(entityName: "Journal")
    }

    @NSManaged public var name: String
    @NSManaged public var entries: NSSet?

}

// MARK: Generated accessors for entries
extension Journal {

    @NSManaged public func addToEntries(_ value: Entry)

    @NSManaged public func removeFromEntries(_ value: Entry)

    @NSManaged public func addToEntries(_ values: NSSet)

    @NSManaged public func removeFromEntries(_ values: NSSet)

}

extension Journal : Identifiable {

}
