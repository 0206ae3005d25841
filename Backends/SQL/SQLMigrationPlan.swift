import CoreDataStoreKit

/// How the rows of a store saved with another model become rows of the new model's schema (Apple's inferred
/// mapping): which old entity each new entity continues (by `renamingIdentifier`, then by name), which old
/// column feeds each new column (`Z` + uppercased old name), how keys shift when hierarchies merge, and the
/// SQL that copies, repairs and checks the data, in the schema's dialect. Shared by the SQL stores: each reads
/// its old tables its own way (`SQLMigrationSourceReader`) and runs the statements in one transaction of its
/// own, with the new tables already created (`SQLSchema.createStatements`) and empty.
///
/// Guarantees:
/// - Built before anything is written, and it reads nothing: a change that cannot be inferred fails with the
///   store untouched.
/// - Keys are kept (`Z_PK`, `Z_OPT`, and `largestKeys` for `Z_MAX`), so object IDs stay valid, except where
///   rows of several old tables meet in one new table; `Z_ENT` follows the new model.
/// - Values are bound parameters (`SQLDialect.placeholder(_:for:type:)`); identifiers come from the schema
///   and the source (`SQLSchema.quote(_:)`), the qualifiers from the store.
public struct SQLMigrationPlan {
    /// One SQL statement with its values, bound to numbered parameters (`?1`, `$1::bigint`, …).
    public struct Statement {
        public var sql: String
        public var bindings: [SQLValue]
    }

    /// A required property that must have a value in every row once the data is copied.
    public struct RequiredCheck {
        public let entity: String
        public let property: String
        /// `SELECT COUNT(*)` of the rows without a value.
        public let statement: Statement
    }

    /// `INSERT … SELECT` statements, one per old table and new table pair and one per join table.
    public private(set) var copies: [Statement] = []
    /// Statements that clear references to rows that were not carried over and refresh `Z<n>_<REL>` columns;
    /// run after every copy.
    public private(set) var repairs: [Statement] = []
    /// Run after the repairs: each counts the rows that lack a required value; any such row fails the
    /// migration (134110, `CoreDataError.missingRequiredValue`).
    public private(set) var checks: [RequiredCheck] = []
    /// `Z_MAX` of each new root entity, by its `Z_ENT`.
    public private(set) var largestKeys: [Int32: Int64] = [:]

    let source: SQLMigrationSource
    let schema: SQLSchema
    /// The SQL qualifier of the new tables (`main`, `orders_migrating`) and of the old ones (`old`, `orders`).
    private let newQualifier: String, oldQualifier: String
    /// The old model's schema, for the store's entities, under the file's names (mapped as a store maps them
    /// when it opens: `SQLSchema(…, stored:)`), when the source knows the old model.
    let sourceSchema: SQLSchema?
    /// The old `Z_ENT` of each new entity that continues an old one.
    private(set) var oldNumbers: [ObjectIdentifier: Int64] = [:]
    /// The old join tables already given to a new join table, so none is copied twice.
    private(set) var claimedJoinTables: Set<String> = []
    /// What is added to an old key, by old table and new table ("old|new").
    private var offsets: [String: Int64] = [:]

    /// Plans the migration of `source` into `schema`. The statements write to the tables of `schema` under
    /// `newQualifier` and read the old ones under `oldQualifier` (each SQL as it is: a SQLite database name,
    /// a PostgreSQL schema name).
    /// - Throws: 134190 for a change that cannot be inferred (a column whose type the dialect cannot convert,
    ///   `SQLDialect.migratedColumn(_:from:to:)`; a relationship that moved between a foreign key and a join
    ///   table), 134110 for a store that cannot be read as expected.
    public init(source: SQLMigrationSource, schema: SQLSchema, newQualifier: String, oldQualifier: String) throws {
        self.source = source
        self.schema = schema
        self.newQualifier = newQualifier
        self.oldQualifier = oldQualifier
        let stored = SQLStoredSchema(entities: Array(source.entities.values), tables: source.columns)
        sourceSchema = source.model.map { model in
            SQLSchema(model: model, entities: model.entities.filter { source.entities[Int64($0.entityNumber)] != nil }, dialect: schema.dialect,
                      stored: stored)
        }
        mapEntities()
        try computeOffsets()
        for table in schema.orderedTables { try planRows(of: table) }
        for join in schema.joinTables { try planJoinRows(join) }
        planRepairsAndChecks()
    }

