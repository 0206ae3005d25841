/// The largest primary keys and versions a store accepts from its file. An addition to Apple's API.
///
/// Keys and versions only grow (by one per update, by the count of a key allocation), so a value near
/// `Int64.max` cannot come from ordinary use: a store treats a larger one read from a file as damage (259),
/// which leaves 2^32 of headroom so that incrementing a stored value never overflows.
public enum StoreNumberLimits {
    /// The largest primary key, high-water mark or version a store loads: `Int64.max - 2^32`.
    public static let largestStoredNumber: Int64 = Int64.max - (1 << 32)

    /// The `count` keys after `highWater`, or nil when `count` is not positive, `highWater` is negative, or
    /// the keys would pass `largestStoredNumber` (the store has run out of keys). Never overflows.
    public static func keys(after highWater: Int64, count: Int) -> ClosedRange<Int64>? {
        guard count > 0 else { return nil }
        let (first, firstOverflow) = highWater.addingReportingOverflow(1)
        let (last, lastOverflow) = highWater.addingReportingOverflow(Int64(count))
        guard !firstOverflow, !lastOverflow, highWater >= 0, last <= largestStoredNumber else { return nil }
        return first...last
    }
}
