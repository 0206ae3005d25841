import CoreDataStoreKit

/// The XML store (`NSXMLStoreType`): an atomic store in Apple's XML store format.
///
/// The whole file is read with a streaming parser when the store is added and rewritten on every save, through
/// `AtomicFileReplacement`, so a crash leaves the old file or the new one. Files written by Apple's Core Data
/// open here and files written here keep Apple's element names, type names and ID scheme (see
/// `Docs/XMLStore.md`).
///
/// IDs: Apple numbers objects with one counter for the whole store ("z105"). This store uses the number as the
/// object's primary key and shares one key sequence across entities, so keys stay unique store-wide and an
/// object's ID is the same every time the file is opened.
///
/// Names: Apple writes entity names in upper case and property names in lower case; they are matched to the
/// model's names ignoring case (an exact match wins).
public final class XMLStore: AtomicStore {
    public override class var storeTypeName: String { NSXMLStoreType }

    public override class var sharesPrimaryKeysAcrossEntities: Bool { true }

    /// Reads a whole XML store file.
    /// - Throws: 134000 when the file is empty, not XML, or not an XML store; 259 when it is damaged.
    public override class func readSnapshot(from url: URL) throws -> AtomicStoreSnapshot {
        try XMLStoreReader(url: url).read()
    }

    /// Writes a whole XML store file.
    /// - Throws: 134030 when a value cannot be written in XML or the file cannot be written.
    public override func writeSnapshot(_ snapshot: AtomicStoreSnapshot, to url: URL) throws {
        try XMLStoreWriter(model: openRequest.model).write(snapshot, to: url)
    }

    /// Matches the file's names to the model's, ignoring case (see `XMLNameMatching`).
    public override class func matchNames(in snapshot: AtomicStoreSnapshot, to request: StoreOpenRequest) throws -> AtomicStoreSnapshot {
        try XMLNameMatching(entities: request.entities, url: request.url).match(snapshot)
    }
}
