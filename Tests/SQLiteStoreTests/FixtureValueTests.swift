import CSQLite
import CoreData
import CoreDataSQLite
import Foundation
import Testing

/// Every Apple-written SQLite store in the fixtures opens with every model it was saved with that the fixtures
/// hold (the one it caches in `Z_MODELCACHE`, and each model file whose version hashes it records), and reads
/// as sqlite3 reads it: each entity's count, and each stored attribute of its first 50 rows.
@Suite(.enabled(if: Fixtures.available, "fixtures not found (set COREDATA_FIXTURES or put them in ../shared/fixtures)"))
struct FixtureValueTests {
    /// The fixture stores' file names (not their `-wal`/`-shm` companions).
    static let stores: [String] = {
        guard let folder = Fixtures.root?.appendingPathComponent("apple/sqlite"),
              let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return [] }
        return names.filter { $0.hasSuffix(".sqlite") }.sorted()
    }()

    /// Every model file in the fixtures (packages, model files, compiled models).
    static let modelFiles: [URL] = {
        guard let root = Fixtures.root else { return [] }
        return ["apple/models", "apple/mom"].flatMap { folder -> [URL] in
            let url = root.appendingPathComponent(folder)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
            return names.filter { [".xcdatamodeld", ".xcdatamodel", ".momd", ".mom"].contains(where: $0.hasSuffix) }.sorted()
                .map { url.appendingPathComponent($0) }
        }
    }()

    /// The models a store was saved with: its cached model, and the version of each fixture model file whose
    /// hashes its metadata records; the model rebuilt in code when the fixtures hold neither.
    static func models(of file: String) throws -> [(name: String, model: NSManagedObjectModel)] {
        let url = try Fixtures.copy(file)
        var models: [(String, NSManagedObjectModel)] = []
        if let cached = try SQLiteStore.cachedModel(at: url) { models.append(("Z_MODELCACHE", cached)) }
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: url)
        for modelFile in modelFiles {
            guard let version = try? NSManagedObjectModel.version(ofModelAt: modelFile, matchingStoreMetadata: metadata) else { continue }
            models.append(("\(modelFile.lastPathComponent) version \(version.name)", version.model))
        }
        if models.isEmpty { models.append(("rebuilt in code", try FixtureModels.storeModel(file))) }
        return models
    }

    @Test("every fixture store reads as sqlite3 reads it, with each of its models", arguments: stores)
    func readsAsSQLiteReadsIt(_ file: String) throws {
        for (name, model) in try Self.models(of: file) {
            let url = try Fixtures.copy(file)
            let stack = try Stack(model: model, url: url)
            defer { try? stack.close() }
            let raw = try RawStore(url)
            let uuid = try #require(stack.store.metadata[NSStoreUUIDKey] as? String)
            var compared = 0
            for entity in model.entities {
                let entityName = entity.name ?? ""
                let number = try #require(raw.number(of: entity), "\(name): \(entityName) has no Z_PRIMARYKEY row")
                let table = "Z" + (entity.rootEntity.name ?? "").uppercased()
                let count = try raw.rows("SELECT COUNT(*) FROM \(table) WHERE Z_ENT = \(number)").first?.first
                #expect(try stack.count(entityName, subentities: false) == count?.integer.map(Int.init), "\(name): count of \(entityName)")
                let attributes = entity.attributesByName.values.filter { !$0.isTransient }.sorted { $0.name < $1.name }
                guard !attributes.isEmpty else { continue }
                let columns = attributes.map { "Z" + $0.name.uppercased() }
                let rows = try raw.rows("SELECT Z_PK, \(columns.joined(separator: ", ")) FROM \(table) WHERE Z_ENT = \(number) ORDER BY Z_PK LIMIT 50")
                for row in rows {
                    let key = try #require(row.first?.integer)
                    let uri = try #require(URL(string: "x-coredata://\(uuid)/\(entityName)/p\(key)"))
                    let objectID = try #require(stack.coordinator.managedObjectID(forURIRepresentation: uri), "\(name): \(uri)")
                    try stack.context.performAndWait {
                        let object = try stack.context.existingObject(with: objectID)
                        for (attribute, stored) in zip(attributes, row.dropFirst()) {
                            let value = object.value(forKey: attribute.name)
                            compared += 1
                            #expect(Self.same(value, stored, attribute.attributeType),
                                    "\(name): \(entityName) p\(key) \(attribute.name) reads \(String(describing: value)), sqlite3 reads \(stored)")
                        }
                    }
                }
            }
            #expect(compared > 0, "\(name): no value compared")
        }
    }

    /// A store created here from each model an Apple store was saved with has the same tables (columns in
    /// order), indexes, triggers and `Z_PRIMARYKEY` rows as the Apple store. (CoreDataBooks is left out: its
    /// table was altered by hand after Core Data wrote it.)
    @Test("a new store from a fixture store's own models has Apple's schema", arguments: stores.filter { !$0.hasPrefix("gilpa") })
    func newStoreHasApplesSchema(_ file: String) throws {
        let apple = try Fixtures.copy(file)
        let applePrimaryKeys = RawSQLite.rows(apple, "SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY WHERE Z_ENT < 16000 ORDER BY Z_ENT")
        let appleTriggers = RawSQLite.rows(apple, "SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name")
        for (name, model) in try Self.models(of: file) {
            let url = TemporaryStore.url()
            try Stack(model: model, url: url).close()
            let schema = RawSQLite.modelSchema(url), appleSchema = RawSQLite.modelSchema(apple)
            #expect(schema.map(Self.columnsSorted) == appleSchema.map(Self.columnsSorted), "\(name)")
            // The 2009 Recipes store (framework 241) lists ZRECIPE's text columns in that year's hash-table order
            // of the names; a new store is made in the current order, as Apple's current framework makes it.
            // ColumnOrderTests reproduces the 2009 order (SQLiteStore.md, "Column order").
            withKnownIssue("the 2009 Recipes store is in the 2009 frameworks' column order, a new store in the current one") {
                #expect(schema == appleSchema, "\(name): only ours \(schema.filter { !appleSchema.contains($0) }), only Apple's \(appleSchema.filter { !schema.contains($0) })")
            } when: { file == "fruitsamples__iPhoneCoreDataRecipes__RecipeData__Recipes.sqlite" }
            // An entity renamed by a migration keeps its old name in Apple's Z_PRIMARYKEY.
            let renamed = Dictionary(model.entities.compactMap { entity in entity.renamingIdentifier.map { (entity.name ?? "", $0) } },
                                     uniquingKeysWith: { first, _ in first })
            let ours = RawSQLite.rows(url, "SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY ORDER BY Z_ENT").map { row in
                applePrimaryKeys.contains(row) ? row : [row[0], renamed[row[1]] ?? row[1], row[2]]
            }
            #expect(ours == applePrimaryKeys, "\(name)")
            let triggers = RawSQLite.rows(url, "SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name")
            #expect(triggers == appleTriggers, "\(name): derived attributes' triggers (Z_DA_…) as Apple's")
        }
    }

    /// A schema entry with the columns of a `CREATE TABLE` sorted: the same columns and types in any order.
    static func columnsSorted(_ entry: String) -> String {
        guard entry.hasPrefix("table "), let open = entry.firstIndex(of: "("), let close = entry.lastIndex(of: ")") else { return entry }
        let columns = entry[entry.index(after: open)..<close].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        return String(entry[...open]) + columns.sorted().joined(separator: ", ") + ")"
    }

    /// Whether a value read through Core Data is what the column holds, by Apple's encodings.
    static func same(_ value: Any?, _ stored: RawStore.Value, _ type: NSAttributeType) -> Bool {
        switch (stored, value) {
        case (.null, nil): return true
        case (.null, _), (_, nil): return false
        default: break
        }
        switch type {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .booleanAttributeType:
            return (value as? NSNumber)?.int64Value == stored.integer || (value as? Bool).map { Int64($0 ? 1 : 0) } == stored.integer
        case .doubleAttributeType: return (value as? Double) == stored.real
        case .floatAttributeType: return (value as? Float) == stored.real.map(Float.init)
        case .dateAttributeType: return (value as? Date)?.timeIntervalSinceReferenceDate == stored.real
        case .decimalAttributeType:
            guard let decimal = value as? Decimal, let real = stored.real else { return false }
            return abs(NSDecimalNumber(decimal: decimal).doubleValue - real) <= abs(real) * 1e-12
        case .stringAttributeType: return (value as? String) == stored.text
        case .URIAttributeType: return (value as? URL)?.absoluteString == stored.text
        case .UUIDAttributeType:
            guard let uuid = value as? UUID else { return false }
            return withUnsafeBytes(of: uuid.uuid) { Data($0) } == stored.blob
        case .binaryDataAttributeType: return (value as? Data) == stored.blob
        default: return true  // transformable: the app's own classes decode it
        }
    }
}

