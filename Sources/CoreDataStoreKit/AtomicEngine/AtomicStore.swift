/// The generic engine of atomic stores: every object held in memory, predicates evaluated and sorts done in
/// memory, and the whole store read from and written to a file by a subclass.
///
/// A subclass names its store type and implements `readSnapshot(from:)` and `writeSnapshot(_:to:)`; a store
/// without a file (the in-memory store) implements neither. A save applies the change set in memory, checks the
/// uniqueness constraints (`AtomicUniqueness`), writes the whole file with `AtomicFileReplacement`, and undoes
/// the in-memory changes when a constraint or the write fails.
///
/// A file store's first write (when the store is created) goes through `AtomicFileReplacement` too, so a
/// crash while creating leaves no file or a complete one. Opening a store that is not read-only first removes
/// the temporary files killed saves left beside it (`AtomicFileReplacement.removeLeftovers(of:)`); a save of
/// the same file in progress in another coordinator at that moment then fails with 134030 instead of landing.
open class AtomicStore: PersistentStoreBackend, BatchUpdating, BatchInserting, LightweightMigrating, DerivedAttributeComputing {
    /// The store type name written into the metadata (`NSStoreType`). Subclasses override it.
    open class var storeTypeName: String { "Atomic" }

    /// Reads a whole store file. The default throws "unsupported".
    /// - Throws: 134000 when the file is not of this type, 259 when it is damaged.
    open class func readSnapshot(from url: URL) throws -> AtomicStoreSnapshot {
        throw CoreDataError.unsupported("\(storeTypeName) stores have no file format")
    }

    /// Writes a whole store file at `url` (already a temporary path; the engine moves it into place).
    open func writeSnapshot(_ snapshot: AtomicStoreSnapshot, to url: URL) throws {
        throw CoreDataError.unsupported("\(Self.storeTypeName) stores have no file format")
    }

    /// Matches the entity and property names a file records to the model's before the snapshot is loaded.
    /// The default returns the snapshot unchanged (its names must equal the model's); a format that records
    /// names differently (Apple's XML store: upper-case entities, lower-case properties) overrides it.
    /// - Throws: 259 or 134100 when the file's names cannot be matched to the model.
    open class func matchNames(in snapshot: AtomicStoreSnapshot, to request: StoreOpenRequest) throws -> AtomicStoreSnapshot {
        snapshot
    }

    /// Whether one primary-key sequence is shared by every entity (true for formats whose object IDs are unique
    /// store-wide, like Apple's XML store) rather than one sequence per entity hierarchy (the default).
    open class var sharesPrimaryKeysAcrossEntities: Bool { false }

    /// The request the store was opened with.
    public let openRequest: StoreOpenRequest
    public private(set) var metadata: [String: Any]
    open var capabilities: StoreCapabilities {
        openRequest.url == nil ? [.rowsInMemory] : [.persistsToFile, .persistent, .rowsInMemory]
    }

    private(set) var records: [ObjectKey: AtomicRecord] = [:]
    /// The derived attributes of the store's entities, computed at each save (`AtomicStore+DerivedAttributes.swift`).
    lazy var derivations: [(attribute: NSDerivedAttributeDescription, derivation: DerivedAttributeDerivation)] =
        (try? DerivedAttributeDerivation.derivations(in: openRequest.entities)) ?? []
    private var keysByEntity: [Int32: Set<Int64>] = [:]
    private var highWater: [Int32: Int64] = [:]

