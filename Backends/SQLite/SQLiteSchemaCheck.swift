import CoreDataSQL
import CoreDataStoreKit

/// Checks an existing store's schema against the model, after its version hashes (which say the store was
/// written for this model, when it records them) and for stores that record none.
enum SQLiteSchemaCheck {
    /// Passes when every entity of the model has its `Z_ENT` in `Z_PRIMARYKEY`, the store has no entities
    /// the model lacks (persistent-history entities, numbered from 16000, are ignored), and every table,
    /// column and join table the model needs exists. Extra columns are allowed. A `Z_PRIMARYKEY` row may name
    /// an entity by its renaming identifier: Apple's lightweight migration renames an entity without
    /// changing its row there (SampleModel_V2 keeps `ExpensiveSportCar` for the renamed `LuxuryCar`).
    /// - Throws: 134100 naming the first difference.
    static func check(_ connection: SQLiteConnection, schema: SQLSchema, model: NSManagedObjectModel, url: URL) throws {
        let stored = try connection.query("SELECT Z_ENT, Z_NAME FROM Z_PRIMARYKEY") { ($0.int64(at: 0), $0.string(at: 1).orEmpty) }
        var names: [Int64: String] = [:]
        for (number, name) in stored { names[number] = name }
        let renamed = Dictionary(model.entities.compactMap { entity in entity.renamingIdentifier.map { ($0, entity) } },
                                 uniquingKeysWith: { first, _ in first })
        func isNamed(_ name: String, _ entity: NSEntityDescription) -> Bool {
            name == entity.name || (name == entity.renamingIdentifier && model.entitiesByName[name] == nil)
        }
        for (number, name) in stored where number < 16_000 && model.entitiesByName[name] == nil && renamed[name] == nil {
            throw CoreDataError.incompatibleModel(url, reason: "the store has entity \(name) (Z_ENT \(number)), which the model lacks")
        }
        for table in schema.orderedTables {
            for entity in SQLSchema.hierarchy(of: table.root) {
                guard let name = names[Int64(entity.entityNumber)] else {
                    throw CoreDataError.incompatibleModel(url, reason: "the store has no entity \(entity.name.orEmpty)")
                }
                guard isNamed(name, entity) else {
                    throw CoreDataError.incompatibleModel(url, reason: "the store numbers entity \(name) as \(entity.entityNumber), where the model has \(entity.name.orEmpty)")
                }
            }
            let columns = Set(try connection.columns(of: table.name))
            guard !columns.isEmpty else {
                throw CoreDataError.incompatibleModel(url, reason: "the store has no table \(table.name) for entity \(table.root.name.orEmpty)")
            }
            for column in ["Z_PK", "Z_ENT", "Z_OPT"] + table.columns.map(\.name) where !columns.contains(column) {
                throw CoreDataError.incompatibleModel(url, reason: "table \(table.name) has no column \(column)")
            }
        }
        for join in schema.joinTables {
            let columns = Set(try connection.columns(of: join.name))
            for column in [join.sourceColumn, join.destinationColumn] + [join.destinationOrderColumn, join.sourceOrderColumn].compactMap({ $0 })
            where !columns.contains(column) {
                throw CoreDataError.incompatibleModel(url, reason: "the store has no join table \(join.name) with column \(column)")
            }
        }
    }
}
