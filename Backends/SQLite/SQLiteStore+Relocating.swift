import CoreDataSQL
import CoreDataStoreKit

/// Relocating a SQLite store (`NSPersistentStoreCoordinator.setURL(_:for:)`): as Apple documents for stores
/// that write in place, the store gives up its connection and opens one to the store that must already exist at
/// the new location. The old file is left as it is.
///
/// What is at the new location must be this store: the same `NSStoreUUID` (a copy, or the file moved there),
/// compatible with the model, with the same tables, columns and entity numbers. The contexts' objects and IDs
/// belong to this store, so another store there is refused rather than read under this one's identity.
extension SQLiteStore: StoreRelocating {
    /// Opens the copy of this store at `newURL` and closes the connection to the old file.
    /// - Throws: 134091 for an in-memory database; 260 when nothing is at `newURL`; the errors of opening a store
    ///   there (134000 for a file that is not a store, 134100 for another model); 134020 for another store.
    public func relocate(to newURL: URL) throws {
        guard newURL.isFileURL, !Self.isInMemoryDatabase(newURL), !isInMemoryDatabase else {
            throw CoreDataError.unsupported("relocating a SQLite store to or from \(Self.isInMemoryDatabase(url) ? url : newURL) (an in-memory database has no file)")
        }
        if newURL.standardizedFileURL == url.standardizedFileURL { return }
        guard let size = Self.fileSize(newURL.path), size > 0 else {
            throw CoreDataError.make(NSFileReadNoSuchFileError, "There is no store at \(newURL.path) to move the store at \(url.path) to; a SQLite store moves only to a copy of itself.",
                                     userInfo: [NSFilePathErrorKey: newURL.path])
        }
        try SQLiteFileCheck.checkHeader(at: newURL, size: size)
        var request = openRequest
        request.url = newURL
        let (newMetadata, newSchema) = try Self.validate(url: newURL, request: request)
        try requireSameStore(newMetadata, newSchema, at: newURL)
        let newConnection = try Self.openConnection(path: newURL.path, readOnly: isReadOnly, options: openRequest.options)
        connection.close()
        connection = newConnection
        url = newURL
        metadata = ModelCompatibility.upgradingLegacy(newMetadata, storeType: NSSQLiteStoreType, entities: openRequest.entities, model: model)
        fileHasHistory = (try? connection.tableExists("ATRANSACTION")) ?? false
    }

    /// Throws 134020 unless the store at `newURL`, read as `newMetadata` and `newSchema`, is this store: its UUID,
    /// tables, columns and entity numbers.
    private func requireSameStore(_ newMetadata: [String: Any], _ newSchema: SQLSchema, at newURL: URL) throws {
        func refuse(_ reason: String) -> NSError {
            CoreDataError.make(NSPersistentStoreIncompatibleSchemaError, "The store at \(newURL.path) is not the store at \(url.path): \(reason).",
                               userInfo: [NSFilePathErrorKey: newURL.path])
        }
        guard let uuid = newMetadata[NSStoreUUIDKey] as? String, uuid == metadata[NSStoreUUIDKey] as? String else {
            throw refuse("its NSStoreUUID is \(newMetadata[NSStoreUUIDKey] as? String ?? "missing")")
        }
        let entitiesNumbered = model.entitiesInStoreOrder.allSatisfy { newSchema.storedNumber(of: $0) == schema.storedNumber(of: $0) }
        guard newSchema.createStatements == schema.createStatements, entitiesNumbered else {
            throw refuse("its tables differ")
        }
    }
}