/// A fixture copy read with the C API, with SQLite's own types.
struct RawStore {
    enum Value: CustomStringConvertible {
        case null, integer(Int64), real(Double), text(String), blob(Data)

        var integer: Int64? { if case .integer(let value) = self { return value } else { return nil } }
        var real: Double? {
            switch self {
            case .real(let value): return value
            case .integer(let value): return Double(value)
            default: return nil
            }
        }
        var text: String? { if case .text(let value) = self { return value } else { return nil } }
        var blob: Data? { if case .blob(let value) = self { return value } else { return nil } }
        var description: String {
            switch self {
            case .null: return "NULL"
            case .integer(let value): return "\(value)"
            case .real(let value): return "\(value)"
            case .text(let value): return "'\(value)'"
            case .blob(let value): return "\(value.count) bytes"
            }
        }
    }

    struct Failure: Error, CustomStringConvertible { let description: String }

    let url: URL
    /// `Z_PRIMARYKEY`: entity numbers by name.
    let numbers: [String: Int64]

    init(_ url: URL) throws {
        self.url = url
        let rows = try Self.rows(url, "SELECT Z_NAME, Z_ENT FROM Z_PRIMARYKEY")
        numbers = Dictionary(rows.compactMap { row in row.first?.text.flatMap { name in row.last?.integer.map { (name, $0) } } },
                             uniquingKeysWith: { first, _ in first })
    }

