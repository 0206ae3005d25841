import CoreData
import CoreDataModelCommands
import Foundation

/// Where `convert` and `import` write a new store: a file path, or a PostgreSQL connection URI, of the type
/// `--to` names.
///
/// Guarantees: a destination that already holds a store is refused before anything is written (516,
/// `NSFileWriteFileExistsError`): these commands never overwrite a store.
struct StoreDestination {
    let kind: StoreFileKind
    let url: URL
    /// The destination as given.
    let text: String

    /// The destination for messages: the path, or the URI without its password.
    var displayName: String { Self.displayName(of: url, kind: kind) }

    /// A store's location for messages: a file's path, or a PostgreSQL URI without its password.
    static func displayName(of url: URL, kind: StoreFileKind) -> String {
        guard kind == .postgresql, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url.path }
        components.password = nil
        return components.string ?? "the PostgreSQL store"
    }

    /// The destination `text` of type `--to` (`toOption`).
    /// - Throws: a `UsageError` when `--to` is missing or not a type, or when a PostgreSQL destination is not
    ///   a `postgresql://` URI (or a file type is given one).
    init(_ text: String, toOption: String?) throws {
        guard let toOption else { throw UsageError("--to is required: sqlite, xml, binary or postgresql") }
        kind = try StoreFileKind(typeOption: toOption, option: "--to", allowsPostgreSQL: true)
        self.text = text
        let isURI = StoreFileKind.isPostgreSQLURI(text)
        if kind == .postgresql {
            guard isURI, let url = URL(string: text) else {
                throw UsageError("--to postgresql needs a connection URI as the destination (postgresql://host/database?schema=name), not \(text)")
            }
            self.url = url
        } else {
            guard !isURI else { throw UsageError("\(text) is a PostgreSQL connection URI; pass --to postgresql") }
            url = URL(fileURLWithPath: text)
        }
    }

    /// Throws 516 when a store (or any file) is already at the destination.
    func checkAbsent() throws {
        let exists: Bool
        if kind == .postgresql {
            exists = (try? NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: kind.storeType, at: url, options: nil)) != nil
        } else {
            exists = FileManager.default.fileExists(atPath: url.path)
        }
        guard exists else { return }
        throw CoreDataError.make(NSFileWriteFileExistsError,
                                 "A store already exists at \(displayName); the tool never overwrites one (remove it first, "
                                 + "or choose another destination).", userInfo: [NSFilePathErrorKey: displayName])
    }

    /// Removes what a failed write left at the destination (files, or a PostgreSQL store's schema).
    func removeLeftovers() {
        try? NSPersistentStoreCoordinator(managedObjectModel: NSManagedObjectModel())
            .destroyPersistentStore(at: url, ofType: kind.storeType, options: nil)
        if kind != .postgresql { try? FileManager.default.removeItem(at: url) }
    }
}
