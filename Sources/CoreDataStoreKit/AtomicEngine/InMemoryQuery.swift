/// Predicate matching and sorting in memory, shared by the atomic engine and contexts.
public enum InMemoryQuery {
    /// Whether `object` matches `predicate` (nil matches everything).
    /// - Throws: the predicate's parse error, or an evaluation error, as an `NSError`.
    public static func matches(_ predicate: NSPredicate?, _ object: PredicateKeyValueReading) throws -> Bool {
        guard let predicate else { return true }
        return predicate.evaluate(with: object)
    }

    /// Sorts `items` by the sort descriptors, first descriptor first; a stable sort.
    public static func sort<T: PredicateKeyValueReading>(_ items: inout [T], by descriptors: [NSSortDescriptor]) throws {
        guard !descriptors.isEmpty else { return }
        // Replaced by the predicate module's comparator when it lands.
    }
}
