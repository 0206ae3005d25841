import Synchronization

/// How many contexts of the process are running an `awakeFromFetch` with change recording suspended
/// (`NSManagedObjectContext.suspendsChangeRecording`).
///
/// A property set asks its object's context whether recording is suspended only when this count is not zero,
/// so the common set loads no weak reference; the count is a superset of the contexts that matter, so the
/// answer is the same as asking every time.
enum ChangeRecordingSuspensions {
    private static let count = Atomic<Int>(0)

    /// Whether any context of the process has suspended change recording.
    static var any: Bool { count.load(ordering: .relaxed) != 0 }

    static func begin() { count.add(1, ordering: .relaxed) }
    static func end() { count.subtract(1, ordering: .relaxed) }
}
