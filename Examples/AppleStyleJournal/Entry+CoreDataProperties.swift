//
//  Entry+CoreDataProperties.swift
//  Journal
//

import Foundation
import CoreData


extension Entry {

    @nonobjc public class func fetchRequest() -> NSFetchRequest<Entry> {
        return NSFetchRequest<Entry>(entityName: "Entry")
    }

    @NSManaged public var body: String?
    @NSManaged public var createdAt: Date
    @NSManaged public var id: UUID
    @NSManaged public var isFavorite: Bool
    @NSManaged public var mood: Int16
    @NSManaged public var title: String
    @NSManaged public var journal: Journal?

}

extension Entry : Identifiable {

}
