import CoreDataStoreKit

/// Mapping the derived schema onto an existing store's names (`SQLStoredSchema`).
///
/// Rules, applied after the names are derived with the store's own `Z_ENT` numbers and order:
/// - A table is `Z` + its root entity's uppercased name, or, when the file lacks it, `Z` + the name the root
///   has in the file's `Z_PRIMARYKEY` (an entity renamed by a migration keeps its row and table).
/// - Columns are mapped by family: a name without its collision suffix (`ZTITLE`, `ZTITLE1` and `ZTITLE2`
///   are one family) and, for a `Z<n>_<REL>` entity column, without its number. A family whose derived names
///   the file has, with the derived declared types, keeps them (the common case: every fixture store).
///   Otherwise the family's properties, in the order they claimed the name (Apple's rule: the first keeps it
///   unsuffixed, later ones get 1, 2, …), take the file's columns of the family in suffix order, each the
///   first left of its declared type, else the first left. A `Z_FOK_` column may also be named after the
///   ordered to-many instead of its inverse to-one.
/// - A join table is named after either side of its relationship (the side is chosen when the join tables
///   are built), with or without a suffix; its columns follow the same family rule within the table.
/// - Columns and tables of the file that the model does not need are ignored. What the model needs and the
///   file lacks keeps its derived name and is listed in `unmappedNames`.
extension SQLSchema {
    func adoptStoredNames(_ stored: SQLStoredSchema) {
        for table in orderedTables { adoptTableName(table, stored) }
        for table in orderedTables {
            guard let columns = stored.tables[table.name] else {
                unmappedNames.append("table \(table.name) for entity \(table.root.name ?? "")")
                continue
            }
            adoptColumnNames(table, columns)
        }
        adoptJoinTableNames(stored)
    }

    private func adoptTableName(_ table: Table, _ stored: SQLStoredSchema) {
        guard stored.tables[table.name] == nil else { return }
        let number = storedNumber(of: table.root)
        if let row = stored.entities.first(where: { $0.number == number }), stored.tables["Z" + Self.upper(row.name)] != nil {
            table.name = "Z" + Self.upper(row.name)
        }
    }

    /// Maps a table's columns family by family (see `family(of:)`). A family whose derived names the file has,
    /// with the derived types, keeps them. Otherwise its columns are paired, in the order they claimed their
    /// names (the derived suffix order: `ZTITLE`, `ZTITLE1`, …), with the file's columns of the family in
    /// suffix order, each taking the first one left of its declared type, else the first one left.
    private func adoptColumnNames(_ table: Table, _ fileColumns: [String: String]) {
        var families: [String: [Int]] = [:]
        for index in table.columns.indices { families[Self.family(of: table.columns[index].name), default: []].append(index) }
        for (family, indices) in families.sorted(by: { $0.key < $1.key }) {
            let claimOrder = indices.sorted { Self.suffixOrder(table.columns[$0].name, table.columns[$1].name) }
            if claimOrder.allSatisfy({ fileColumns[table.columns[$0].name] == table.columns[$0].type }) { continue }
            var candidates = fileColumns.keys.filter { Self.family(of: $0) == family }.sorted(by: Self.suffixOrder)
            if candidates.isEmpty, let alternative = orderColumnFamilyOfToMany(table, claimOrder) {
                candidates = fileColumns.keys.filter { Self.family(of: $0) == alternative }.sorted(by: Self.suffixOrder)
            }
            for index in claimOrder {
                let column = table.columns[index]
                guard let position = candidates.firstIndex(where: { fileColumns[$0] == column.type }) ?? candidates.indices.first else {
                    unmappedNames.append("column \(column.name) of table \(table.name) (\(column.purpose))")
                    continue
                }
                table.columns[index].name = candidates.remove(at: position)
            }
        }
    }

    /// For a family of one `Z_FOK_<TO-ONE>` column: `Z_FOK_` + the name of the ordered to-many it orders,
    /// the other name a store may give it.
    private func orderColumnFamilyOfToMany(_ table: Table, _ indices: [Int]) -> String? {
        guard indices.count == 1, let index = indices.first,
              let id = table.orderColumnByRelationship.first(where: { $0.value == index })?.key else { return nil }
        let toOne = Self.hierarchy(of: table.root).lazy.flatMap(\.declaredProperties)
            .compactMap { $0 as? NSRelationshipDescription }.first { ObjectIdentifier($0) == id }
        return toOne?.inverseRelationship.map { "Z_FOK_" + Self.upper($0.name) }
    }

    private func adoptJoinTableNames(_ stored: SQLStoredSchema) {
        var takenTables = Set(joinTables.map(\.name).filter { stored.tables[$0] != nil })
        for join in joinTables where stored.tables[join.name] == nil {
            let family = Self.family(of: join.name)
            let candidates = stored.tables.keys.filter { !takenTables.contains($0) && Self.family(of: $0) == family }
            guard let found = candidates.min(by: Self.suffixOrder) else {
                unmappedNames.append("join table \(join.name) for relationship \(join.relationship.name) of \(join.relationship.entity?.name ?? "")")
                continue
            }
            takenTables.insert(found)
            join.name = found
        }
        for join in joinTables {
            guard let columns = stored.tables[join.name] else { continue }
            let derived = [join.sourceColumn, join.destinationColumn]
            var taken = Set(derived.filter { columns[$0] != nil })
            func adopt(_ name: String, _ purpose: String) -> String {
                guard columns[name] == nil else { return name }
                let candidates = columns.keys.filter { !taken.contains($0) && Self.family(of: $0) == Self.family(of: name) }
                guard let found = candidates.min(by: Self.suffixOrder) else {
                    unmappedNames.append("column \(name) of join table \(join.name) (\(purpose))")
                    return name
                }
                taken.insert(found)
                return found
            }
            let relationship = "\(join.relationship.name) of \(join.relationship.entity?.name ?? "")"
            join.sourceColumn = adopt(join.sourceColumn, "the sources of relationship \(relationship)")
            join.destinationColumn = adopt(join.destinationColumn, "the destinations of relationship \(relationship)")
            if join.destinationOrderColumn != nil {
                join.destinationOrderColumn = adopt("Z_FOK_" + join.destinationColumn.dropFirst(2), "the order of relationship \(relationship)")
            }
            if join.sourceOrderColumn != nil, let inverse = join.inverse {
                join.sourceOrderColumn = adopt("Z_FOK_" + join.sourceColumn.dropFirst(2), "the order of relationship \(inverse.name)")
            }
        }
    }

    // MARK: Families of names

    /// A name without what a store may vary: its trailing digits (a collision suffix: `ZTITLE2` is `ZTITLE`),
    /// and the number of a `Z<n>_<REL>` entity column (`Z7_OWNER` is `Z#_OWNER`). No other column name has a
    /// digit after its leading `Z` (property names start with a letter), so the two cannot be confused.
    static func family(of name: String) -> String {
        var base = Substring(name)
        if base.hasPrefix("Z"), let underscore = base.firstIndex(of: "_") {
            let digits = base[base.index(after: base.startIndex)..<underscore]
            if !digits.isEmpty, digits.allSatisfy(\.isASCIIDigit) { base = "Z#" + base[underscore...] }
        }
        while let last = base.last, last.isASCIIDigit, base.count > 1 { base = base.dropLast() }
        return String(base)
    }

    /// Shorter names first, then by text: `ZTITLE`, `ZTITLE1`, `ZTITLE2`, …, `ZTITLE10`.
    static func suffixOrder(_ a: String, _ b: String) -> Bool { (a.count, a) < (b.count, b) }
}

private extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
