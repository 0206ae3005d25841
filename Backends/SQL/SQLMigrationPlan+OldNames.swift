import CoreDataStoreKit

/// Where the old store keeps what a new property continues: the column of an attribute or to-one, the
/// positions of an ordered to-many, the join table of a many-to-many and its columns, all under the names the
/// old file has, read as a store reads them when it opens (`SQLSchema+StoredNames.swift`), never assumed.
///
/// - With the old model (a version of the new model's package), the old model's schema mapped onto the file's
///   names (`sourceSchema`) places every old property exactly.
/// - Otherwise, and when the file names something differently from the old model, a name is found by family
///   (`SQLSchema.family(of:)`: the same name with any collision suffix, as Apple adds them): the old name
///   itself, else the one member of its family that fits (for columns: the only one, or the only one of the
///   property's column type among the properties claiming the family; for join tables: the only one with a
///   column of each side's family). A table named after either side of the relationship is looked for.
///   Names that end in a digit are matched exactly only, since a suffix cannot be told from the name.
/// - What the old store kept and cannot be mapped is an error naming it, never skipped: 134190
///   (`NSInferredMappingModelError`) when the names leave the choice open or the storage changed kind (a
///   to-one that becomes one side of a many-to-many moves from its foreign key column into the join table),
///   134110 (`NSMigrationError`) for a join table of the relationship's name without the columns it must have,
///   or one the old model names that the file lacks under every name the rules allow.
extension SQLMigrationPlan {
    /// An old join table of a new relationship (`JoinTable.relationship`), with its columns as the file
    /// names them.
    struct OldJoinTable {
        let name: String
        /// The keys of the relationship's source objects, and of its destinations.
        let sourceKeys: String, destinationKeys: String
        /// The old positions of destinations within a source, and of sources within a destination, when the
        /// old store kept them.
        let destinationOrder: String?, sourceOrder: String?
    }

    /// The rows of an old to-one that a many-to-many now keeps in a join table: each row of `table` of the
    /// holding entities (`entityNumbers`, old numbers) whose `foreignKey` is not NULL is one pair of the
    /// relationship (Apple's lightweight migration turns a to-one into a to-many).
    struct OldForeignKeyPairs {
        let table: String
        let foreignKey: String
        let entityNumbers: [Int64]
        /// Whether the holding rows are the relationship's sources (it was their to-one), else its destinations
        /// (the inverse was theirs).
        let holdsSources: Bool
    }

    /// Where the old store keeps the rows of a new join table.
    enum OldJoinRows {
        case joinTable(OldJoinTable)
        case foreignKey(OldForeignKeyPairs)
    }

    /// The names a join table and its key columns have in the old store before any collision suffix (Apple's
    /// rule, with the old entity numbers and old property names): the table `Z_<source><REL>` or
    /// `Z_<destination><INVERSE>`; the destinations' keys `Z_<destination><REL>`, the sources' keys
    /// `Z_<source><INVERSE>` (`Z_<source><ENTITY>` without an inverse).
    private struct JoinNames {
        let tables: [String]
        let destinationKeys: String, sourceKeys: String
    }

    private func joinNames(_ relationship: NSRelationshipDescription, inverse: NSRelationshipDescription?,
                           sourceNumber: Int64, destinationNumber: Int64) -> JoinNames {
        let name = SQLSchema.upper(Self.oldName(relationship))
        let inverseName = inverse.map { SQLSchema.upper(Self.oldName($0)) }
        return JoinNames(tables: ["Z_\(sourceNumber)" + name] + (inverseName.map { ["Z_\(destinationNumber)" + $0] } ?? []),
                         destinationKeys: "Z_\(destinationNumber)" + name,
                         sourceKeys: "Z_\(sourceNumber)" + (inverseName ?? SQLSchema.upper(source.entities[sourceNumber]?.name ?? "")))
    }

    // MARK: Columns of entity tables