    // MARK: Entities and keys

    private mutating func mapEntities() {
        let entities = schema.orderedTables.flatMap { SQLSchema.hierarchy(of: $0.root) }
        var used = Set<Int64>()
        // Renamed entities first, so a new entity that takes a renamed entity's old name starts empty.
        for byRenaming in [true, false] {
            for entity in entities where oldNumbers[ObjectIdentifier(entity)] == nil {
                guard let name = byRenaming ? entity.renamingIdentifier : entity.name,
                      let number = source.numbersByName[name], !used.contains(number) else { continue }
                oldNumbers[ObjectIdentifier(entity)] = number
                used.insert(number)
            }
        }
    }

    /// Keys are kept, so object IDs stay valid; only when rows of several old tables meet in one new table
    /// are the later tables' keys shifted past the earlier ones'.
    private mutating func computeOffsets() throws {
        for table in schema.orderedTables {
            var sources: [String] = []
            for entity in SQLSchema.hierarchy(of: table.root) {
                if let old = oldTable(of: entity), !sources.contains(old) { sources.append(old) }
            }
            var next: Int64 = 0
            for old in sources {
                offsets[old + "|" + table.name] = next
                let (sum, overflow) = next.addingReportingOverflow(source.largestKey(in: old))
                guard !overflow else { throw CoreDataError.migrationFailed("the keys of table \(old) are out of range") }
                next = sum
            }
            largestKeys[table.root.entityNumber] = next
        }
    }

    /// For each new entity that takes an old entity's rows (matched by renaming identifier, then by name): the
    /// old `Z_ENT`, the new one, and what is added to the old keys.
    public var entityMapping: [(old: Int64, new: Int64, keyOffset: Int64)] {
        schema.orderedTables.flatMap { SQLSchema.hierarchy(of: $0.root) }.compactMap { entity in
            oldNumbers[ObjectIdentifier(entity)].map { ($0, Int64(entity.entityNumber), keyOffset(of: entity)) }
        }
    }

    func oldTable(of entity: NSEntityDescription) -> String? {
        oldNumbers[ObjectIdentifier(entity)].flatMap(source.table(of:))
    }

    /// What is added to the old keys of `entity`'s objects.
    private func keyOffset(of entity: NSEntityDescription) -> Int64 {
        guard let old = oldTable(of: entity), let table = schema.table(for: entity) else { return 0 }
        return offsets[old + "|" + table.name] ?? 0
    }

    /// The name a property had in the old model: its renaming identifier, else its name.
    static func oldName(_ property: NSPropertyDescription) -> String { property.renamingIdentifier ?? property.name }

    // MARK: Entity rows

    private mutating func planRows(of table: SQLSchema.Table) throws {
        var groups: [(old: String, pairs: [(old: Int64, new: NSEntityDescription)])] = []
        for entity in SQLSchema.hierarchy(of: table.root) {
            guard let number = oldNumbers[ObjectIdentifier(entity)], let old = source.table(of: number) else { continue }
            if let index = groups.firstIndex(where: { $0.old == old }) {
                groups[index].pairs.append((number, entity))
            } else {
                groups.append((old, [(number, entity)]))
            }
        }
        for group in groups { try planCopy(from: group.old, pairs: group.pairs, into: table) }
    }

