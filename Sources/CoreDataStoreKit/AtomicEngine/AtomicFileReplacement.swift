#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Replaces a file so that a crash at any moment leaves either the old file or the new one, complete.
///
/// The new contents are written to a temporary file in the same directory, flushed to disk, renamed over the
/// old file (an atomic step on POSIX file systems), and the directory is flushed so the rename itself lasts.
public enum AtomicFileReplacement {
    /// Calls `write` with a temporary URL beside `url`, then moves what it wrote into place.
    /// - Throws: 134030 when any step fails; the old file is then untouched and the temporary file removed.
    public static func replace(_ url: URL, write: (URL) throws -> Void) throws {
        let directory = url.deletingLastPathComponent()
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
        do {
            try write(temporary)
            try flush(temporary.path, directory: false)
            guard rename(temporary.path, url.path) == 0 else {
                throw CoreDataError.saveFailed("could not move the new file over \(url.path): \(String(cString: strerror(errno)))")
            }
            try flush(directory.path, directory: true)
        } catch {
            unlink(temporary.path)
            if let error = error as NSError?, error.domain == NSCocoaErrorDomain, error.code == NSPersistentStoreSaveError { throw error }
            throw CoreDataError.saveFailed("could not write \(url.path)", underlying: error)
        }
    }

    /// Writes `data` to `url` with `replace(_:write:)`.
    public static func replace(_ url: URL, with data: Data) throws {
        try replace(url) { temporary in try data.write(to: temporary) }
    }

    private static func flush(_ path: String, directory: Bool) throws {
        let descriptor = open(path, directory ? O_RDONLY | O_DIRECTORY : O_RDONLY)
        guard descriptor >= 0 else {
            throw CoreDataError.saveFailed("could not open \(path) to flush it: \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else {
            throw CoreDataError.saveFailed("could not flush \(path): \(String(cString: strerror(errno)))")
        }
    }
}