    public required init(_ request: StoreOpenRequest) throws {
        openRequest = request
        let typeName = Self.storeTypeName
        if let url = request.url, !request.isReadOnly {
            // Temporary files of saves that were killed part-way (never the store itself, never other files).
            AtomicFileReplacement.removeLeftovers(of: url)
        }
        if let url = request.url, FileManager.default.fileExists(atPath: url.path) {
            var snapshot = try Self.readCheckedSnapshot(from: url, for: request)
            var verdict = Self.compatibility(of: snapshot, with: request)
            // A migration holds the file's lock from reading to writing, so two processes opening an old store
            // at once migrate it once; the second reads again what the first wrote.
            var migrationLock: StoreFileLock?
            defer { migrationLock?.unlock() }
            if case .different = verdict, request.allowsLightweightMigration, !request.isReadOnly {
                migrationLock = try StoreFileLock(exclusivelyLocking: url)
                snapshot = try Self.readCheckedSnapshot(from: url, for: request)
                verdict = Self.compatibility(of: snapshot, with: request)
            }
            let uuid = snapshot.metadata[NSStoreUUIDKey] as? String ?? UUID().uuidString
            metadata = snapshot.metadata
            metadata[NSStoreTypeKey] = typeName
            metadata[NSStoreUUIDKey] = uuid
            var migrating = false
            if case .different(let reason) = verdict {
                guard request.allowsLightweightMigration else { throw CoreDataError.incompatibleModel(url, reason: reason) }
                MigrationDebugLog.note("will attempt automatic lightweight migration of the \(typeName) store at \(url.path): \(reason)")
                migrating = true
            }
            let migration = AtomicLightweightMigration(entities: request.entities)
            try load(migrating ? migration.renamed(snapshot) : snapshot, migrating: migrating, url: url)
            if migrating { try migration.completeRequiredValues(Array(records.values)) }
            // A file written elsewhere, or by a model without these derivations, gets them computed now.
            _ = computeDerivedValues(written: [], savedAt: Date(), remember: { _ in })
            metadata = ModelCompatibility.upgradingLegacy(metadata, storeType: typeName, entities: request.entities, model: request.model)
            if migrating {
                metadata = ModelCompatibility.metadata(storeType: typeName, uuid: uuid, entities: request.entities,
                                                       model: request.model, keeping: metadata)
                if !request.isReadOnly { try writeFile() }
                MigrationDebugLog.note("migration of \(url.path) to the model with version checksum \(request.model.versionChecksum) completed successfully")
            }
        } else {
            metadata = ModelCompatibility.metadata(storeType: typeName, uuid: UUID().uuidString,
                                                   entities: request.entities, model: request.model)
            if let url = request.url {
                guard !request.isReadOnly else {
                    throw CoreDataError.make(NSFileReadNoSuchFileError, "There is no store file at \(url.path) to open read-only.",
                                             userInfo: [NSFilePathErrorKey: url.path])
                }
                do {
                    try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                } catch {
                    throw CoreDataError.openFailed(url, reason: "its directory could not be created (\(error.localizedDescription))")
                }
                try writeFile()
            }
        }
    }

    /// The file's contents with names matched to the request's model, after checking the file is this type's.
    private static func readCheckedSnapshot(from url: URL, for request: StoreOpenRequest) throws -> AtomicStoreSnapshot {
        let snapshot = try matchNames(in: readSnapshot(from: url), to: request)
        if let storedType = snapshot.metadata[NSStoreTypeKey] as? String, storedType != storeTypeName {
            throw CoreDataError.notAStore(url, type: storeTypeName, reason: "its metadata says it is a \(storedType) store")
        }
        return snapshot
    }

    /// Whether the contents were saved with the request's model. `NSIgnorePersistentStoreVersioningOption`
    /// opens the file with the model in hand whatever hashes it records.
    private static func compatibility(of snapshot: AtomicStoreSnapshot, with request: StoreOpenRequest) -> ModelCompatibility.Verdict {
        storeOptionIsSet(request.options, NSIgnorePersistentStoreVersioningOption)
            ? .same : ModelCompatibility.compare(metadata: snapshot.metadata, entities: request.entities)
    }

    /// The store's one file (an atomic store writes a sibling temporary file only while saving).
    open class func storeFiles(at url: URL) -> [URL] { [url] }

