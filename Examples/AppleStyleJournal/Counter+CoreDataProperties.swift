//
//  Counter+CoreDataProperties.swift
//  Journal
//

import Foundation
import CoreData


extension Counter {

    @nonobjc public class func fetchRequest() -> NSFetchRequest<Counter> {
        return NSFetchRequest<Counter>(entityName: "Counter")
    }

    @NSManaged public var name: String
    @NSManaged public var value: Int64

}

extension Counter : Identifiable {

}
