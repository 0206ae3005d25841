/// Predicate matching and sorting in memory, with the meaning of `NSPredicate.evaluate(with:)`: used by the
/// atomic engine and contexts, and by any store to answer `StoreFetchRequest`s it cannot answer in its own query
/// language.
///
/// A store hands it objects adopting `PredicateKeyValueReading` (an attribute's value, a to-one's destination as
/// another such object, a to-many's as an array of them) and `StoredObjectReference` (the row's key, so that
/// comparisons with object IDs and managed objects compare keys). Docs/WritingAStore.md shows it in use.
public enum InMemoryQuery {
    /// Whether `object` matches `predicate` (nil matches everything).
    /// - Throws: the predicate's parse error (2048).
    public static func matches(_ predicate: NSPredicate?, _ object: Any) throws -> Bool {
        guard let predicate else { return true }
        return try predicate.validatedExpression().evaluate(with: object)
    }

    /// The items `predicate` matches, in their order (all of them for nil).
    /// - Throws: the predicate's parse error (2048).
    public static func filter<T>(_ items: [T], by predicate: NSPredicate?) throws -> [T] {
        guard let predicate else { return items }
        let prepared = PreparedPredicate(try predicate.validatedExpression())
        return items.filter { prepared.evaluate(with: $0) }
    }

    /// The items `predicate` matches, in their order (all of them for nil), for items that read their own
    /// keys (a store's row views): the same answer as `filter(_:by:)`, with each item recognised as a reader
    /// once for the type rather than once per item.
    /// - Throws: the predicate's parse error (2048).
    public static func filter<T: PredicateKeyValueReading>(_ items: [T], by predicate: NSPredicate?) throws -> [T] {
        guard let predicate else { return items }
        let prepared = PreparedPredicate(try predicate.validatedExpression())
        guard PredicateSubject.readsDirectly(T.self) else { return items.filter { prepared.evaluate(with: $0) } }
        return items.filter { prepared.evaluate(reader: $0) }
    }

    /// Sorts `items` by the sort descriptors, first descriptor first; a stable sort.
    public static func sort<T>(_ items: inout [T], by descriptors: [NSSortDescriptor]) throws {
        guard !descriptors.isEmpty else { return }
        items = descriptors.sorting(items)
    }

    /// Throws the parse error of a predicate made from a malformed format (2048), or the error for a key that
    /// names no property of `entity`.
    public static func validate(_ predicate: NSPredicate?, entity: NSEntityDescription) throws {
        guard let predicate else { return }
        _ = try predicate.validatedExpression()
        try predicate.validateKeys(against: entity)
    }
}
