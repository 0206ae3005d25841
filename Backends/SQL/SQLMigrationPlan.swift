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

    private let source: SQLMigrationSource
    private let schema: SQLSchema
    /// The SQL qualifier of the new tables (`main`, `orders_migrating`) and of the old ones (`old`, `orders`).
    private let newQualifier: String, oldQualifier: String
    /// The old model's schema, for the store's entities, when the source knows the old model.
    private let sourceSchema: SQLSchema?
    /// The old `Z_ENT` of each new entity that continues an old one.
    private var oldNumbers: [ObjectIdentifier: Int64] = [:]
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
        sourceSchema = source.model.map { model in
            SQLSchema(model: model, entities: model.entities.filter { source.entities[Int64($0.entityNumber)] != nil }, dialect: schema.dialect)
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

    private func oldTable(of entity: NSEntityDescription) -> String? {
        oldNumbers[ObjectIdentifier(entity)].flatMap(source.table(of:))
    }

    /// What is added to the old keys of `entity`'s objects.
    private func keyOffset(of entity: NSEntityDescription) -> Int64 {
        guard let old = oldTable(of: entity), let table = schema.table(for: entity) else { return 0 }
        return offsets[old + "|" + table.name] ?? 0
    }

    private static func oldName(_ property: NSPropertyDescription) -> String { property.renamingIdentifier ?? property.name }

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
            for property in entity.properties where !property.isTransient {
                let relationship = property as? NSRelationshipDescription
                guard relationship?.isToMany != true, let index = table.columnByProperty[ObjectIdentifier(property)] else { continue }
                let column = table.columns[index]
                let having = pairs.filter { $0.new.isKindOf(entity: entity) }.map(\.old)
                guard !having.isEmpty else { continue }
                let oldColumn = try sourceColumn(for: property, entity: entity, newColumn: column.name, in: old)
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
                    let oldOrder = "Z_FOK_" + SQLSchema.upper(Self.oldName(relationship))
                    let order = source.columnType(oldOrder, in: old) != nil ? "o.\(q(oldOrder))"
                        : "CASE WHEN o.\(q(oldColumn)) IS NOT NULL THEN (ROW_NUMBER() OVER (PARTITION BY o.\(q(oldColumn)) ORDER BY o.Z_PK) + 1) * 1024 END"
                    add(table.columns[orderIndex].name, order, for: having)
                }
            }
        }
        let text = "INSERT INTO \(newQualifier).\(q(table.name)) (\(names.map(q).joined(separator: ", "))) SELECT \(values.joined(separator: ", ")) "
            + "FROM \(oldQualifier).\(q(old)) AS o WHERE o.Z_ENT IN (\(sql.list(pairs.map(\.old))))"
        copies.append(Statement(sql: text, bindings: sql.bindings))
    }

    /// The old column that holds a property's values: its old name's column, else its current name's.
    ///
    /// Sibling subentities with a property of the same name share a table through numbered columns
    /// (`ZTITLE`, `ZTITLE1`, …) whose numbers depend on the whole hierarchy; without the old model there is no
    /// telling which old column was whose, so such properties are refused (134190) rather than guessed.
    private func sourceColumn(for property: NSPropertyDescription, entity: NSEntityDescription, newColumn: String, in table: String) throws -> String? {
        // The old model's placement is used when the file has that column; a file that names it otherwise
        // (Apple's naming is not always predictable) falls back to finding it by name below.
        switch columnInSourceModel(for: property, entity: entity) {
        case .some(.none): return nil
        case .some(.some(let column)) where source.columnType(column, in: table) != nil: return column
        default: break
        }
        let names = [property.renamingIdentifier, property.name].compactMap { $0 }
        for name in names {
            let base = "Z" + SQLSchema.upper(name)
            let numbered = (source.columns[table] ?? [:]).keys.contains { column in
                column.count > base.count && column.hasPrefix(base) && column.dropFirst(base.count).allSatisfy(\.isNumber)
            }
            let newSuffix = newColumn.hasPrefix(base) ? newColumn.dropFirst(base.count) : ""
            if numbered || (!newSuffix.isEmpty && newSuffix.allSatisfy(\.isNumber)) {
                throw CoreDataError.cannotInferMapping(entity: entity.name ?? "", property: property.name,
                                                       reason: "several entities of its table have a property named \(name), stored in numbered columns that cannot be told apart without the old model")
            }
        }
        var candidates: [String] = []
        if let old = property.renamingIdentifier, old != property.name { candidates.append("Z" + SQLSchema.upper(old)) }
        candidates += [newColumn, "Z" + SQLSchema.upper(property.name)]
        return candidates.first { source.columnType($0, in: table) != nil }
    }

    /// The old column of a property as the old model places it: `.some(column)`, or `.some(nil)` when the
    /// old entity has no stored property of the old name (the property is new); nil when the old model or the
    /// old entity is not known, so the column must be found by name.
    private func columnInSourceModel(for property: NSPropertyDescription, entity: NSEntityDescription) -> String?? {
        guard let sourceSchema, let number = oldNumbers[ObjectIdentifier(entity)], let oldEntity = source.modelEntities[number],
              let table = sourceSchema.table(for: oldEntity) else { return nil }
        let oldProperty = property.renamingIdentifier.flatMap { oldEntity.propertiesByName[$0] } ?? oldEntity.propertiesByName[property.name]
        guard let oldProperty, let index = table.columnByProperty[ObjectIdentifier(oldProperty)] else { return .some(nil) }
        return .some(table.columns[index].name)
    }

    /// A to-one without an old column: refuses it when the old store kept it in a join table (a to-many
    /// turned to-one), which the inferred mapping does not convert.
    private func checkStorageKept(_ relationship: NSRelationshipDescription, entity: NSEntityDescription) throws {
        var joinNames: [String] = []
        if let number = oldNumbers[ObjectIdentifier(entity)] { joinNames.append("Z_\(number)" + SQLSchema.upper(Self.oldName(relationship))) }
        if let inverse = relationship.inverseRelationship, let inverseEntity = inverse.entity, let number = oldNumbers[ObjectIdentifier(inverseEntity)] {
            joinNames.append("Z_\(number)" + SQLSchema.upper(Self.oldName(inverse)))
        }
        if let name = joinNames.first(where: { source.columns[$0] != nil }) {
            throw CoreDataError.cannotInferMapping(entity: entity.name ?? "", property: relationship.name,
                                                   reason: "it was kept in join table \(name) and is now a to-one")
        }
    }

    // MARK: Join tables

    private mutating func planJoinRows(_ join: SQLSchema.JoinTable) throws {
        let relationship = join.relationship
        guard let entity = relationship.entity, let destination = relationship.destinationEntity,
              let sourceNumber = oldNumbers[ObjectIdentifier(entity)], let destinationNumber = oldNumbers[ObjectIdentifier(destination)] else { return }
        let name = SQLSchema.upper(Self.oldName(relationship))
        let inverseName = join.inverse.map { SQLSchema.upper(Self.oldName($0)) }
        // The old table is named after this relationship, or after its inverse (then its columns are swapped).
        var found: (table: String, sourceKeys: String, destinationKeys: String)?
        if source.columns["Z_\(sourceNumber)" + name] != nil {
            let keys = "Z_\(destinationNumber)" + name
            var owners = "Z_\(sourceNumber)" + (inverseName ?? SQLSchema.upper(source.entities[sourceNumber]?.name ?? ""))
            if owners == keys { owners += "1" }
            found = ("Z_\(sourceNumber)" + name, owners, keys)
        } else if let inverseName, source.columns["Z_\(destinationNumber)" + inverseName] != nil {
            let keys = "Z_\(sourceNumber)" + inverseName
            var owners = "Z_\(destinationNumber)" + name
            if owners == keys { owners += "1" }
            found = ("Z_\(destinationNumber)" + inverseName, keys, owners)
        }
        guard let found else {
            let foreignKey = source.table(of: sourceNumber).flatMap { source.columnType("Z" + name, in: $0) }
            let inverseForeignKey = inverseName.flatMap { inverseName in source.table(of: destinationNumber).flatMap { source.columnType("Z" + inverseName, in: $0) } }
            if foreignKey != nil || inverseForeignKey != nil {
                throw CoreDataError.cannotInferMapping(entity: entity.name ?? "", property: relationship.name,
                                                       reason: "it was kept in a foreign key column and now needs join table \(join.name)")
            }
            return
        }
        for column in [found.sourceKeys, found.destinationKeys] where source.columnType(column, in: found.table) == nil {
            throw CoreDataError.migrationFailed("join table \(found.table) has no column \(column)")
        }
        var sql = SQLBuilder(schema.dialect)
        var names = [join.sourceColumn, join.destinationColumn]
        var values = ["j.\(q(found.sourceKeys)) + \(sql.bind(.integer(keyOffset(of: entity))))",
                      "j.\(q(found.destinationKeys)) + \(sql.bind(.integer(keyOffset(of: destination))))"]
        func order(of keys: String, within owners: String) -> String {
            let old = "Z_FOK_" + keys.dropFirst(2)
            return source.columnType(old, in: found.table) != nil ? "j.\(q(old))"
                : "(ROW_NUMBER() OVER (PARTITION BY j.\(q(owners)) ORDER BY j.\(q(keys))) + 1) * 1024"
        }
        if let column = join.destinationOrderColumn {
            names.append(column)
            values.append(order(of: found.destinationKeys, within: found.sourceKeys))
        }
        if let column = join.sourceOrderColumn {
            names.append(column)
            values.append(order(of: found.sourceKeys, within: found.destinationKeys))
        }
        copies.append(Statement(sql: "INSERT INTO \(newQualifier).\(q(join.name)) (\(names.map(q).joined(separator: ", "))) SELECT \(values.joined(separator: ", ")) FROM \(oldQualifier).\(q(found.table)) AS j",
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
                for property in entity.properties where !property.isTransient {
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
