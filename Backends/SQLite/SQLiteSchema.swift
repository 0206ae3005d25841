import CoreDataStoreKit

/// Where a model's entities live in Apple's SQLite schema: one table per root entity (`Z<NAME>`), one column
/// per stored property, join tables for many-to-many and inverse-less to-many relationships, and the
/// indexes Apple creates.
///
/// Built once per store from the model, and deterministic: the same model always gives the same tables,
/// columns (names, types, order) and indexes, matching what Apple's Core Data writes for it
/// (`../shared/fixtures/APPLE_FORMATS.md`). Identifiers come from the model; they are emitted bare when they
/// are plain ASCII words (as Apple writes them; every generated name starts with `Z`, so none is an SQL
/// keyword) and double-quoted otherwise.
final class SQLiteSchema {
    /// One column of an entity table, after `Z_PK`, `Z_ENT`, `Z_OPT`.
    struct Column {
        var name: String
        var type: String
        /// Apple's column-order group: integers, then timestamps/floats/decimals, then text, then blobs.
        var rank: Int
    }

    /// How a to-many relationship is stored.
    enum ToManyStorage {
        /// Through the inverse to-one's foreign key in the destination table.
        case inverseForeignKey(inverse: NSRelationshipDescription)
        /// Through a join table; `ownerColumn` holds this side's keys, `destinationColumn` the other side's.
        case joinTable(JoinTable, ownerColumn: String, destinationColumn: String, orderColumn: String?)
    }

    /// A many-to-many (or inverse-less to-many) join table.
    final class JoinTable {
        let name: String
        /// The relationship the table is named after (source entity with the lower `Z_ENT`).
        let relationship: NSRelationshipDescription
        let inverse: NSRelationshipDescription?
        /// Holds the keys of `relationship`'s source objects.
        let sourceColumn: String
        /// Holds the keys of `relationship`'s destination objects.
        let destinationColumn: String
        /// Order of destinations within a source, when `relationship` is ordered.
        let destinationOrderColumn: String?
        /// Order of sources within a destination, when the inverse is ordered.
        let sourceOrderColumn: String?

        init(name: String, relationship: NSRelationshipDescription, inverse: NSRelationshipDescription?, sourceColumn: String,
             destinationColumn: String, destinationOrderColumn: String?, sourceOrderColumn: String?) {
            self.name = name
            self.relationship = relationship
            self.inverse = inverse
            self.sourceColumn = sourceColumn
            self.destinationColumn = destinationColumn
            self.destinationOrderColumn = destinationOrderColumn
            self.sourceOrderColumn = sourceOrderColumn
        }

        var createSQL: String {
            var columns = ["\(q(sourceColumn)) INTEGER", "\(q(destinationColumn)) INTEGER"]
            if let destinationOrderColumn { columns.append("\(q(destinationOrderColumn)) INTEGER") }
            if let sourceOrderColumn { columns.append("\(q(sourceOrderColumn)) INTEGER") }
            columns.append("PRIMARY KEY (\(q(sourceColumn)), \(q(destinationColumn)))")
            return "CREATE TABLE \(q(name)) ( \(columns.joined(separator: ", ")) )"
        }

        var indexSQL: String {
            "CREATE INDEX \(q(name + "_" + destinationColumn + "_INDEX")) ON \(q(name)) (\(q(destinationColumn)), \(q(sourceColumn)))"
        }
    }

    /// One root entity's table.
    final class Table {
        let root: NSEntityDescription
        let name: String
        var columns: [Column] = []
        /// Column index (into `columns`) of each stored attribute and to-one relationship.
        var columnByProperty: [ObjectIdentifier: Int] = [:]
        /// The `Z<n>_<REL>` column of a to-one whose destination has subentities.
        var entityColumnByRelationship: [ObjectIdentifier: Int] = [:]
        /// The `Z_FOK_<REL>` column of a to-one whose inverse is an ordered to-many.
        var orderColumnByRelationship: [ObjectIdentifier: Int] = [:]
        /// `CREATE INDEX` statements for this table.
        var indexes: [(name: String, sql: String)] = []
        /// Whether the table holds several entities (it has a `Z_ENT` index).
        var hasSubentities: Bool { !root.subentities.isEmpty }

