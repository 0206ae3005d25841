import CoreDataStoreKit

/// Whole SQLite stores: moving a finished store into place and copying one store over another, each so that
/// a crash leaves the old store or the new one, never the new database with the old one's log.
extension SQLiteStore: StoreFileMoving, StoreReplacing {
    /// Moves the closed store at `source` over `destination` (`SQLiteFileReplacement`).
    /// - Throws: 512 naming the step that failed; `destination` is then the old store, whole.
    public static func moveStore(from source: URL, to destination: URL) throws {
        try SQLiteFileReplacement.move(source, over: destination)
    }

    /// Copies the store at `source` over the one at `destination` (`replacePersistentStore(at:…)`): a
    /// consistent snapshot of the source, committed log included, is written beside the destination with
    /// SQLite's `VACUUM INTO` (the source is only read) and moved over it with `moveStore(from:to:)`. The
    /// source's folder of externally stored data is copied after the database.
    /// - Throws: 260 when there is no store at `source`; 134000/259 when it is not a SQLite store or damaged;
    ///   512 when the copy cannot be written or moved (then `destination` is as it was).
    public static func replaceStore(at destination: URL, destinationOptions: [AnyHashable: Any]?,
                                    withStoreFrom source: URL, sourceOptions: [AnyHashable: Any]?) throws {
        _ = try metadataForStore(at: source, options: sourceOptions)
        guard source.standardizedFileURL != destination.standardizedFileURL else { return }
        let fileManager = FileManager.default
        do {
            try fileManager.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
        } catch {
            throw CoreDataError.make(NSFileWriteUnknownError, "Could not create the folder of \(destination.path): \(error.localizedDescription)",
                                     userInfo: [NSFilePathErrorKey: destination.path, NSUnderlyingErrorKey: error])
        }
        let claim: TemporaryFileClaim
        do {
            claim = try TemporaryFileClaim(beside: destination)
        } catch {
            throw CoreDataError.make(NSFileWriteUnknownError, "Could not make a temporary file beside \(destination.path): \((error as NSError).localizedDescription)",
                                     userInfo: [NSFilePathErrorKey: destination.path, NSUnderlyingErrorKey: error])
        }
        defer { claim.release() }
        let staging = claim.url
        do {
            try snapshot(of: source, into: staging)
            try moveStore(from: staging, to: destination)
        } catch {
            for suffix in [""] + companionSuffixes { unlink(staging.path + suffix) }
            throw error
        }
        try copySupportFolder(of: source, to: destination)
    }

    /// Writes a consistent copy of the database at `source` into the new file `copy`.
    private static func snapshot(of source: URL, into copy: URL) throws {
        let connection = try SQLiteFileCheck.readOnlyConnection(url: source)
        defer { connection.close() }
        do {
            _ = try connection.run("VACUUM INTO ?", [.text(copy.path)], cached: false)
        } catch {
            throw CoreDataError.make(NSFileWriteUnknownError, "Could not copy the store at \(source.path) to \(copy.path): \((error as NSError).localizedDescription)",
                                     userInfo: [NSFilePathErrorKey: copy.path, NSUnderlyingErrorKey: error])
        }
    }

    /// Makes the destination's external-data folder (`.<name>_SUPPORT`) a copy of the source's, or removes it
    /// when the source has none.
    private static func copySupportFolder(of source: URL, to destination: URL) throws {
        guard let from = storeFiles(at: source).last, let to = storeFiles(at: destination).last else { return }
        let fileManager = FileManager.default
        do {
            if fileManager.fileExists(atPath: to.path) { try fileManager.removeItem(at: to) }
            if fileManager.fileExists(atPath: from.path) { try fileManager.copyItem(at: from, to: to) }
        } catch {
            throw CoreDataError.make(NSFileWriteUnknownError, "Could not copy the external data of \(source.path) to \(to.path): \(error.localizedDescription)",
                                     userInfo: [NSFilePathErrorKey: to.path, NSUnderlyingErrorKey: error])
        }
    }
}

/// Store metadata written without opening the store.
extension SQLiteStore: StoreMetadataWriting {
    /// Replaces the store's `Z_METADATA` row in one transaction, after the same checks an open makes of the
    /// file (`metadataForStore(at:options:)`).
    public static func setMetadata(_ metadata: [String: Any]?, forStoreAt url: URL, options: [AnyHashable: Any]?) throws {
        let current = try metadataForStore(at: url, options: options)
        var written = metadata ?? [:]
        written[NSStoreUUIDKey] = written[NSStoreUUIDKey] ?? current[NSStoreUUIDKey]
        written[NSStoreTypeKey] = written[NSStoreTypeKey] ?? current[NSStoreTypeKey] ?? NSSQLiteStoreType
        let connection = try openConnection(path: url.path, readOnly: false, options: options ?? [:])
        defer { connection.close() }
        try connection.transaction { try writeMetadata(written, on: connection) }
    }
}
