#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A temporary file beside a store that this process is writing, marked as in use so that another process
/// opening the store at the same moment does not take it for a killed writer's leftover and remove it.
///
/// The claim creates the file (empty, with a fresh name from `AtomicFileReplacement.temporaryURL(for:)`) and
/// holds an exclusive `flock(2)` on it until `release()`. Writers that open the path again and truncate it
/// (`open` with `O_TRUNC`, SQLite, libxml2) write the same file, which stays claimed; a writer that replaces
/// the file by renaming another over it loses the claim. `AtomicFileReplacement.removeLeftovers` removes a
/// temporary file only after taking that lock itself, so a file whose writer is alive is never removed, and a
/// writer whose file was removed just before it locked it notices and starts again under a new name.
/// (`flock` locks are independent of SQLite's `fcntl` locks; stores on NFS are not supported.)
public final class TemporaryFileClaim {
    /// The claimed file's URL.
    public let url: URL
    private var descriptor: Int32

    /// Creates and claims a new temporary file beside `file`.
    /// - Throws: 134030 (`NSPersistentStoreSaveError`) when the file cannot be created or locked.
    public init(beside file: URL) throws {
        while true {
            let candidate = AtomicFileReplacement.temporaryURL(for: file)
            let opened = open(candidate.path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            guard opened >= 0 else {
                if errno == EEXIST { continue }
                throw CoreDataError.saveFailed("could not create \(candidate.path): \(String(cString: strerror(errno)))")
            }
            guard Self.lock(opened, blocking: true) else {
                let reason = String(cString: strerror(errno))
                close(opened)
                unlink(candidate.path)
                throw CoreDataError.saveFailed("could not lock \(candidate.path): \(reason)")
            }
            // Another process may have removed the file between its creation and the lock: claim a new one.
            guard Self.pathNames(candidate.path, opened) else {
                close(opened)
                continue
            }
            url = candidate
            descriptor = opened
            return
        }
    }

    /// Lets go of the claim (the file itself stays, moved into place or removed by the writer); does nothing
    /// the second time.
    public func release() {
        guard descriptor >= 0 else { return }
        close(descriptor)
        descriptor = -1
    }

    deinit { release() }

    /// Whether another process holds a claim on the file at `path`. When not, `body` runs while this process
    /// holds the file's lock (so no writer can claim it meanwhile) and its result is returned; nil when the file
    /// is claimed, or is gone.
    static func whileUnclaimed<Result>(_ path: String, _ body: () -> Result) -> Result? {
        let opened = open(path, O_RDONLY | O_CLOEXEC)
        guard opened >= 0 else { return nil }
        defer { close(opened) }
        guard lock(opened, blocking: false) else { return nil }
        return body()
    }

    private static func lock(_ descriptor: Int32, blocking: Bool) -> Bool {
        var result: Int32
        repeat { result = flock(descriptor, blocking ? LOCK_EX : LOCK_EX | LOCK_NB) } while result != 0 && errno == EINTR
        return result == 0
    }

    /// Whether `path` still names the file open as `descriptor` (same device and inode).
    private static func pathNames(_ path: String, _ descriptor: Int32) -> Bool {
        var opened = stat(), current = stat()
        guard fstat(descriptor, &opened) == 0, stat(path, &current) == 0 else { return false }
        return opened.st_dev == current.st_dev && opened.st_ino == current.st_ino
    }
}
