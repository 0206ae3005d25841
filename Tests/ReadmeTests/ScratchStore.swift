// A store written from scratch, from Docs/WritingAStore.md and the doc comments of the store contract
// (Sources/CoreDataStoreKit/Contract) alone: it adopts `PersistentStoreBackend` itself (not `AtomicStore`, and
// forwarding to no built-in store), keeps its objects in memory and writes them to one binary property list at
// its URL on every save. ScratchStoreConformanceTests runs the whole conformance suite on it: the proof that
// the document is enough to write a store. Where the document fell short, it was completed, not this file
// bent to the package's internals (no `@testable import`).
//
// Files: ScratchStore.swift (the contract), ScratchStoreContents.swift (the objects and the rules applied to
// them), ScratchRowView.swift (what the predicate evaluator reads), ScratchStoreFile.swift (the file format).
import CoreData

/// A store type that keeps every object in memory and in one binary property list at its URL, replaced
/// atomically on every save.
///
/// It adopts none of the refinement protocols, so `NSBatchUpdateRequest`, `NSBatchInsertRequest` and
/// automatic lightweight migration are refused with 134091 and 134100, and the conformance suite skips their
/// cases.
final class ScratchStore: PersistentStoreBackend {
    /// The type name the store registers under and records as `NSStoreType` in its metadata.
    static let typeName = "Scratch"

    private let url: URL
    private let model: NSManagedObjectModel
    private let isReadOnly: Bool
    /// Everything the store holds, as last written to the file.
    private var contents: ScratchContents

    /// Opens the store file at the request's URL, or creates it (and its missing folders) when there is none.
    /// - Throws: 134000 for a file that is not a Scratch store, 259 for a damaged one, 134100 for one saved with
    ///   another model, 134080 without a file URL; the file is never changed by a failed open.
    init(_ request: StoreOpenRequest) throws {
        guard let url = request.url, url.isFileURL else {
            throw CoreDataError.openFailed(request.url, reason: "a Scratch store needs a file URL")
        }
        self.url = url
        model = request.model
        isReadOnly = request.isReadOnly
        if FileManager.default.fileExists(atPath: url.path) {
            let file = try ScratchStoreFile.read(from: url)
            if case .different(let reason) = ModelCompatibility.compare(metadata: file.metadata, entities: request.entities) {
                throw CoreDataError.incompatibleModel(url, reason: reason)
            }
            contents = try file.contents(model: model, url: url)
        } else {
            let metadata = ModelCompatibility.metadata(storeType: Self.typeName, uuid: UUID().uuidString,
                                                       entities: request.entities, model: model)
            contents = ScratchContents(metadata: metadata)
            // A read-only store is never written: a missing one opens empty and stays missing.
            guard !isReadOnly else { return }
            do {
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            } catch {
                throw CoreDataError.openFailed(url, reason: "its folder could not be created: \(error.localizedDescription)")
            }
            try write(contents)
        }
    }

