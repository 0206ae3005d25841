import CSQLite
import CoreDataStoreKit

extension SQLiteStore {
    /// The most bytes a cached model may inflate to; Apple's largest models are a few megabytes.
    static let maximumCachedModelSize = 64 << 20

    /// What a store written here keeps in `Z_MODELCACHE.Z_CONTENT`, as Apple's Core Data writes it: the model
    /// in Apple's compiled form (`MOMArchiveWriter`) as raw DEFLATE (stored blocks). Nil for a model the
    /// writer does not write (derived attributes, some predicates): the store then has an empty cache.
    static func modelCacheContent(for model: NSManagedObjectModel) -> Data? {
        guard let archive = try? MOMArchiveWriter.archive(model, file: URL(fileURLWithPath: "Z_MODELCACHE")) else { return nil }
        return RawDeflate.deflateStored(archive)
    }

    /// The model Apple's Core Data cached in the store at `url` (`Z_MODELCACHE.Z_CONTENT`, raw DEFLATE of a
    /// `.mom` archive), so a store can be read without its model file. An addition to Apple's API.
    ///
    /// The file is opened through a connection that cannot write (immutable without a `-wal` file), so it is
    /// left byte-for-byte as it was. Stores written by Apple before about 2015, and stores written by this
    /// package for a model the `.mom` writer refuses (`modelCacheContent(for:)`), have no cached
    /// model: the result is then `nil`.
    ///
    /// ```swift
    /// if let model = try SQLiteStore.cachedModel(at: storeURL) {
    ///     let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
    /// }
    /// ```
    /// - Returns: the model, or `nil` when the store has no `Z_MODELCACHE` table or the table holds no content.
    /// - Throws: 260 (`NSFileReadNoSuchFileError`) when there is no file; 134000 when the file is not a Core
    ///   Data SQLite store; 259 (`NSFileReadCorruptFileError`) when the file or the cached model is damaged;
    ///   3328 when the cached model uses a format this package cannot read.
    public static func cachedModel(at url: URL) throws -> NSManagedObjectModel? {
        let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.intValue
        guard let size else {
            throw CoreDataError.make(NSFileReadNoSuchFileError, "There is no store file at \(url.path).",
                                     userInfo: [NSFilePathErrorKey: url.path])
        }
        try SQLiteFileCheck.checkHeader(at: url, size: size)
        let connection = try SQLiteFileCheck.readOnlyConnection(url: url)
        defer { connection.close() }
        for table in ["Z_METADATA", "Z_PRIMARYKEY"] where try !connection.tableExists(table) {
            throw CoreDataError.notAStore(url, type: NSSQLiteStoreType, reason: "it is a SQLite database without Core Data's \(table) table")
        }
        guard try connection.tableExists("Z_MODELCACHE") else { return nil }
        let blobs = try connection.query("SELECT Z_CONTENT FROM Z_MODELCACHE WHERE length(Z_CONTENT) > 0 ORDER BY rowid LIMIT 1",
                                         cached: false) { $0.data(at: 0) }
        guard let compressed = blobs.first ?? nil, !compressed.isEmpty else { return nil }
        let archive: Data
        do {
            archive = try RawDeflate.inflate(compressed, maximumSize: maximumCachedModelSize)
        } catch let error as NSError {
            throw CoreDataError.corruptStore(url, type: NSSQLiteStoreType,
                                             reason: "its cached model (Z_MODELCACHE) cannot be decompressed: \(error.localizedDescription)")
        }
        return try ModelFileLoader.model(fromCompiledData: archive, source: url)
    }
}
