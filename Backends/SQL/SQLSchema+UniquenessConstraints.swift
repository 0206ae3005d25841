import CoreDataStoreKit

extension SQLSchema {
    /// The slots of `entity` that belong to a uniqueness constraint of it or of an ancestor: the columns a
    /// save clears before writing new values, so values can move between rows within one save.
    public static func constrainedSlots(of entity: NSEntityDescription) -> Set<Int> {
        var slots = Set<Int>()
        var current: NSEntityDescription? = entity
        while let declaring = current {
            for constraint in declaring.uniquenessConstraints {
                for case let name as String in constraint {
                    // A composite's leaf (`location.latitude`) constrains the composite's slot.
                    let property = name.split(separator: ".", maxSplits: 1).first.map(String.init) ?? name
                    if let slot = entity.layout.slotByName[property] { slots.insert(slot) }
                }
            }
            current = declaring.superentity
        }
        return slots
    }
}