        init(root: NSEntityDescription) {
            self.root = root
            name = "Z" + root.name.map(SQLiteSchema.upper).orEmpty
        }

        var createSQL: String {
            let parts = ["Z_PK INTEGER PRIMARY KEY", "Z_ENT INTEGER", "Z_OPT INTEGER"] + columns.map { "\(q($0.name)) \($0.type)" }
            return "CREATE TABLE \(q(name)) ( \(parts.joined(separator: ", ")) )"
        }

        /// The quoted column name of a property's column, or nil when the property has none.
        func column(for property: NSPropertyDescription) -> String? {
            columnByProperty[ObjectIdentifier(property)].map { q(columns[$0].name) }
        }
    }

    let model: NSManagedObjectModel
    /// Tables by root entity.
    private(set) var tables: [ObjectIdentifier: Table] = [:]
    /// Tables in root-entity `Z_ENT` order.
    private(set) var orderedTables: [Table] = []
    private(set) var joinTables: [JoinTable] = []
    private var toMany: [ObjectIdentifier: ToManyStorage] = [:]

    /// Builds the schema of `entities` (a configuration's, or the whole model).
    init(model: NSManagedObjectModel, entities: [NSEntityDescription]) {
        self.model = model
        let wanted = Set(entities.map { ObjectIdentifier($0.rootEntity) })
        for entity in model.entitiesInStoreOrder where entity.superentity == nil && wanted.contains(ObjectIdentifier(entity)) {
            let table = Table(root: entity)
            tables[ObjectIdentifier(entity)] = table
            orderedTables.append(table)
        }
        for table in orderedTables { buildColumns(table) }
        buildJoinTables()
        for table in orderedTables { buildIndexes(table) }
    }

    /// The table that holds an entity's rows.
    func table(for entity: NSEntityDescription) -> Table? { tables[ObjectIdentifier(entity.rootEntity)] }

    /// How a to-many relationship is stored, or nil for a transient one or one outside this store.
    func storage(of relationship: NSRelationshipDescription) -> ToManyStorage? { toMany[ObjectIdentifier(relationship)] }

    /// Every `CREATE` statement, tables first, in Apple's order.
    var createStatements: [String] {
        var statements: [String] = []
        for table in orderedTables {
            statements.append(table.createSQL)
            statements.append(contentsOf: table.indexes.map(\.sql))
        }
        for join in joinTables {
            statements.append(join.createSQL)
            statements.append(join.indexSQL)
        }
        return statements
    }

    // MARK: Building

    static func upper(_ name: String) -> String { name.uppercased() }

    /// The entities of a hierarchy, root first, in `Z_ENT` (pre-)order.
    static func hierarchy(of root: NSEntityDescription) -> [NSEntityDescription] {
        var result = [root]
        for sub in root.subentities.sorted(by: { $0.entityNumber < $1.entityNumber }) { result += hierarchy(of: sub) }
        return result
    }

    static func columnType(of type: NSAttributeType) -> (String, Int)? {
        switch type {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .booleanAttributeType: return ("INTEGER", 0)
        case .dateAttributeType: return ("TIMESTAMP", 1)
        case .doubleAttributeType, .floatAttributeType: return ("FLOAT", 1)
        case .decimalAttributeType: return ("DECIMAL", 1)
        case .stringAttributeType, .URIAttributeType, .objectIDAttributeType: return ("VARCHAR", 2)
        case .binaryDataAttributeType, .UUIDAttributeType, .transformableAttributeType: return ("BLOB", 3)
        default: return nil
        }
    }

