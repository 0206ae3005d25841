#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An exclusive lock on a store file, held across processes and threads, for work that replaces the whole
/// file (a migration). Two processes that open an old store at once with a new model therefore migrate it
/// once: the second waits for the first, then finds the store already migrated.
///
/// The lock is `flock(2)` on the file itself, so nothing is created beside the store. Because a migration
/// renames a new file over the old one, a lock taken on the old file would guard nothing: after locking,
/// the lock checks that the path still names the file it locked, and locks the new file when it does not.
/// `flock` locks are independent of the `fcntl` byte-range locks SQLite takes, so the lock does not
/// interfere with SQLite's own locking. (On NFS, Linux emulates `flock` with `fcntl` locks; stores on NFS are
/// not supported, as SQLite's documentation advises.)
public final class StoreFileLock {
    private var descriptor: Int32

    /// Takes the exclusive lock of the file at `url`, waiting as long as another holder keeps it. The lock
    /// is held until `unlock()` (or until this object is released). It is not re-entrant: locking the same
    /// file again before unlocking waits forever.
    /// - Throws: 134080 when the file cannot be opened or locked.
    public init(exclusivelyLocking url: URL) throws {
        descriptor = try Self.lock(url)
    }

    /// Releases the lock; does nothing the second time.
    public func unlock() {
        guard descriptor >= 0 else { return }
        _ = flock(descriptor, LOCK_UN)
        close(descriptor)
        descriptor = -1
    }

    deinit { unlock() }

    /// Runs `body` while holding the exclusive lock of the file at `url` (see `init(exclusivelyLocking:)`).
    /// - Throws: 134080 when the file cannot be opened or locked; what `body` throws.
    public static func withExclusiveLock<Result>(on url: URL, _ body: () throws -> Result) throws -> Result {
        let lock = try StoreFileLock(exclusivelyLocking: url)
        defer { lock.unlock() }
        return try body()
    }

    /// Opens and locks the file `url` names now, retrying when the path came to name another file while this
    /// process waited (another process moved a new store into place).
    private static func lock(_ url: URL) throws -> Int32 {
        while true {
            let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw failure(url, "it cannot be opened") }
            var result: Int32
            repeat { result = flock(descriptor, LOCK_EX) } while result != 0 && errno == EINTR
            guard result == 0 else {
                let error = failure(url, "it cannot be locked")
                close(descriptor)
                throw error
            }
            if namesLockedFile(url, descriptor) { return descriptor }
            _ = flock(descriptor, LOCK_UN)
            close(descriptor)
        }
    }

    /// Whether the path `url` still names the file open as `descriptor` (same device and inode).
    private static func namesLockedFile(_ url: URL, _ descriptor: Int32) -> Bool {
        var locked = stat(), current = stat()
        guard fstat(descriptor, &locked) == 0, stat(url.path, &current) == 0 else { return false }
        return locked.st_dev == current.st_dev && locked.st_ino == current.st_ino
    }

    private static func failure(_ url: URL, _ what: String) -> NSError {
        CoreDataError.openFailed(url, reason: "\(what) to lock it for a migration (\(String(cString: strerror(errno))))")
    }
}
