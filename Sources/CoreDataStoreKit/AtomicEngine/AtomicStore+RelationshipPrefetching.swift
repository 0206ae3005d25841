/// Prefetching for atomic stores: every row is in memory, so one relationship of many owners is read by looking
/// each owner up, through `rows(for:)` and `relatedKeys(of:through:)` (which a subclass may override). No file
/// is read.
extension AtomicStore: RelationshipPrefetching {
    /// The destinations of `relationship` for each of `keys`, with their rows (see `relatedRowsOneByOne`).
    public func relatedRows(of keys: [ObjectKey], through relationship: NSRelationshipDescription) throws -> RelatedRows {
        try relatedRowsOneByOne(of: keys, through: relationship, model: openRequest.model)
    }
}
