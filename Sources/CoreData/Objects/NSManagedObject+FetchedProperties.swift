/// Reading a fetched property: the first read runs the property's fetch in the object's context, with
/// `$FETCH_SOURCE` bound to the object and `$FETCHED_PROPERTY` to the property's description, and keeps the
/// resulting array until the object is refreshed (`refresh(_:mergeChanges:)`), as Apple's fetched properties do.
extension NSManagedObject {
    /// The objects of a fetched property, fetched on first read; an empty array when the object has no context,
    /// the property has no fetch, or the fetch fails.
    func fetchedPropertyValue(slot: Int, _ property: NSFetchedPropertyDescription) -> [NSManagedObject] {
        if let cached = slots[slot] as? [NSManagedObject] { return cached }
        guard let context = managedObjectContext, let template = property.fetchRequest else { return [] }
        let request = NSFetchRequest<NSManagedObject>()
        request.copyFields(from: template)
        request.predicate = template.predicate?.withSubstitutionVariables(["FETCH_SOURCE": self, "FETCHED_PROPERTY": property])
        let objects = (try? context.fetch(request)) ?? []
        slots[slot] = objects
        return objects
    }
}