    /// The old column that holds a property's values, or nil when the old table has none (a new property).
    /// - Throws: 134190 when the old table has several columns of the property's name family and neither the
    ///   old model nor the column types tell which one was the property's.
    func sourceColumn(for property: NSPropertyDescription, entity: NSEntityDescription, newColumn: SQLSchema.Column, in table: String) throws -> String? {
        // The old model's placement is used when the file has that column; a file that names it otherwise
        // falls back to finding it by name below.
        switch columnInSourceModel(for: property, entity: entity) {
        case .some(.none): return nil
        case .some(.some(let column)) where source.columnType(column, in: table) != nil: return column
        default: break
        }
        var names: [String] = []
        for name in [property.renamingIdentifier, property.name].compactMap({ $0 }) where !names.contains(name) { names.append(name) }
        for name in names {
            let base = "Z" + SQLSchema.upper(name)
            let members = columnFamily(base, in: table)
            guard !members.isEmpty else { continue }
            let claimants = columnTypesOfProperties(named: base, readingFrom: table)
            if members.count == 1 && claimants.count <= 1 { return members[0] }
            let sameType = members.filter { source.columnType($0, in: table) == newColumn.type }
            if sameType.count == 1 && claimants.filter({ $0 == newColumn.type }).count == 1 { return sameType[0] }
            throw CoreDataError.cannotInferMapping(entity: entity.name ?? "", property: property.name,
                                                   reason: "several entities of its table have a property named \(name), stored in numbered columns "
                                                       + "(\(members.joined(separator: ", "))) that cannot be told apart without the old model")
        }
        return nil
    }

    /// The columns of `table` named `base` or `base` with a collision suffix (`ZTITLE`, `ZTITLE1`), shortest
    /// first; only `base` itself when `base` ends in a digit.
    private func columnFamily(_ base: String, in table: String) -> [String] {
        let columns = source.columns[table] ?? [:]
        guard SQLSchema.family(of: base) == base else { return columns[base] == nil ? [] : [base] }
        return columns.keys.filter { SQLSchema.family(of: $0) == base }.sorted(by: SQLSchema.suffixOrder)
    }

