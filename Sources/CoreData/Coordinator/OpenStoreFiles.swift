/// The store files this process has open, through any coordinator, so that destroying or replacing a store
/// under a coordinator that still uses it is refused instead of losing that coordinator's later saves.
///
/// `@unchecked Sendable`: `stores` is read and written only under `lock`.
final class OpenStoreFiles: @unchecked Sendable {
    static let shared = OpenStoreFiles()

    private struct WeakStore { weak var store: NSPersistentStore? }
    private let lock = NSLock()
    private var stores: [String: [WeakStore]] = [:]

    /// The key of a store file: its standardized path, links resolved.
    static func key(_ url: URL) -> String { url.standardizedFileURL.resolvingSymlinksInPath().path }

    func add(_ store: NSPersistentStore, at url: URL) {
        lock.lock()
        defer { lock.unlock() }
        let key = Self.key(url)
        stores[key] = (stores[key] ?? []).filter { $0.store != nil } + [WeakStore(store: store)]
    }

    func remove(_ store: NSPersistentStore, at url: URL) {
        lock.lock()
        defer { lock.unlock() }
        let key = Self.key(url)
        stores[key] = (stores[key] ?? []).filter { $0.store != nil && $0.store !== store }
    }

    /// Whether a store at `url` is added to a coordinator that still exists.
    func isOpen(_ url: URL) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return (stores[Self.key(url)] ?? []).contains { $0.store?.persistentStoreCoordinator != nil }
    }
}