    private mutating func planCopy(from old: String, pairs: [(old: Int64, new: NSEntityDescription)], into table: SQLSchema.Table) throws {
        for column in ["Z_PK", "Z_ENT", "Z_OPT"] where source.columnType(column, in: old) == nil {
            throw CoreDataError.migrationFailed("table \(old) has no \(column) column")
        }
        var sql = SQLBuilder(schema.dialect)
        let offset = offsets[old + "|" + table.name] ?? 0
        var names = ["Z_PK", "Z_ENT", "Z_OPT"]
        var values = ["o.Z_PK + \(sql.bind(.integer(offset)))",
                      "CASE o.Z_ENT " + pairs.map { "WHEN \(sql.bind(.integer($0.old))) THEN \(sql.bind(.integer(Int64($0.new.entityNumber))))" }
                          .joined(separator: " ") + " END",
                      "o.Z_OPT"]
        func add(_ column: String, _ expression: String, for having: [Int64]) {
            names.append(column)
            values.append(having.count == pairs.count ? expression : "CASE WHEN o.Z_ENT IN (\(sql.list(having))) THEN \(expression) END")
        }
        for entity in SQLSchema.hierarchy(of: table.root) {
            for property in entity.declaredProperties where !property.isTransient {
                if let composite = property as? NSCompositeAttributeDescription {
                    // Each leaf column is copied from the old table's column of the same name, when it has one.
                    let having = pairs.filter { $0.new.isKindOf(entity: entity) }.map(\.old)
                    guard !having.isEmpty else { continue }
                    for index in table.leafColumnsByComposite[ObjectIdentifier(composite)] ?? [] {
                        let column = table.columns[index]
                        guard let oldType = source.columnType(column.name, in: old) else { continue }
                        guard let read = schema.dialect.migratedColumn("o.\(q(column.name))", from: oldType, to: column.type) else {
                            throw CoreDataError.cannotInferMapping(entity: entity.name ?? "", property: composite.name,
                                                                   reason: "the column of \(column.purpose) changed from \(oldType) to \(column.type)")
                        }
                        add(column.name, read, for: having)
                    }
                    continue
                }
                let relationship = property as? NSRelationshipDescription
                guard relationship?.isToMany != true, let index = table.columnByProperty[ObjectIdentifier(property)] else { continue }
                let column = table.columns[index]
                let having = pairs.filter { $0.new.isKindOf(entity: entity) }.map(\.old)
                guard !having.isEmpty else { continue }
                let oldColumn = try sourceColumn(for: property, entity: entity, newColumn: column, in: old)
                var expression: String?
                if let oldColumn, let oldType = source.columnType(oldColumn, in: old) {
                    guard let read = schema.dialect.migratedColumn("o.\(q(oldColumn))", from: oldType, to: column.type) else {
                        throw CoreDataError.cannotInferMapping(entity: entity.name ?? "", property: property.name,
                                                               reason: "its column changed from \(oldType) to \(column.type)")
                    }
                    expression = read
                    if let destination = relationship?.destinationEntity, let destinationTable = schema.table(for: destination),
                       Set(offsets.filter { $0.key.hasSuffix("|" + destinationTable.name) }.values).count > 1 {
                        // The destination's table merges old tables whose keys moved by different amounts: one
                        // shift cannot repoint every reference, and a wrong one would point at other objects.
                        throw CoreDataError.cannotInferMapping(entity: entity.name ?? "", property: property.name,
                                                               reason: "its destinations now share a table made from several old tables, so its references cannot be kept")
                    }
                    if let destination = relationship?.destinationEntity, case let shift = keyOffset(of: destination), shift != 0 {
                        expression = "(o.\(q(oldColumn)) + \(sql.bind(.integer(shift))))"
                    }
                } else if let relationship {
                    try checkStorageKept(relationship, entity: entity)
                }
                if let attribute = property as? NSAttributeDescription, let defaultValue = attribute.defaultValue,
                   let value = schema.dialect.encode(defaultValue, as: attribute.attributeType,
                                                     externalStorage: attribute.allowsExternalBinaryDataStorage) {
                    // Added attributes start with the default; required ones get it in place of old nils.
                    if case .null = value {} else if expression == nil || !attribute.isOptional {
                        let type = attribute.attributeType
                        let stored = schema.dialect.storedValue(sql.bind(value, type: type), type: type)
                        expression = expression.map { "COALESCE(\($0), \(stored))" } ?? stored
                    }
                }
                guard let expression else { continue }
                add(column.name, expression, for: having)
                if let relationship, let orderIndex = table.orderColumnByRelationship[ObjectIdentifier(relationship)], let oldColumn {
                    let order = oldOrderColumn(for: relationship, entity: entity, keyColumn: oldColumn, in: old).map { "o.\(q($0))" }
                        ?? "CASE WHEN o.\(q(oldColumn)) IS NOT NULL THEN (ROW_NUMBER() OVER (PARTITION BY o.\(q(oldColumn)) ORDER BY o.Z_PK) + 1) * 1024 END"
                    add(table.columns[orderIndex].name, order, for: having)
                }
            }
        }
        let text = "INSERT INTO \(newQualifier).\(q(table.name)) (\(names.map(q).joined(separator: ", "))) SELECT \(values.joined(separator: ", ")) "
            + "FROM \(oldQualifier).\(q(old)) AS o WHERE o.Z_ENT IN (\(sql.list(pairs.map(\.old))))"
        copies.append(Statement(sql: text, bindings: sql.bindings))
    }

