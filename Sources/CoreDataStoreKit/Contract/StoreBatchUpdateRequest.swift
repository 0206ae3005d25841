/// A batch update as a store receives it: the rows a fetch matches, and the new value of each attribute,
/// already checked and converted.
public struct StoreBatchUpdateRequest {
    /// One attribute and its new value, in the form `StoreRow.values` holds (nil clears it).
    public struct Assignment {
        /// The attribute to set, of the fetch's entity or one of its ancestors.
        public let attribute: NSAttributeDescription
        /// Its new value, in the attribute's storage type; nil clears it.
        public let value: Any?
    }

    /// The rows to update (its result kind is `.keys`; limit and offset are 0).
    public var fetch: StoreFetchRequest
    /// The new values; never empty.
    public let assignments: [Assignment]

    /// Checks `propertiesToUpdate` (keys are attribute names or `NSPropertyDescription`s) against the
    /// fetch's entity and converts the values.
    /// - Throws: 1550 for an unknown name or a value of the wrong type, 1570 for nil in a required
    ///   attribute, 134091 for an empty dictionary, a relationship, a transient or derived attribute, a key
    ///   that is neither a name nor a description, or an `NSExpression` value.
    public init(fetch: StoreFetchRequest, propertiesToUpdate: [AnyHashable: Any]) throws {
        guard !propertiesToUpdate.isEmpty else {
            throw CoreDataError.unsupported("batch updates without propertiesToUpdate")
        }
        var assignments: [Assignment] = []
        var seen = Set<String>()
        for (key, value) in propertiesToUpdate {
            let name: String
            switch key.base {
            case let text as String: name = text
            case let property as NSPropertyDescription: name = property.name
            default: throw CoreDataError.unsupported("propertiesToUpdate keys of type \(type(of: key.base)); use attribute names or descriptions")
            }
            let attribute = try BatchAttributeValue.attribute(named: name, in: fetch.entity, request: "batch update")
            guard seen.insert(name).inserted else { continue }
            let converted = try BatchAttributeValue.storable(value, for: attribute, entity: fetch.entity, request: "batch update")
            assignments.append(Assignment(attribute: attribute, value: converted))
        }
        var fetch = fetch
        fetch.result = .keys
        fetch.fetchLimit = 0
        fetch.fetchOffset = 0
        fetch.sortDescriptors = []
        self.fetch = fetch
        self.assignments = assignments.sorted { $0.attribute.name < $1.attribute.name }
    }
}