    /// The entity's `Z_ENT`: its row, or the row of its renaming identifier (a migration's rename).
    func number(of entity: NSEntityDescription) -> Int64? {
        numbers[entity.name ?? ""] ?? entity.renamingIdentifier.flatMap { numbers[$0] }
    }

    func rows(_ sql: String) throws -> [[Value]] { try Self.rows(url, sql) }

    static func rows(_ url: URL, _ sql: String) throws -> [[Value]] {
        var db: OpaquePointer?
        guard sqlite3_open_v2(url.path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK, let db else { throw Failure(description: "cannot open \(url.path)") }
        defer { sqlite3_close_v2(db) }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw Failure(description: "\(sql): \(String(cString: sqlite3_errmsg(db)))")
        }
        defer { sqlite3_finalize(statement) }
        var result: [[Value]] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            result.append((0..<sqlite3_column_count(statement)).map { column in
                switch sqlite3_column_type(statement, column) {
                case SQLITE_INTEGER: return .integer(sqlite3_column_int64(statement, column))
                case SQLITE_FLOAT: return .real(sqlite3_column_double(statement, column))
                case SQLITE_TEXT: return .text(sqlite3_column_text(statement, column).map { String(cString: $0) } ?? "")
                case SQLITE_BLOB:
                    let count = Int(sqlite3_column_bytes(statement, column))
                    return .blob(sqlite3_column_blob(statement, column).map { Data(bytes: $0, count: count) } ?? Data())
                default: return .null
                }
            })
        }
        return result
    }
}