    open class func metadataForStore(at url: URL, options: [AnyHashable: Any]?) throws -> [String: Any] {
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw CoreDataError.make(NSFileReadNoSuchFileError, "There is no store file at \(url.path).",
                                     userInfo: [NSFilePathErrorKey: url.path])
        }
        let snapshot = try readSnapshot(from: url)
        var metadata = snapshot.metadata
        metadata[NSStoreTypeKey] = metadata[NSStoreTypeKey] ?? storeTypeName
        return metadata
    }

    open func close() {}

    // MARK: Loading

    private func load(_ snapshot: AtomicStoreSnapshot, migrating: Bool, url: URL) throws {
        let model = openRequest.model
        let allowed = Set(openRequest.entities.map(ObjectIdentifier.init))
        func entity(named name: String) throws -> NSEntityDescription? {
            if let entity = model.entitiesByName[name], allowed.contains(ObjectIdentifier(entity)) { return entity }
            if migrating { return nil }
            throw CoreDataError.incompatibleModel(url, reason: "the store has objects of entity \(name), which the model lacks")
        }
        func key(_ reference: AtomicStoreSnapshot.Reference) throws -> ObjectKey? {
            guard let entity = try entity(named: reference.entityName) else { return nil }
            return ObjectKey(entityNumber: entity.entityNumber, primaryKey: reference.primaryKey)
        }
        for object in snapshot.objects {
            guard let entity = try entity(named: object.reference.entityName) else { continue }
            let limit = StoreNumberLimits.largestStoredNumber
            guard object.reference.primaryKey > 0, object.reference.primaryKey <= limit else {
                throw CoreDataError.corruptStore(url, type: Self.storeTypeName, reason: "an object of \(object.reference.entityName) has key \(object.reference.primaryKey)")
            }
            guard object.version <= limit else {
                throw CoreDataError.corruptStore(url, type: Self.storeTypeName, reason: "an object of \(object.reference.entityName) has version \(object.version)")
            }
            let layout = entity.layout
            var values = [Any?](repeating: nil, count: layout.slotCount)
            var toMany: [Int: [ObjectKey]] = [:]
            for (name, value) in CompositeAttributeValue.nestingLeaves(of: object.attributes, in: layout) {
                guard let slot = layout.slotByName[name], let attribute = layout.allProperties[slot] as? NSAttributeDescription else {
                    if migrating { continue }
                    throw CoreDataError.incompatibleModel(url, reason: "entity \(entity.name ?? "") has no attribute \(name)")
                }
                guard let coerced = AttributeValueCoercion.coerce(value, for: attribute) else {
                    if migrating {
                        throw CoreDataError.cannotInferMapping(entity: entity.name ?? "", property: name,
                                                               reason: "holds a \(type(of: value)), which the inferred mapping cannot convert to type \(attribute.attributeType.rawValue)")
                    }
                    throw CoreDataError.corruptStore(url, type: Self.storeTypeName, reason: "attribute \(name) of \(entity.name ?? "") holds a \(type(of: value)), not a value of type \(attribute.attributeType)")
                }
                values[slot] = coerced
            }
            for (name, reference) in object.toOne {
                guard let slot = layout.slotByName[name], let relationship = layout.allProperties[slot] as? NSRelationshipDescription, !relationship.isToMany else {
                    if migrating { continue }
                    throw CoreDataError.incompatibleModel(url, reason: "entity \(entity.name ?? "") has no to-one relationship \(name)")
                }
                values[slot] = try key(reference)
            }
            for (name, references) in object.toMany {
                guard let slot = layout.slotByName[name], let relationship = layout.allProperties[slot] as? NSRelationshipDescription, relationship.isToMany else {
                    if migrating { continue }
                    throw CoreDataError.incompatibleModel(url, reason: "entity \(entity.name ?? "") has no to-many relationship \(name)")
                }
                toMany[slot] = try references.compactMap(key)
            }
            let objectKey = ObjectKey(entityNumber: entity.entityNumber, primaryKey: object.reference.primaryKey)
            guard records[objectKey] == nil else {
                throw CoreDataError.corruptStore(url, type: Self.storeTypeName, reason: "two objects of \(entity.name ?? "") have key \(objectKey.primaryKey)")
            }
            insertRecord(AtomicRecord(key: objectKey, entity: entity, version: max(object.version, 1), values: values, toMany: toMany))
            let root = entity.rootEntity.entityNumber
            highWater[root] = max(highWater[root] ?? 0, objectKey.primaryKey)
        }
        for (name, value) in snapshot.primaryKeyHighWater {
            guard value <= StoreNumberLimits.largestStoredNumber else {
                throw CoreDataError.corruptStore(url, type: Self.storeTypeName, reason: "the last key given out for \(name) is \(value)")
            }
            guard let entity = model.entitiesByName[name] else { continue }
            let root = entity.rootEntity.entityNumber
            highWater[root] = max(highWater[root] ?? 0, value)
        }
        // Drop references to objects that are not in the store (a file edited by hand, or a migration).
        for record in records.values {
            for slot in record.entity.layout.storedSlots {
                if let target = record.values[slot] as? ObjectKey, records[target] == nil { record.values[slot] = nil }
            }
            for (slot, keys) in record.toMany { record.toMany[slot] = keys.filter { records[$0] != nil } }
        }
    }

    private func insertRecord(_ record: AtomicRecord) {
        records[record.key] = record
        keysByEntity[record.key.entityNumber, default: []].insert(record.key.primaryKey)
    }

    private func removeRecord(_ key: ObjectKey) {
        records[key] = nil
        keysByEntity[key.entityNumber]?.remove(key.primaryKey)
    }

    func record(for key: ObjectKey) -> AtomicRecord? { records[key] }

    // MARK: Writing

    /// The whole store as a snapshot, by names.
    public func snapshot() -> AtomicStoreSnapshot {
        let model = openRequest.model
        func reference(_ key: ObjectKey) -> AtomicStoreSnapshot.Reference? {
            model.entity(withNumber: key.entityNumber).flatMap { entity in
                entity.name.map { AtomicStoreSnapshot.Reference(entityName: $0, primaryKey: key.primaryKey) }
            }
        }
        var objects: [AtomicStoreSnapshot.Object] = []
        objects.reserveCapacity(records.count)
        for record in records.values.sorted(by: { ($0.key.entityNumber, $0.key.primaryKey) < ($1.key.entityNumber, $1.key.primaryKey) }) {
            guard let own = reference(record.key) else { continue }
            var object = AtomicStoreSnapshot.Object(reference: own, version: record.version)
            let layout = record.entity.layout
            for slot in layout.storedSlots {
                let property = layout.allProperties[slot]
                guard let value = record.values[slot] else { continue }
                if let composite = property as? NSCompositeAttributeDescription {
                    for (path, leafValue) in CompositeAttributeValue.flattenedLeaves(of: value, composite: composite) {
                        object.attributes[path] = leafValue
                    }
                } else if property is NSAttributeDescription {
                    object.attributes[property.name] = value
                } else if let target = value as? ObjectKey, let targetReference = reference(target) {
                    object.toOne[property.name] = targetReference
                }
            }
            for (slot, keys) in record.toMany {
                object.toMany[layout.allProperties[slot].name] = keys.compactMap(reference)
            }
            objects.append(object)
        }
        var highWaterByName: [String: Int64] = [:]
        for (number, value) in highWater {
            if let name = model.entity(withNumber: number)?.name { highWaterByName[name] = value }
        }
        return AtomicStoreSnapshot(metadata: metadata, objects: objects, primaryKeyHighWater: highWaterByName)
    }

    private func writeFile() throws {
        guard let url = openRequest.url else { return }
        let snapshot = snapshot()
        try AtomicFileReplacement.replace(url) { temporary in try writeSnapshot(snapshot, to: temporary) }
    }

    // MARK: Reading

    private func candidates(_ request: StoreFetchRequest) -> [AtomicRecord] {
        records(of: request.entity, includingSubentities: request.includesSubentities)
    }

    /// The records of `entity`, and of its subentities when asked, in no particular order.
    func records(of entity: NSEntityDescription, includingSubentities: Bool) -> [AtomicRecord] {
        var numbers = [entity.entityNumber]
        if includingSubentities {
            var stack = entity.subentities
            while let entity = stack.popLast() {
                numbers.append(entity.entityNumber)
                stack.append(contentsOf: entity.subentities)
            }
        }
        var result: [AtomicRecord] = []
        for number in numbers {
            for primaryKey in keysByEntity[number] ?? [] {
                if let record = records[ObjectKey(entityNumber: number, primaryKey: primaryKey)] { result.append(record) }
            }
        }
        return result
    }

    /// The records a fetch selects, filtered, sorted, offset and limited.
    private func select(_ request: StoreFetchRequest) throws -> [AtomicRecord] {
        var views = try InMemoryQuery.filter(candidates(request).map { AtomicRowView(record: $0, store: self) },
                                             by: request.predicate)
        if request.sortDescriptors.isEmpty {
            views.sort { $0.record.key.primaryKey < $1.record.key.primaryKey }
        } else {
            try InMemoryQuery.sort(&views, by: request.sortDescriptors)
        }
        var slice = ArraySlice(views)
        if request.fetchOffset > 0 { slice = slice.dropFirst(request.fetchOffset) }
        if request.fetchLimit > 0 { slice = slice.prefix(request.fetchLimit) }
        return slice.map(\.record)
    }

    open func fetch(_ request: StoreFetchRequest) throws -> StoreFetchResult {
        let selected = try select(request)
        switch request.result {
        case .rows: return .rows(selected.map(\.row))
        case .keys: return .keys(selected.map(\.key))
        case .count: return .count(selected.count)
        case .dictionaries(let properties, let distinct):
            var seen = Set<NSDictionary>()
            var result: [[String: Any]] = []
            for record in selected {
                var dictionary: [String: Any] = [:]
                let layout = record.entity.layout
                for property in properties {
                    guard let slot = layout.slotByName[property.name] else { continue }
                    if let value = record.values[slot] { dictionary[property.name] = value }
                }
                if distinct {
                    guard seen.insert(NSDictionary(dictionary: dictionary)).inserted else { continue }
                }
                result.append(dictionary)
            }
            return .dictionaries(result)
        }
    }

    open func rows(for keys: [ObjectKey]) throws -> [StoreRow] {
        keys.compactMap { records[$0]?.row }
    }

    open func relatedKeys(of key: ObjectKey, through relationship: NSRelationshipDescription) throws -> [ObjectKey] {
        guard let record = records[key], let slot = record.entity.layout.slotByName[relationship.name] else { return [] }
        return record.toMany[slot] ?? []
    }

    /// Keys after the hierarchy's high-water mark (after the store's, when keys are shared across entities).
    /// - Throws: 134030 when the keys would pass `StoreNumberLimits.largestStoredNumber`.
    open func allocatePrimaryKeys(for entity: NSEntityDescription, count: Int) throws -> [Int64] {
        guard count > 0 else { return [] }
        let root = entity.rootEntity.entityNumber
        let last = Self.sharesPrimaryKeysAcrossEntities ? highWater.values.max() ?? 0 : highWater[root] ?? 0
        guard let keys = StoreNumberLimits.keys(after: last, count: count) else {
            throw CoreDataError.saveFailed("the store at \(openRequest.url?.path ?? "memory") has no primary keys left for \(count) new \(entity.name ?? "") objects (the last given out is \(last))")
        }
        highWater[root] = keys.upperBound
        return Array(keys)
    }

    // MARK: Saving

    /// Applies a change set in memory and writes the file; when a version check, a uniqueness constraint or the
    /// write fails, the store is left as it was.
    /// - Throws: `StoreVersionConflict`; 134030 for a read-only store; 133021 when a uniqueness constraint fails.
    open func save(_ changes: StoreChangeSet) throws -> StoreSaveResult {
        if openRequest.isReadOnly {
            throw CoreDataError.saveFailed("the store at \(openRequest.url?.path ?? "memory") was added read-only")
        }
        var conflicts: [StoreVersionConflict.Conflict] = []
        for update in changes.updated {
            // A row that is gone conflicts even without a version check: there is nothing left to overwrite.
            guard let current = records[update.row.key] else {
                conflicts.append(.init(key: update.row.key, expectedVersion: update.expectedVersion ?? 0, current: nil))
                continue
            }
            if let expected = update.expectedVersion, current.version != expected {
                conflicts.append(.init(key: update.row.key, expectedVersion: expected, current: current.row))
            }
        }
        for deletion in changes.deleted {
            guard let expected = deletion.expectedVersion, let current = records[deletion.key] else { continue }
            if current.version != expected {
                conflicts.append(.init(key: deletion.key, expectedVersion: expected, current: current.row))
            }
        }
        guard conflicts.isEmpty else { throw StoreVersionConflict(conflicts: conflicts) }

        var undo: [ObjectKey: AtomicRecord?] = [:]
        func remember(_ key: ObjectKey) {
            if undo[key] == nil { undo[key] = .some(records[key]?.copy()) }
        }
        let oldMetadata = metadata
        let model = openRequest.model
        var versions: [ObjectKey: Int64] = [:]
        for row in changes.inserted {
            guard let entity = model.entity(withNumber: row.key.entityNumber) else { continue }
            remember(row.key)
            insertRecord(AtomicRecord(key: row.key, entity: entity, version: 1, values: row.values))
        }
        for update in changes.updated {
            guard let record = records[update.row.key] else { continue }
            remember(record.key)
            // The whole row: unchanged slots hold the stored values (checked version) or every slot is listed
            // as changed (unchecked update), so this equals writing only `changedSlots`.
            record.values = update.row.values
            record.version += 1
            if update.expectedVersion == nil { versions[record.key] = record.version }
        }
        for change in changes.toManyChanges {
            guard let record = records[change.owner], let slot = record.entity.layout.slotByName[change.relationship.name] else { continue }
            remember(record.key)
            record.toMany[slot] = change.destinations
        }
        for deletion in changes.deleted where records[deletion.key] != nil {
            remember(deletion.key)
            removeRecord(deletion.key)
        }
        if let newMetadata = changes.metadata {
            metadata = ModelCompatibility.keepingModelKeys(of: oldMetadata, in: newMetadata)
            metadata[NSStoreTypeKey] = Self.storeTypeName
            metadata[NSStoreUUIDKey] = oldMetadata[NSStoreUUIDKey]
        }
        let derivedValues = derivations.isEmpty ? [:]
            : computeDerivedValues(written: Set(changes.inserted.map(\.key) + changes.updated.map(\.row.key)), savedAt: Date(), remember: remember)
        do {
            // Checked on the final state, after the deletions: a value a deleted object gives up is free.
            let changed = changes.inserted.compactMap { records[$0.key] } + changes.updated.compactMap { records[$0.row.key] }
            try checkUniqueness(of: changed)
            try writeFile()
        } catch {
            for (key, old) in undo {
                removeRecord(key)
                if let old { insertRecord(old) }
            }
            metadata = oldMetadata
            throw error
        }
        return StoreSaveResult(versions: versions, derivedValues: derivedValues)
    }

    /// Checks the changed records, already holding their new values, against the uniqueness constraints of
    /// their entities' trees (see `AtomicUniqueness`).
    /// - Throws: 133021 when two records of a tree would have the same constrained values.
    private func checkUniqueness(of changed: [AtomicRecord]) throws {
        try AtomicUniqueness.check(changed: changed) { root in records(of: root, includingSubentities: true) }
    }

    // MARK: Batch delete

    open func batchDelete(_ request: StoreBatchDeleteRequest) throws -> [ObjectKey] {
        if openRequest.isReadOnly {
            throw CoreDataError.saveFailed("the store at \(openRequest.url?.path ?? "memory") was added read-only")
        }
        var pending: [ObjectKey]
        switch request {
        case .matching(let fetch): pending = try select(fetch).map(\.key)
        case .keys(let keys): pending = keys.filter { records[$0] != nil }
        }
        // Follow cascade rules to the full set of doomed rows, then check deny rules against that whole set
        // (a destination the same request deletes does not deny), all before changing anything.
        var doomed = Set<ObjectKey>()
        var order: [ObjectKey] = []
        var denials: [(owner: AtomicRecord, relationship: NSRelationshipDescription, targets: [ObjectKey])] = []
        while let key = pending.popLast() {
            guard doomed.insert(key).inserted, let record = records[key] else { continue }
            order.append(key)
            let layout = record.entity.layout
            for case let relationship as NSRelationshipDescription in layout.allProperties where !relationship.isTransient {
                guard let slot = layout.slotByName[relationship.name] else { continue }
                let targets = relationship.isToMany ? (record.toMany[slot] ?? []) : [record.values[slot] as? ObjectKey].compactMap { $0 }
                switch relationship.deleteRule {
                case .cascadeDeleteRule: pending.append(contentsOf: targets)
                case .denyDeleteRule where !targets.isEmpty: denials.append((record, relationship, targets))
                default: break
                }
            }
        }
        for denial in denials where denial.targets.contains(where: { records[$0] != nil && !doomed.contains($0) }) {
            throw CoreDataError.make(NSValidationRelationshipDeniedDeleteError,
                                     "The batch delete was refused: a \(denial.owner.entity.name ?? "") object still has objects in \(denial.relationship.name), whose delete rule is deny.",
                                     userInfo: [NSValidationKeyErrorKey: denial.relationship.name])
        }
        guard !order.isEmpty else { return [] }
        var undo: [ObjectKey: AtomicRecord] = [:]
        for record in records.values where !doomed.contains(record.key) {
            let layout = record.entity.layout
            var touched = false
            for slot in layout.storedSlots {
                if let target = record.values[slot] as? ObjectKey, doomed.contains(target) {
                    if !touched { undo[record.key] = record.copy(); touched = true }
                    record.values[slot] = nil
                }
            }
            for (slot, keys) in record.toMany where keys.contains(where: doomed.contains) {
                if !touched { undo[record.key] = record.copy(); touched = true }
                record.toMany[slot] = keys.filter { !doomed.contains($0) }
            }
            if touched { record.version += 1 }
        }
        var removed: [AtomicRecord] = []
        for key in order {
            if let record = records[key] { removed.append(record) }
            removeRecord(key)
        }
        do {
            try writeFile()
        } catch {
            for record in removed { insertRecord(record) }
            for (_, old) in undo { removeRecord(old.key); insertRecord(old) }
            throw error
        }
        return order
    }

    // MARK: Batch update and insert

    /// Sets the request's attributes on every matching record in memory, then writes the file; when a
    /// uniqueness constraint fails or the write fails, the records get their old values and versions back.
    /// - Throws: 134030 for a read-only store; 133021 when a uniqueness constraint fails.
    open func batchUpdate(_ request: StoreBatchUpdateRequest) throws -> [ObjectKey] {
        if openRequest.isReadOnly {
            throw CoreDataError.saveFailed("the store at \(openRequest.url?.path ?? "memory") was added read-only")
        }
        let selected = try select(request.fetch)
        guard !selected.isEmpty else { return [] }
        var undo: [(record: AtomicRecord, values: [Any?], version: Int64)] = []
        undo.reserveCapacity(selected.count)
        for record in selected {
            undo.append((record, record.values, record.version))
            let layout = record.entity.layout
            for assignment in request.assignments {
                if let slot = layout.slotByName[assignment.attribute.name] { record.values[slot] = assignment.value }
            }
            record.version += 1
        }
        do {
            try checkUniqueness(of: selected)
            try writeFile()
        } catch {
            for (record, values, version) in undo {
                record.values = values
                record.version = version
            }
            throw error
        }
        return selected.map(\.key)
    }

    /// Adds one record per row with newly allocated keys and version 1, then writes the file; when a uniqueness
    /// constraint fails or the write fails, the records are removed again (the keys stay used, as after a
    /// failed save).
    /// - Throws: 134030 for a read-only store; 133021 when a uniqueness constraint fails.
    open func batchInsert(_ request: StoreBatchInsertRequest) throws -> [ObjectKey] {
        if openRequest.isReadOnly {
            throw CoreDataError.saveFailed("the store at \(openRequest.url?.path ?? "memory") was added read-only")
        }
        let entity = request.entity
        guard let own = openRequest.model.entity(withNumber: entity.entityNumber), own.name == entity.name,
              openRequest.entities.contains(where: { $0 === own }) else {
            throw CoreDataError.unsupported("batch inserts into entity \(entity.name ?? ""), which is not in this store")
        }
        guard !request.rows.isEmpty else { return [] }
        let primaryKeys = try allocatePrimaryKeys(for: own, count: request.rows.count)
        var keys: [ObjectKey] = []
        var inserted: [AtomicRecord] = []
        keys.reserveCapacity(primaryKeys.count)
        inserted.reserveCapacity(primaryKeys.count)
        for (primaryKey, values) in zip(primaryKeys, request.rows) {
            let key = ObjectKey(entityNumber: own.entityNumber, primaryKey: primaryKey)
            let record = AtomicRecord(key: key, entity: own, version: 1, values: values)
            insertRecord(record)
            inserted.append(record)
            keys.append(key)
        }
        do {
            try checkUniqueness(of: inserted)
            try writeFile()
        } catch {
            for key in keys { removeRecord(key) }
            throw error
        }
        return keys
    }
}