    // MARK: Join tables

    private mutating func planJoinRows(_ join: SQLSchema.JoinTable) throws {
        let relationship = join.relationship
        guard let entity = relationship.entity, let destination = relationship.destinationEntity,
              let sourceNumber = oldNumbers[ObjectIdentifier(entity)], let destinationNumber = oldNumbers[ObjectIdentifier(destination)] else { return }
        guard let rows = try oldJoinRows(of: join, sourceNumber: sourceNumber, destinationNumber: destinationNumber) else { return }
        let found: OldJoinTable
        switch rows {
        case .joinTable(let table): found = table
        case .foreignKey(let pairs): return planJoinRows(join, from: pairs, entity: entity, destination: destination)
        }
        claimedJoinTables.insert(found.name)
        var sql = SQLBuilder(schema.dialect)
        var names = [join.sourceColumn, join.destinationColumn]
        var values = ["j.\(q(found.sourceKeys)) + \(sql.bind(.integer(keyOffset(of: entity))))",
                      "j.\(q(found.destinationKeys)) + \(sql.bind(.integer(keyOffset(of: destination))))"]
        /// The old positions when the old store kept them, else positions numbered as Apple numbers them.
        func order(_ old: String?, of keys: String, within owners: String) -> String {
            old.map { "j.\(q($0))" } ?? "(ROW_NUMBER() OVER (PARTITION BY j.\(q(owners)) ORDER BY j.\(q(keys))) + 1) * 1024"
        }
        if let column = join.destinationOrderColumn {
            names.append(column)
            values.append(order(found.destinationOrder, of: found.destinationKeys, within: found.sourceKeys))
        }
        if let column = join.sourceOrderColumn {
            names.append(column)
            values.append(order(found.sourceOrder, of: found.sourceKeys, within: found.destinationKeys))
        }
        copies.append(Statement(sql: "INSERT INTO \(newQualifier).\(q(join.name)) (\(names.map(q).joined(separator: ", "))) SELECT \(values.joined(separator: ", ")) FROM \(oldQualifier).\(q(found.name)) AS j",
                                bindings: sql.bindings))
    }

    /// A join table's rows from the foreign key column of an old to-one (see `OldForeignKeyPairs`): one pair per
    /// holding row with a key, positions numbered as Apple numbers them when the new relationship is ordered.
    private mutating func planJoinRows(_ join: SQLSchema.JoinTable, from pairs: OldForeignKeyPairs, entity: NSEntityDescription,
                                       destination: NSEntityDescription) {
        guard !pairs.entityNumbers.isEmpty else { return }
        var sql = SQLBuilder(schema.dialect)
        let holder = "o.Z_PK", held = "o.\(q(pairs.foreignKey))"
        let (sources, destinations) = pairs.holdsSources ? (holder, held) : (held, holder)
        var names = [join.sourceColumn, join.destinationColumn]
        var values = ["\(sources) + \(sql.bind(.integer(keyOffset(of: entity))))", "\(destinations) + \(sql.bind(.integer(keyOffset(of: destination))))"]
        if let column = join.destinationOrderColumn {
            names.append(column)
            values.append("(ROW_NUMBER() OVER (PARTITION BY \(sources) ORDER BY \(destinations)) + 1) * 1024")
        }
        if let column = join.sourceOrderColumn {
            names.append(column)
            values.append("(ROW_NUMBER() OVER (PARTITION BY \(destinations) ORDER BY \(sources)) + 1) * 1024")
        }
        copies.append(Statement(sql: "INSERT INTO \(newQualifier).\(q(join.name)) (\(names.map(q).joined(separator: ", "))) SELECT \(values.joined(separator: ", ")) "
                                + "FROM \(oldQualifier).\(q(pairs.table)) AS o WHERE o.Z_ENT IN (\(sql.list(pairs.entityNumbers))) AND \(held) IS NOT NULL",
                                bindings: sql.bindings))
    }