    /// The metadata of the store file at `url`, read without opening the store.
    /// - Throws: 260 when there is no file; 134000 or 259 as `init(_:)` does.
    static func metadataForStore(at url: URL, options: [AnyHashable: Any]?) throws -> [String: Any] {
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw CoreDataError.make(NSFileReadNoSuchFileError, "There is no Scratch store at \(url.path).",
                                     userInfo: [NSFilePathErrorKey: url.path])
        }
        return try ScratchStoreFile.read(from: url).metadata
    }

    var metadata: [String: Any] { contents.metadata }

    /// Its data is a file at its URL, and every row is in memory.
    var capabilities: StoreCapabilities { [.persistsToFile, .persistent, .rowsInMemory] }

    // MARK: Reading

    func fetch(_ request: StoreFetchRequest) throws -> StoreFetchResult {
        let selected = try select(request)
        switch request.result {
        case .rows: return .rows(selected.map(\.row))
        case .keys: return .keys(selected.map(\.key))
        case .count: return .count(selected.count)
        case .dictionaries(let properties, let distinct):
            return .dictionaries(dictionaries(of: selected, properties: properties, distinct: distinct))
        }
    }

    func rows(for keys: [ObjectKey]) throws -> [StoreRow] {
        keys.compactMap { key in contents.objects[key].map { $0.row(key) } }
    }

    func relatedKeys(of key: ObjectKey, through relationship: NSRelationshipDescription) throws -> [ObjectKey] {
        contents.objects[key]?.toMany[relationship.name] ?? []
    }

    /// The objects `request` selects: of its entity (and subentities), matching its predicate, in the order of
    /// its sort descriptors (by primary key without any), after its offset and within its limit.
    /// - Throws: 2048 for a predicate that cannot be evaluated.
    private func select(_ request: StoreFetchRequest) throws -> [ScratchRowView] {
        let entityNumbers = Set(entities(request.entity, includingSubentities: request.includesSubentities).map(\.entityNumber))
        let candidates = contents.objects.keys
            .filter { entityNumbers.contains($0.entityNumber) }
            .sorted { ($0.primaryKey, $0.entityNumber) < ($1.primaryKey, $1.entityNumber) }
            .compactMap { contents.view(of: $0) }
        var matching = try InMemoryQuery.filter(candidates, by: request.predicate)
        try InMemoryQuery.sort(&matching, by: request.sortDescriptors)
        var selected = ArraySlice(matching).dropFirst(max(request.fetchOffset, 0))
        if request.fetchLimit > 0 { selected = selected.prefix(request.fetchLimit) }
        return Array(selected)
    }

    /// `entity`, followed by all its subentities when asked.
    private func entities(_ entity: NSEntityDescription, includingSubentities: Bool) -> [NSEntityDescription] {
        guard includingSubentities else { return [entity] }
        return [entity] + entity.subentities.flatMap { entities($0, includingSubentities: true) }
    }

    /// One dictionary per object of the values of `properties` (to-one relationships as `ObjectKey`), nil values
    /// absent; equal dictionaries once when `distinct`.
    private func dictionaries(of selected: [ScratchRowView], properties: [NSPropertyDescription], distinct: Bool) -> [[String: Any]] {
        var seen = Set<NSDictionary>()
        var result: [[String: Any]] = []
        for view in selected {
            var dictionary: [String: Any] = [:]
            for property in properties {
                if let value = view.object.value(named: property.name) { dictionary[property.name] = value }
            }
            if distinct, !seen.insert(NSDictionary(dictionary: dictionary)).inserted { continue }
            result.append(dictionary)
        }
        return result
    }

    // MARK: Writing

    func allocatePrimaryKeys(for entity: NSEntityDescription, count: Int) throws -> [Int64] {
        guard count > 0 else { return [] }
        let hierarchy = entity.rootEntity.name ?? ""
        guard let keys = StoreNumberLimits.keys(after: contents.keyHighWater[hierarchy] ?? 0, count: count) else {
            throw CoreDataError.saveFailed("the Scratch store has run out of primary keys for \(hierarchy)")
        }
        contents.keyHighWater[hierarchy] = keys.upperBound
        return Array(keys)
    }

    /// Applies the change set to a copy of the contents, checks the uniqueness constraints, writes the file,
    /// and only then keeps the copy: any error leaves the store and its file as they were.
    func save(_ changes: StoreChangeSet) throws -> StoreSaveResult {
        try requireWritable(to: "save")
        var changed = contents
        let versions = try changed.apply(changes, model: model)
        try changed.checkUniquenessConstraints(of: model)
        try write(changed)
        contents = changed
        return StoreSaveResult(versions: versions)
    }

    /// Deletes the selected objects and those their cascade rules reach, in a copy of the contents that is kept
    /// once written.
    /// - Throws: 1600 when a deny rule refuses; 134030 for a read-only store or a failed write.
    func batchDelete(_ request: StoreBatchDeleteRequest) throws -> [ObjectKey] {
        try requireWritable(to: "batch delete")
        let keys: [ObjectKey]
        switch request {
        case .matching(let fetch): keys = try select(fetch).map(\.key)
        case .keys(let given): keys = given.filter { contents.objects[$0] != nil }
        }
        var changed = contents
        let deleted = try changed.delete(keys)
        guard !deleted.isEmpty else { return [] }
        try write(changed)
        contents = changed
        return deleted
    }

    /// Nothing to release: the file is open only while it is read or written.
    func close() {}

    /// - Throws: 134030 when the store was opened read-only.
    private func requireWritable(to operation: String) throws {
        guard !isReadOnly else { throw CoreDataError.saveFailed("the Scratch store at \(url.path) is read-only; cannot \(operation)") }
    }

    /// Replaces the file with `contents`, atomically (a crash leaves the old file or the new one).
    /// - Throws: 134030 when a value cannot be written or the file cannot be replaced.
    private func write(_ contents: ScratchContents) throws {
        let data = try ScratchStoreFile.data(of: contents, model: model)
        try AtomicFileReplacement.replace(url, with: data)
    }
}