    private func buildColumns(_ table: Table) {
        // Each column with the property (or role) it serves, in declaration order, then grouped by type.
        enum Role { case value(NSPropertyDescription), entity(NSRelationshipDescription), order(NSRelationshipDescription) }
        var pending: [(column: Column, role: Role)] = []
        for entity in Self.hierarchy(of: table.root) {
            for case let attribute as NSAttributeDescription in entity.properties where !attribute.isTransient {
                guard let (type, rank) = Self.columnType(of: attribute.attributeType) else { continue }
                pending.append((Column(name: "Z" + Self.upper(attribute.name), type: type, rank: rank), .value(attribute)))
            }
            for case let relationship as NSRelationshipDescription in entity.properties
            where !relationship.isTransient && !relationship.isToMany {
                pending.append((Column(name: "Z" + Self.upper(relationship.name), type: "INTEGER", rank: 0), .value(relationship)))
                if let destination = relationship.destinationEntity, !destination.subentities.isEmpty {
                    pending.append((Column(name: "Z\(destination.entityNumber)_" + Self.upper(relationship.name), type: "INTEGER", rank: 0), .entity(relationship)))
                }
                if let inverse = relationship.inverseRelationship, inverse.isToMany, inverse.isOrdered, !inverse.isTransient {
                    pending.append((Column(name: "Z_FOK_" + Self.upper(relationship.name), type: "INTEGER", rank: 0), .order(relationship)))
                }
            }
        }
        // Names that collide in the flattened hierarchy get numeric suffixes, as Apple's do (ZTITLE1, ZTITLE2).
        var counts: [String: Int] = ["Z_PK": 1, "Z_ENT": 1, "Z_OPT": 1]
        for item in pending { counts[item.column.name, default: 0] += 1 }
        var seen: [String: Int] = [:]
        for index in pending.indices where (counts[pending[index].column.name] ?? 0) > 1 {
            let base = pending[index].column.name
            seen[base, default: 0] += 1
            pending[index].column.name = base + String(seen[base] ?? 1)
        }
        let ordered = pending.enumerated().sorted { ($0.element.column.rank, $0.offset) < ($1.element.column.rank, $1.offset) }.map(\.element)
        for (index, item) in ordered.enumerated() {
            table.columns.append(item.column)
            switch item.role {
            case .value(let property): table.columnByProperty[ObjectIdentifier(property)] = index
            case .entity(let relationship): table.entityColumnByRelationship[ObjectIdentifier(relationship)] = index
            case .order(let relationship): table.orderColumnByRelationship[ObjectIdentifier(relationship)] = index
            }
        }
        for entity in Self.hierarchy(of: table.root) {
            for case let relationship as NSRelationshipDescription in entity.properties
            where relationship.isToMany && !relationship.isTransient {
                if let inverse = relationship.inverseRelationship, !inverse.isToMany, !inverse.isTransient {
                    toMany[ObjectIdentifier(relationship)] = .inverseForeignKey(inverse: inverse)
                }
            }
        }
    }

    private func buildJoinTables() {
        var usedNames: [String: Int] = [:]
        var done = Set<ObjectIdentifier>()
        for table in orderedTables {
            for entity in Self.hierarchy(of: table.root) {
                for case let relationship as NSRelationshipDescription in entity.properties
                where relationship.isToMany && !relationship.isTransient && !done.contains(ObjectIdentifier(relationship)) {
                    let inverse = relationship.inverseRelationship
                    guard inverse == nil || inverse?.isToMany == true else { continue }
                    guard let destination = relationship.destinationEntity, self.table(for: destination) != nil else { continue }
                    // The table is named after the side whose entity has the lower Z_ENT (then the lower name).
                    var owner = relationship
                    if let inverse, let inverseEntity = inverse.entity,
                       (inverseEntity.entityNumber, inverse.name) < (entity.entityNumber, relationship.name) {
                        owner = inverse
                    }
                    let other = owner === relationship ? inverse : relationship
                    done.insert(ObjectIdentifier(relationship))
                    if let inverse { done.insert(ObjectIdentifier(inverse)) }
                    guard let ownerEntity = owner.entity, let ownerDestination = owner.destinationEntity else { continue }
                    var name = "Z_\(ownerEntity.entityNumber)" + Self.upper(owner.name)
                    usedNames[name, default: 0] += 1
                    if let count = usedNames[name], count > 1 { name += String(count - 1) }
                    let destinationColumn = "Z_\(ownerDestination.entityNumber)" + Self.upper(owner.name)
                    var sourceColumn = other.map { "Z_\(ownerEntity.entityNumber)" + Self.upper($0.name) }
                        ?? "Z_\(ownerEntity.entityNumber)" + Self.upper(ownerEntity.name.orEmpty)
                    if sourceColumn == destinationColumn { sourceColumn += "1" }
                    let join = JoinTable(name: name, relationship: owner, inverse: other, sourceColumn: sourceColumn,
                                         destinationColumn: destinationColumn,
                                         destinationOrderColumn: owner.isOrdered ? "Z_FOK_" + destinationColumn.dropFirst(2) : nil,
                                         sourceOrderColumn: other?.isOrdered == true ? "Z_FOK_" + sourceColumn.dropFirst(2) : nil)
                    joinTables.append(join)
                    toMany[ObjectIdentifier(owner)] = .joinTable(join, ownerColumn: sourceColumn, destinationColumn: destinationColumn,
                                                                 orderColumn: join.destinationOrderColumn)
                    if let other {
                        toMany[ObjectIdentifier(other)] = .joinTable(join, ownerColumn: destinationColumn, destinationColumn: sourceColumn,
                                                                     orderColumn: join.sourceOrderColumn)
                    }
                }
            }
        }
    }

