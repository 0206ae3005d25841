import CoreDataStoreKit

/// The in-memory store (`NSInMemoryStoreType`): an atomic store with no file.
///
/// A URL given when the store is added only names it; nothing is read or written there, and the contents go
/// away when the store is removed or the coordinator is released.
open class InMemoryStore: AtomicStore {
    open override class var storeTypeName: String { NSInMemoryStoreType }

    /// None: an in-memory store keeps nothing in files, whatever URL it was given.
    open override class func storeFiles(at url: URL) -> [URL] { [] }

    public required init(_ request: StoreOpenRequest) throws {
        var withoutFile = request
        withoutFile.url = nil
        try super.init(withoutFile)
    }

    public override class func metadataForStore(at url: URL, options: [AnyHashable: Any]?) throws -> [String: Any] {
        throw CoreDataError.unsupported("in-memory stores have no file to read metadata from (\(url.path))")
    }
}
