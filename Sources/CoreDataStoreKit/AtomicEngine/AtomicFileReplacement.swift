#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Replaces a file so that a crash at any moment leaves either the old file or the new one, complete.
///
/// The new contents are written to a temporary file in the same directory, flushed to disk, renamed over the
/// old file (an atomic step on POSIX file systems), and the directory is flushed so the rename itself lasts.
/// The temporary file is named `.<file name>.<UUID>.tmp` and claimed while it is written
/// (`TemporaryFileClaim`); a process killed while writing leaves it behind, and
/// `removeLeftovers(of:companionSuffixes:)` (called when a store is opened) removes exactly those files whose
/// writer is gone.
public enum AtomicFileReplacement {
    /// Calls `write` with a temporary URL beside `url`, then moves what it wrote into place.
    /// - Throws: 134030 when any step fails; the old file is then untouched and the temporary file removed.
    public static func replace(_ url: URL, write: (URL) throws -> Void) throws {
        let claim = try TemporaryFileClaim(beside: url)
        defer { claim.release() }
        let temporary = claim.url
        do {
            try write(temporary)
            try moveIntoPlace(temporary, at: url)
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

    /// Writes `bytes` as the whole new contents of the temporary file at `url` (created, or emptied), in as few
    /// `write` calls as the system allows and without flushing: `moveIntoPlace(_:at:)` flushes the file once
    /// before it renames it. (Foundation's `Data.write(to:)` flushes too, so writing through it and then
    /// moving the file into place flushes the same bytes twice.)
    /// - Throws: 134030 when the file cannot be created or written.
    public static func writeUnflushed(_ bytes: UnsafeRawBufferPointer, to url: URL) throws {
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw CoreDataError.saveFailed("could not create \(url.path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        var written = 0
        while written < bytes.count {
            let result = write(descriptor, bytes.baseAddress.map { $0 + written }, bytes.count - written)
            if result < 0, errno == EINTR { continue }
            guard result > 0 else {
                throw CoreDataError.saveFailed("could not write \(url.path): \(String(cString: strerror(errno)))")
            }
            written += result
        }
    }

    /// A fresh temporary path beside `url`: `.<file name>.<UUID>.tmp` in the same directory, so the final
    /// rename stays on one file system.
    public static func temporaryURL(for url: URL) -> URL {
        url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
    }

    /// Flushes the complete file at `temporary`, renames it over `url` and flushes the directory, so after a
    /// crash `url` is either what it was or all of `temporary`.
    /// - Throws: 134030 when a step fails (`temporary` is then left for the caller to remove).
    public static func moveIntoPlace(_ temporary: URL, at url: URL) throws {
        try flush(temporary.path, directory: false)
        guard rename(temporary.path, url.path) == 0 else {
            throw CoreDataError.saveFailed("could not move the new file over \(url.path): \(String(cString: strerror(errno)))")
        }
        try flush(url.deletingLastPathComponent().path, directory: true)
    }

    /// Removes the temporary files a killed writer left beside `url`: exactly the names `temporaryURL(for:)`
    /// makes for this file name (`.<file name>.<UUID>.tmp`), each optionally followed by one of
    /// `companionSuffixes` (a SQLite store's `-journal`, `-wal`, `-shm`). A temporary file a live writer (of
    /// this or another process) has claimed (`TemporaryFileClaim`) is left alone with its companions, as is
    /// every other file; a file that cannot be removed is skipped (it is garbage, not data).
    /// - Returns: the names removed.
    @discardableResult
    public static func removeLeftovers(of url: URL, companionSuffixes: [String] = []) -> [String] {
        let directory = url.deletingLastPathComponent()
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return [] }
        let leftovers = names.filter { isLeftover($0, of: url.lastPathComponent, companionSuffixes: companionSuffixes) }
        var companionsByFile: [String: [String]] = [:]
        for name in leftovers where !name.hasSuffix(".tmp") {
            guard let suffix = companionSuffixes.first(where: name.hasSuffix) else { continue }
            companionsByFile[String(name.dropLast(suffix.count)), default: []].append(name)
        }
        var removed: [String] = []
        func remove(_ name: String) {
            if unlink(directory.appendingPathComponent(name).path) == 0 { removed.append(name) }
        }
        for file in Set(leftovers.filter { $0.hasSuffix(".tmp") }).union(companionsByFile.keys) {
            let companions = companionsByFile[file] ?? []
            guard names.contains(file) else {
                companions.forEach(remove)  // a log whose database is gone
                continue
            }
            // Removed while holding the file's lock, so no writer can claim it meanwhile.
            _ = TemporaryFileClaim.whileUnclaimed(directory.appendingPathComponent(file).path) {
                companions.forEach(remove)
                remove(file)
            }
        }
        return removed
    }

    /// Whether `name` is a temporary file `temporaryURL(for:)` makes for `fileName`, or one of its companions.
    static func isLeftover(_ name: String, of fileName: String, companionSuffixes: [String]) -> Bool {
        let prefix = "." + fileName + "."
        guard name.hasPrefix(prefix) else { return false }
        let rest = name.dropFirst(prefix.count)
        let uuidLength = 36
        guard rest.count >= uuidLength + 4, UUID(uuidString: String(rest.prefix(uuidLength))) != nil else { return false }
        let tail = rest.dropFirst(uuidLength)
        guard tail.hasPrefix(".tmp") else { return false }
        let suffix = String(tail.dropFirst(4))
        return suffix.isEmpty || companionSuffixes.contains(suffix)
    }

    /// Flushes a file's (or, with `directory`, a directory's) contents to disk with `fsync`.
    /// - Throws: 134030 when the file cannot be opened or flushed.
    public static func flush(_ path: String, directory: Bool) throws {
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