    // MARK: Repairs and checks

    /// The `Z_ENT` numbers of an entity and its subentities.
    private static func numbers(of entity: NSEntityDescription) -> [Int64] {
        SQLSchema.hierarchy(of: entity).map { Int64($0.entityNumber) }
    }

    private mutating func planRepairsAndChecks() {
        for table in schema.orderedTables {
            for entity in SQLSchema.hierarchy(of: table.root) {
                for property in entity.declaredProperties where !property.isTransient {
                    guard let index = table.columnByProperty[ObjectIdentifier(property)] else { continue }
                    let column = q(table.columns[index].name)
                    if let relationship = property as? NSRelationshipDescription, !relationship.isToMany,
                       let destination = relationship.destinationEntity, let target = schema.table(for: destination) {
                        // References to rows that were not carried over (removed entities) are cleared.
                        var sql = SQLBuilder(schema.dialect)
                        repairs.append(Statement(sql: "UPDATE \(newQualifier).\(q(table.name)) SET \(column) = NULL WHERE \(column) IS NOT NULL AND \(column) NOT IN "
                                                 + "(SELECT Z_PK FROM \(newQualifier).\(q(target.name)) WHERE Z_ENT IN (\(sql.list(Self.numbers(of: destination)))))",
                                                 bindings: sql.bindings))
                        if let entityIndex = table.entityColumnByRelationship[ObjectIdentifier(relationship)] {
                            let entityColumn = q(table.columns[entityIndex].name)
                            repairs.append(Statement(sql: "UPDATE \(newQualifier).\(q(table.name)) SET \(entityColumn) = (SELECT d.Z_ENT FROM \(newQualifier).\(q(target.name)) AS d "
                                                     + "WHERE d.Z_PK = \(q(table.name)).\(column))", bindings: []))
                        }
                    }
                    guard !property.isOptional else { continue }
                    var sql = SQLBuilder(schema.dialect)
                    let count = "SELECT COUNT(*) FROM \(newQualifier).\(q(table.name)) WHERE Z_ENT IN (\(sql.list(Self.numbers(of: entity)))) AND \(column) IS NULL"
                    checks.append(RequiredCheck(entity: entity.name ?? "", property: property.name, statement: Statement(sql: count, bindings: sql.bindings)))
                }
            }
        }
        for join in schema.joinTables {
            guard let entity = join.relationship.entity, let destination = join.relationship.destinationEntity,
                  let owners = schema.table(for: entity), let targets = schema.table(for: destination) else { continue }
            var sql = SQLBuilder(schema.dialect)
            repairs.append(Statement(sql: "DELETE FROM \(newQualifier).\(q(join.name)) WHERE \(q(join.sourceColumn)) NOT IN (SELECT Z_PK FROM \(newQualifier).\(q(owners.name)) "
                                     + "WHERE Z_ENT IN (\(sql.list(Self.numbers(of: entity))))) OR \(q(join.destinationColumn)) NOT IN "
                                     + "(SELECT Z_PK FROM \(newQualifier).\(q(targets.name)) WHERE Z_ENT IN (\(sql.list(Self.numbers(of: destination)))))",
                                     bindings: sql.bindings))
        }
    }
}

/// SQL text with its values, each bound to a numbered parameter so text can be assembled in any order.
private struct SQLBuilder {
    let dialect: any SQLDialect
    private(set) var bindings: [SQLValue] = []

    init(_ dialect: any SQLDialect) { self.dialect = dialect }

    /// The parameter (`?n`, `$n::bigint`) that will carry `value`, encoded as `type` (keys and entity
    /// numbers: Integer 64).
    mutating func bind(_ value: SQLValue, type: NSAttributeType = .integer64AttributeType) -> String {
        bindings.append(value)
        return dialect.placeholder(bindings.count, for: value, type: type)
    }

    /// A comma-separated parameter list for `numbers`.
    mutating func list(_ numbers: [Int64]) -> String {
        numbers.map { bind(.integer($0)) }.joined(separator: ", ")
    }
}
