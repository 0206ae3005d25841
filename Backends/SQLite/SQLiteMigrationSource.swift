import CoreDataSQL
import CoreDataStoreKit

/// What an existing store file holds, read without the model it was saved with: its entities
/// (`Z_PRIMARYKEY`), the tables and their declared column types (`PRAGMA table_info`), the largest keys, and
/// the metadata; and, when the new model was loaded from a versioned package (`.xcdatamodeld`, `.momd`), the
/// package's version whose hashes the store records (`model`), as Apple finds a migration's source model.
/// Lightweight migration maps this onto the new model by name, and by the old model's columns when it has it.
struct SQLiteMigrationSource {
    /// One row of `Z_PRIMARYKEY`.
    struct Entity {
        let number: Int64
        let name: String
        let superNumber: Int64
        let max: Int64
    }

    /// Entities by `Z_ENT` (persistent-history entities, numbered from 16000, left out).
    private(set) var entities: [Int64: Entity] = [:]
    private(set) var numbersByName: [String: Int64] = [:]
    /// Declared column types (uppercased, without a size) by column name, per table.
    private(set) var columns: [String: [String: String]] = [:]
    /// `MAX(Z_PK)` of each entity table.
    private(set) var largestStoredKeys: [String: Int64] = [:]
    /// The metadata in `Z_METADATA`.
    let metadata: [String: Any]
    /// The model the store was saved with: the version of `package` whose entity hashes the metadata records
    /// (`NSManagedObjectModel.version(ofModelAt:matchingStoreMetadata:)`), when there is one and it numbers
    /// the store's entities as `Z_PRIMARYKEY` does (under their names, or under the renaming identifiers that
    /// Apple's migrations leave in `Z_NAME`); nil otherwise.
    private(set) var model: NSManagedObjectModel?
    /// That model's entities by `Z_ENT`.
    private(set) var modelEntities: [Int64: NSEntityDescription] = [:]
    /// The name of that version (`SampleModel2`).
    private(set) var modelVersionName: String?

    /// Reads the store through `connection` (a read-only one); `package` is the versioned package the new
    /// model came from, searched for the old model.
    /// - Throws: 134000/259 as `SQLiteStore.readMetadata`, 134180 for SQLite failures; 259/260 when a version
    ///   of `package` cannot be read.
    init(_ connection: SQLiteConnection, url: URL, package: URL? = nil) throws {
        metadata = try SQLiteStore.readMetadata(connection, url: url)
        let rows = try connection.query("SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY", cached: false) {
            Entity(number: $0.int64(at: 0), name: $0.string(at: 1).orEmpty, superNumber: $0.int64(at: 2), max: $0.int64(at: 3))
        }
        for entity in rows where entity.number > 0 && entity.number < 16_000 && !entity.name.isEmpty {
            entities[entity.number] = entity
            numbersByName[entity.name] = entity.number
        }
        let tables = try connection.query("SELECT name FROM sqlite_master WHERE type = 'table'", cached: false) { $0.string(at: 0).orEmpty }
        for table in tables {
            let info = try connection.query("SELECT name, type FROM pragma_table_info(?)", [.text(table)], cached: false) {
                ($0.string(at: 0).orEmpty, Self.normalizedType($0.string(at: 1).orEmpty))
            }
            columns[table] = Dictionary(info, uniquingKeysWith: { first, _ in first })
        }
        for entity in entities.values {
            guard let table = table(of: entity.number), largestStoredKeys[table] == nil, columns[table]?["Z_PK"] != nil else { continue }
            largestStoredKeys[table] = try connection.query("SELECT IFNULL(MAX(Z_PK), 0) FROM \(q(table))", cached: false) { $0.int64(at: 0) }.first ?? 0
        }
        if let package, let version = try NSManagedObjectModel.version(ofModelAt: package, matchingStoreMetadata: metadata) {
            let byNumber = Dictionary(version.model.entities.map { (Int64($0.entityNumber), $0) }, uniquingKeysWith: { first, _ in first })
            let numbered = entities.values.allSatisfy { stored in
                byNumber[stored.number].map { $0.name == stored.name || $0.renamingIdentifier == stored.name } ?? false
            }
            if numbered {
                model = version.model
                modelEntities = byNumber
                modelVersionName = version.name
            }
        }
    }

    /// A declared type as the schema writes it: `varchar(255)` → `VARCHAR`.
    static func normalizedType(_ declared: String) -> String {
        let base = declared.split(separator: "(", maxSplits: 1).first.map(String.init) ?? declared
        return base.trimmingCharacters(in: .whitespaces).uppercased()
    }

    /// The root of an entity's hierarchy (following `Z_SUPER`, at most as many steps as there are entities).
    func root(of number: Int64) -> Entity? {
        guard var entity = entities[number] else { return nil }
        for _ in 0..<entities.count {
            guard entity.superNumber != 0, let parent = entities[entity.superNumber] else { return entity }
            entity = parent
        }
        return nil
    }

    /// The table that holds an entity's rows (`Z` + its root's uppercased name), when the file has it.
    func table(of number: Int64) -> String? {
        guard let root = root(of: number) else { return nil }
        let name = "Z" + SQLSchema.upper(root.name)
        return columns[name] == nil ? nil : name
    }

    /// The declared type of a column, or nil when the table has no such column.
    func columnType(_ column: String, in table: String) -> String? { columns[table]?[column] }

    /// The largest key an entity table has handed out: its largest `Z_PK`, or the largest `Z_MAX` of the
    /// entities stored in it, whichever is larger.
    func largestKey(in table: String) -> Int64 {
        let recorded = entities.values.filter { self.table(of: $0.number) == table }.map(\.max).max() ?? 0
        return max(largestStoredKeys[table] ?? 0, recorded)
    }
}
