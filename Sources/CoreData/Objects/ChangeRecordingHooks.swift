import Synchronization

/// How many contexts of the process are doing something that a property set must tell them about: running an
/// `awakeFromFetch` with change recording suspended (`NSManagedObjectContext.suspendsChangeRecording`), or calling
/// `willSave` on the objects of a save (`NSManagedObjectContext.changedDuringWillSave`).
///
/// A property set asks its object's context only when this count is not zero, so the common set loads no weak
/// reference; the count is a superset of the contexts that matter, so the answer is the same as asking every time.
enum ChangeRecordingHooks {
    private static let count = Atomic<Int>(0)

    /// Whether any context of the process needs to hear of property sets.
    static var any: Bool { count.load(ordering: .relaxed) != 0 }

    static func begin() { count.add(1, ordering: .relaxed) }
    static func end() { count.subtract(1, ordering: .relaxed) }
}