    /// The new column types of the properties, of entities whose rows come from old table `table`, that may
    /// have been stored in the old column `base` (their renaming identifier or name gives it).
    private func columnTypesOfProperties(named base: String, readingFrom table: String) -> [String] {
        var types: [String] = []
        for newTable in schema.orderedTables {
            for entity in SQLSchema.hierarchy(of: newTable.root) where oldTable(of: entity) == table {
                for property in entity.declaredProperties where !property.isTransient {
                    let oldNames = [property.renamingIdentifier, property.name].compactMap { $0 }.map { "Z" + SQLSchema.upper($0) }
                    guard oldNames.contains(base), let index = newTable.columnByProperty[ObjectIdentifier(property)] else { continue }
                    types.append(newTable.columns[index].type)
                }
            }
        }
        return types
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

    /// The old positions of an ordered to-many kept beside its inverse to-one's key column `keyColumn`
    /// (`Z_FOK_<TO-ONE>`, or `Z_FOK_<TO-MANY>` as some stores name it), or nil when the old store kept none.
    func oldOrderColumn(for relationship: NSRelationshipDescription, entity: NSEntityDescription, keyColumn: String, in table: String) -> String? {
        var candidates: [String] = []
        if let sourceSchema, let number = oldNumbers[ObjectIdentifier(entity)], let oldEntity = source.modelEntities[number],
           let oldTable = sourceSchema.table(for: oldEntity), let oldRelationship = oldEntity.relationshipsByName[Self.oldName(relationship)],
           let index = oldTable.orderColumnByRelationship[ObjectIdentifier(oldRelationship)] {
            candidates.append(oldTable.columns[index].name)
        }
        candidates.append("Z_FOK_" + keyColumn.dropFirst())
        candidates.append("Z_FOK_" + SQLSchema.upper(Self.oldName(relationship)))
        if let inverse = relationship.inverseRelationship { candidates.append("Z_FOK_" + SQLSchema.upper(Self.oldName(inverse))) }
        return candidates.first { source.columnType($0, in: table) != nil }
    }

    /// A to-one without an old column: refuses it when the old store kept it in a join table (a to-many
    /// turned to-one), which the inferred mapping does not convert.
    func checkStorageKept(_ relationship: NSRelationshipDescription, entity: NSEntityDescription) throws {
        guard let sourceNumber = oldNumbers[ObjectIdentifier(entity)], let destination = relationship.destinationEntity,
              let destinationNumber = oldNumbers[ObjectIdentifier(destination)] else { return }
        let names = joinNames(relationship, inverse: relationship.inverseRelationship, sourceNumber: sourceNumber, destinationNumber: destinationNumber)
        let reserved = reservedJoinTableNames(except: nil)
        if let table = joinTableCandidates(names, reserved: reserved).first(where: { joinColumns(in: $0, names) != nil }) {
            throw CoreDataError.cannotInferMapping(entity: entity.name ?? "", property: relationship.name,
                                                   reason: "it was kept in join table \(table) and is now a to-one")
        }
    }

    // MARK: Join tables

    /// Where the old store keeps the rows `join` continues: an old join table, or the foreign key column of a
    /// to-one that is now one side of a many-to-many; nil when it has none (the relationship is new, or one of
    /// its entities is).
    /// - Throws: 134190 when the relationship was kept in a foreign key the file does not have, or when several old
    ///   tables or columns could hold it; 134110 when a table of its name lacks the key columns, or the old model
    ///   names a join table the file does not have under any name the rules allow.
    func oldJoinRows(of join: SQLSchema.JoinTable, sourceNumber: Int64, destinationNumber: Int64) throws -> OldJoinRows? {
        let relationship = join.relationship
        let expected: String?
        switch try joinTableInSourceModel(join, sourceNumber: sourceNumber, destinationNumber: destinationNumber) {
        case .found(let table): return .joinTable(table)
        case .keptInForeignKey:
            guard let pairs = try oldForeignKeyPairs(join, sourceNumber: sourceNumber, destinationNumber: destinationNumber) else {
                throw CoreDataError.cannotInferMapping(entity: relationship.entity?.name ?? "", property: relationship.name,
                                                       reason: "the old model kept it in a foreign key column, which the old store does not have")
            }
            return .foreignKey(pairs)
        case .absent: return nil
        case .missing(let name): expected = name
        case .unknown: expected = nil
        }
        let names = joinNames(relationship, inverse: join.inverse, sourceNumber: sourceNumber, destinationNumber: destinationNumber)
        let candidates = joinTableCandidates(names, reserved: reservedJoinTableNames(except: join))
        let found = candidates.compactMap { table in
            joinColumns(in: table, names).map { OldJoinTable(name: table, sourceKeys: $0.sourceKeys, destinationKeys: $0.destinationKeys,
                                                             destinationOrder: $0.destinationOrder, sourceOrder: $0.sourceOrder) }
        }
        let owner = "relationship \(relationship.name) of \(relationship.entity?.name ?? "")"
        if found.count > 1 {
            throw CoreDataError.cannotInferMapping(entity: relationship.entity?.name ?? "", property: relationship.name,
                                                   reason: "its rows could be those of any of the old join tables \(found.map(\.name).joined(separator: ", "))")
        }
        if let only = found.first { return .joinTable(only) }
        if let table = candidates.first {
            throw CoreDataError.migrationFailed("the old join table \(table), which holds \(owner), has no columns \(names.sourceKeys) and "
                                                + "\(names.destinationKeys) under any collision suffix")
        }
        if let expected {
            throw CoreDataError.migrationFailed("the old store has no \(expected) for \(owner) under any name Apple's rules give")
        }
        return try oldForeignKeyPairs(join, sourceNumber: sourceNumber, destinationNumber: destinationNumber).map { .foreignKey($0) }
    }

    /// The old tables that may be `names`' join table: a table of the exact name (the relationship's own
    /// side first) when there is one; otherwise the tables of those names' families (another collision
    /// suffix), shortest name first. Tables in `reserved` or already claimed are left out.
    private func joinTableCandidates(_ names: JoinNames, reserved: Set<String>) -> [String] {
        let available = { (table: String) in !reserved.contains(table) && !claimedJoinTables.contains(table) }
        if let exact = names.tables.first(where: { source.columns[$0] != nil && available($0) }) { return [exact] }
        let families = Set(names.tables.filter { SQLSchema.family(of: $0) == $0 })
        return source.columns.keys.filter { families.contains(SQLSchema.family(of: $0)) && available($0) }.sorted(by: SQLSchema.suffixOrder)
    }

    /// The exact old names of the join tables of the new schema's relationships other than `join`'s, which
    /// belong to them and are no other relationship's suffixed name.
    private func reservedJoinTableNames(except join: SQLSchema.JoinTable?) -> Set<String> {
        var reserved = Set<String>()
        for other in schema.joinTables where other !== join {
            guard let entity = other.relationship.entity, let destination = other.relationship.destinationEntity,
                  let sourceNumber = oldNumbers[ObjectIdentifier(entity)], let destinationNumber = oldNumbers[ObjectIdentifier(destination)] else { continue }
            let names = joinNames(other.relationship, inverse: other.inverse, sourceNumber: sourceNumber, destinationNumber: destinationNumber)
            reserved.formUnion(names.tables.filter { source.columns[$0] != nil })
        }
        return reserved
    }

    /// The key and order columns of old table `table` for `names`: each key column under its name, else the
    /// one column of its family (a relationship that is its own inverse has both in one family, destinations
    /// first, as Apple suffixes them); nil when a key column is missing or the family leaves the choice open.
    private func joinColumns(in table: String, _ names: JoinNames)
        -> (sourceKeys: String, destinationKeys: String, destinationOrder: String?, sourceOrder: String?)? {
        let columns = source.columns[table] ?? [:]
        let oneFamily = names.destinationKeys == names.sourceKeys
        var taken = Set<String>()
        func pick(_ wanted: String, base: String) -> String? {
            if columns[wanted] != nil, !taken.contains(wanted) {
                taken.insert(wanted)
                return wanted
            }
            guard SQLSchema.family(of: base) == base else { return nil }
            let members = columns.keys.filter { !$0.hasPrefix("Z_FOK_") && SQLSchema.family(of: $0) == base && !taken.contains($0) }
                .sorted(by: SQLSchema.suffixOrder)
            guard let first = members.first, members.count == 1 || oneFamily else { return nil }
            taken.insert(first)
            return first
        }
        guard let destinationKeys = pick(names.destinationKeys, base: names.destinationKeys),
              let sourceKeys = pick(oneFamily ? names.sourceKeys + "1" : names.sourceKeys, base: names.sourceKeys) else { return nil }
        func order(of keys: String) -> String? {
            let name = "Z_FOK_" + keys.dropFirst(2)
            return columns[name] == nil ? nil : name
        }
        return (sourceKeys, destinationKeys, order(of: destinationKeys), order(of: sourceKeys))
    }

    /// The foreign key column of the old store that held a relationship with no old join table: the old to-one
    /// of the relationship's own side (a to-one, or a to-many through its inverse's) in its entity's old table,
    /// else the inverse's; nil when neither side's table has one (the relationship is new).
    /// - Throws: 134190 when a side's table has several key columns of the relationship's name family.
    private func oldForeignKeyPairs(_ join: SQLSchema.JoinTable, sourceNumber: Int64, destinationNumber: Int64) throws -> OldForeignKeyPairs? {
        let relationship = join.relationship
        let sides = [(Self.oldName(relationship), sourceNumber, relationship.entity, true)]
            + (join.inverse.map { [(Self.oldName($0), destinationNumber, relationship.destinationEntity, false)] } ?? [])
        for (name, number, holder, holdsSources) in sides {
            guard let table = source.table(of: number), let holder else { continue }
            let base = "Z" + SQLSchema.upper(name)
            let keyColumns = columnFamily(base, in: table).filter { $0 == base || source.columnType($0, in: table) == schema.dialect.keyColumnType }
            if keyColumns.count > 1 {
                throw CoreDataError.cannotInferMapping(entity: relationship.entity?.name ?? "", property: relationship.name,
                                                       reason: "its old values could be those of any of the columns \(keyColumns.sorted().joined(separator: ", ")) of \(table)")
            }
            guard let column = keyColumns.first else { continue }
            let numbers = SQLSchema.hierarchy(of: holder).compactMap { oldNumbers[ObjectIdentifier($0)] }
            return OldForeignKeyPairs(table: table, foreignKey: column, entityNumbers: numbers, holdsSources: holdsSources)
        }
        return nil
    }

    /// What the old model says of a join table's old storage.
    private enum OldModelPlacement {
        /// No old model, or it lacks one of the entities: search by name.
        case unknown
        /// Neither side existed in the old model (or it was transient): the relationship is new.
        case absent
        /// The old model's join table, as the file names it.
        case found(OldJoinTable)
        /// The old model kept the relationship in a foreign key column (a to-one side, now to-many).
        case keptInForeignKey
        /// The old model kept it in this join table, which the file lacks under the old model's names.
        case missing(String)
    }

    /// The old join table as the old model places it: the storage (`sourceSchema.storage(of:)`) of the old
    /// relationship named by the new one's renaming identifier or name, or of its inverse's;
    /// `keptInForeignKey` when the old model kept it in a foreign key.
    private func joinTableInSourceModel(_ join: SQLSchema.JoinTable, sourceNumber: Int64, destinationNumber: Int64) throws -> OldModelPlacement {
        guard let sourceSchema, let oldEntity = source.modelEntities[sourceNumber],
              let oldDestination = source.modelEntities[destinationNumber] else { return .unknown }
        let relationship = join.relationship
        let sides: [(old: NSRelationshipDescription?, isInverse: Bool)] = [
            (oldEntity.relationshipsByName[Self.oldName(relationship)], false),
            (join.inverse.flatMap { oldDestination.relationshipsByName[Self.oldName($0)] }, true),
        ]
        var missing: String?
        for case let (old?, isInverse) in sides where !old.isTransient {
            let storage = sourceSchema.storage(of: old)
            guard old.isToMany, case .joinTable(let table, let owners, let destinations, _)? = storage else {
                if storage == nil && old.isToMany { continue }
                return .keptInForeignKey
            }
            let columns = source.columns[table.name] ?? [:]
            guard columns[owners] != nil, columns[destinations] != nil else {
                missing = missing ?? "join table \(table.name)"
                continue
            }
            // The old side's own order columns: of its destinations within a source, and of its sources.
            let ordered = table.relationship === old ? (table.destinationOrderColumn, table.sourceOrderColumn)
                                                     : (table.sourceOrderColumn, table.destinationOrderColumn)
            let ownDestinations = ordered.0.flatMap { columns[$0] == nil ? nil : $0 }
            let ownSources = ordered.1.flatMap { columns[$0] == nil ? nil : $0 }
            // When the old side is the inverse, its sources are the relationship's destinations.
            return .found(isInverse
                ? OldJoinTable(name: table.name, sourceKeys: destinations, destinationKeys: owners, destinationOrder: ownSources, sourceOrder: ownDestinations)
                : OldJoinTable(name: table.name, sourceKeys: owners, destinationKeys: destinations, destinationOrder: ownDestinations, sourceOrder: ownSources))
        }
        return missing.map { .missing($0) } ?? .absent
    }
}