    private func buildIndexes(_ table: Table) {
        let tableName = table.name
        var indexes: [(String, String)] = []
        var seen = Set<String>()
        func add(_ name: String, _ sql: String) {
            if seen.insert(name).inserted { indexes.append((name, sql)) }
        }
        for entity in Self.hierarchy(of: table.root) {
            for case let relationship as NSRelationshipDescription in entity.properties where !relationship.isToMany {
                guard let column = table.columnByProperty[ObjectIdentifier(relationship)].map({ table.columns[$0].name }) else { continue }
                add("\(tableName)_\(column)_INDEX", "CREATE INDEX \(q("\(tableName)_\(column)_INDEX")) ON \(q(tableName)) (\(q(column)))")
            }
        }
        if table.hasSubentities {
            add("\(tableName)_Z_ENT_INDEX", "CREATE INDEX \(q("\(tableName)_Z_ENT_INDEX")) ON \(q(tableName)) (Z_ENT)")
        }
        for entity in Self.hierarchy(of: table.root) {
            for case let attribute as NSAttributeDescription in entity.properties where attribute.isIndexed && !attribute.isTransient {
                guard let column = table.columnByProperty[ObjectIdentifier(attribute)].map({ table.columns[$0].name }) else { continue }
                add("\(tableName)_\(column)_INDEX", "CREATE INDEX \(q("\(tableName)_\(column)_INDEX")) ON \(q(tableName)) (\(q(column)))")
            }
            let entityName = entity.name.orEmpty
            for index in entity.indexes {
                let columns = index.elements.compactMap { element -> String? in
                    let property = element.property ?? element.propertyName.flatMap { entity.propertiesByName[$0] }
                    guard let property, let column = table.column(for: property) else { return nil }
                    return "\(column) COLLATE BINARY \(element.isAscending ? "ASC" : "DESC")"
                }
                guard !columns.isEmpty else { continue }
                let name = "Z_\(entityName)_\(index.name)"
                add(name, "CREATE INDEX \(q(name)) ON \(q(tableName)) (\(columns.joined(separator: ", ")))")
            }
            for constraint in entity.uniquenessConstraints {
                let names = constraint.compactMap { $0 as? String }
                let columns = names.compactMap { entity.propertiesByName[$0].flatMap(table.column(for:)) }
                guard !columns.isEmpty, columns.count == names.count else { continue }
                let name = "Z_\(entityName)_UNIQUE_" + names.joined(separator: "_")
                add(name, "CREATE UNIQUE INDEX \(q(name)) ON \(q(tableName)) (\(columns.map { "\($0) COLLATE BINARY ASC" }.joined(separator: ", ")))")
            }
        }
        table.indexes = indexes
    }

}

/// An SQL identifier: bare when it is a plain ASCII word starting with `Z` (every name the schema makes
/// does, and no SQL keyword starts with Z), double-quoted with inner quotes doubled otherwise.
func q(_ identifier: String) -> String {
    let plain = identifier.hasPrefix("Z")
        && identifier.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 65 && $0 <= 90) || ($0 >= 97 && $0 <= 122) || $0 == 95 }
    return plain ? identifier : "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}

extension Optional where Wrapped == String {
    /// The string, or "" for nil.
    var orEmpty: String { self ?? "" }
}
