/// Takes the values of some properties from rows, by name: what a `.dictionaries` fetch result holds for each
/// row (nil values left out, to-ones as `ObjectKey`s), and what contexts read to build dictionary results
/// straight from rows.
///
/// Each property's slot is looked up once per run of rows of one entity (`slots(ofEntityNumber:in:)`), and each
/// dictionary is made with room for every property, so a row costs its own values only. The SQL and atomic stores
/// make their dictionary results with it.
public struct StoreDictionaryProjection {
    /// The properties asked for, in order.
    public let properties: [NSPropertyDescription]
    /// The entity number of the last run of rows, and each property's slot in its rows (nil: the entity lacks it).
    private var lastEntityNumber: Int32?
    private var lastSlots: [Int?] = []

    /// A projection onto `properties`.
    public init(properties: [NSPropertyDescription]) {
        self.properties = properties
    }

    /// The slot of each property (in the order of `properties`) in rows of the entity numbered `entityNumber` in
    /// `model`: nil for a property that entity lacks. Nil for a number that is no entity of `model`.
    public mutating func slots(ofEntityNumber entityNumber: Int32, in model: NSManagedObjectModel) -> [Int?]? {
        if entityNumber == lastEntityNumber { return lastSlots }
        guard let layout = model.entity(withNumber: entityNumber)?.layout else { return nil }
        lastSlots = properties.map { layout.slotByName[$0.name] }
        lastEntityNumber = entityNumber
        return lastSlots
    }

    /// The dictionary of one row of the entity numbered `entityNumber` in `model` (`values` in slot order): the
    /// value of each property the entity has and that is not nil, under the property's name; nil when the number
    /// is no entity of `model`.
    public mutating func dictionary(of values: [Any?], entityNumber: Int32, in model: NSManagedObjectModel) -> [String: Any]? {
        guard let slots = slots(ofEntityNumber: entityNumber, in: model) else { return nil }
        var dictionary = [String: Any](minimumCapacity: properties.count)
        for (property, slot) in zip(properties, slots) {
            guard let slot, values.indices.contains(slot), let value = values[slot] else { continue }
            dictionary[property.name] = value
        }
        return dictionary
    }
}
