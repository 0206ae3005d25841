import CoreDataStoreKit

/// Where a model's entities live in Apple's table layout: one table per root entity (`Z<NAME>`), one column
/// per stored property, join tables for many-to-many and inverse-less to-many relationships, and the
/// indexes Apple creates.
///
/// Built once per store. For a new store every name and entity number is derived from the model, and
/// deterministically: the same model and dialect always give the same tables, columns (names, types, order)
/// and indexes. With `SQLiteDialect` that is what Apple's Core Data writes for the model
/// (`../shared/fixtures/APPLE_FORMATS.md`); another dialect changes only the type names and index collations
/// (`SQLDialect.columnType(of:)`, `keyColumnType`, `primaryKeyColumnType`, `indexKey(_:type:ascending:)`),
/// never a name or the column order. For an existing store (`stored`), entity numbers come from its
/// `Z_PRIMARYKEY` and table, column and join-table names from its tables (`SQLSchema+StoredNames.swift`);
/// what cannot be mapped is listed in `unmappedNames`. Identifiers are written by `quote(_:)`.
public final class SQLSchema {
    /// One column of an entity table, after `Z_PK`, `Z_ENT`, `Z_OPT`.
    public struct Column {
        /// The column's name, unquoted (`ZNAME`, `ZTITLE1`, `Z2_OWNER`, `Z_FOK_BOOKS`).
        public internal(set) var name: String
        /// The column's type in `CREATE TABLE`, from the dialect.
        public internal(set) var type: String
        /// Apple's column-order group (`SQLSchema.rank(of:)`): integers, then timestamps and floats, decimals,
        /// text, UUIDs, other blobs.
        public internal(set) var rank: Int
        /// What the column holds, for messages (`attribute title of Book`).
        public internal(set) var purpose: String = ""
    }

    /// How a to-many relationship is stored.
    public enum ToManyStorage {
        /// Through the inverse to-one's foreign key in the destination table.
        case inverseForeignKey(inverse: NSRelationshipDescription)
        /// Through a join table; `ownerColumn` holds this side's keys, `destinationColumn` the other side's.
        case joinTable(JoinTable, ownerColumn: String, destinationColumn: String, orderColumn: String?)
    }

    /// A many-to-many (or inverse-less to-many) join table.
    public final class JoinTable {
        /// The table's name, unquoted (`Z_<n><REL>`).
        public internal(set) var name: String
        /// The relationship the table is named after (source entity with the lower `Z_ENT`).
        public let relationship: NSRelationshipDescription
        /// `relationship`'s inverse (a to-many), or nil when it has none.
        public let inverse: NSRelationshipDescription?
        /// Holds the keys of `relationship`'s source objects.
        public internal(set) var sourceColumn: String
        /// Holds the keys of `relationship`'s destination objects.
        public internal(set) var destinationColumn: String
        /// Order of destinations within a source, when `relationship` is ordered.
        public internal(set) var destinationOrderColumn: String?
        /// Order of sources within a destination, when the inverse is ordered.
        public internal(set) var sourceOrderColumn: String?

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

        /// `CREATE TABLE`, with the dialect's key column type.
        func createSQL(_ dialect: any SQLDialect) -> String {
            let integer = dialect.keyColumnType
            var columns = ["\(q(sourceColumn)) \(integer)", "\(q(destinationColumn)) \(integer)"]
            if let destinationOrderColumn { columns.append("\(q(destinationOrderColumn)) \(integer)") }
            if let sourceOrderColumn { columns.append("\(q(sourceOrderColumn)) \(integer)") }
            columns.append("PRIMARY KEY (\(q(sourceColumn)), \(q(destinationColumn)))")
            return "CREATE TABLE \(q(name)) ( \(columns.joined(separator: ", ")) )"
        }

        /// The index on the reverse pair of columns.
        var indexSQL: String {
            "CREATE INDEX \(q(name + "_" + destinationColumn + "_INDEX")) ON \(q(name)) (\(q(destinationColumn)), \(q(sourceColumn)))"
        }
    }

    /// One root entity's table.
    public final class Table {
        /// The root entity of the hierarchy whose rows the table holds.
        public let root: NSEntityDescription
        /// The table's name, unquoted (`Z` + the root entity's uppercased name, or the store's own name).
        public internal(set) var name: String
        /// The columns after `Z_PK`, `Z_ENT`, `Z_OPT`, in Apple's order.
        public internal(set) var columns: [Column] = []
        /// Column index (into `columns`) of each stored attribute and to-one relationship.
        public internal(set) var columnByProperty: [ObjectIdentifier: Int] = [:]
        /// The columns (indexes into `columns`) of each stored composite attribute's leaves, in
        /// `CompositeAttributeValue.leaves(of:)` order.
        public internal(set) var leafColumnsByComposite: [ObjectIdentifier: [Int]] = [:]
        /// The `Z<n>_<REL>` column of a to-one whose destination has subentities.
        public internal(set) var entityColumnByRelationship: [ObjectIdentifier: Int] = [:]
        /// The `Z_FOK_<REL>` column of a to-one whose inverse is an ordered to-many.
        public internal(set) var orderColumnByRelationship: [ObjectIdentifier: Int] = [:]
        /// `CREATE INDEX` statements for this table.
        public internal(set) var indexes: [(name: String, sql: String)] = []
        /// Whether the table holds several entities (it has a `Z_ENT` index).
        public var hasSubentities: Bool { !root.subentities.isEmpty }

        init(root: NSEntityDescription) {
            self.root = root
            name = "Z" + SQLSchema.upper(root.name ?? "")
        }

        /// `CREATE TABLE`, with the dialect's key column types.
        func createSQL(_ dialect: any SQLDialect) -> String {
            let keys = ["Z_PK \(dialect.primaryKeyColumnType)", "Z_ENT \(dialect.keyColumnType)", "Z_OPT \(dialect.keyColumnType)"]
            let parts = keys + columns.map { "\(q($0.name)) \($0.type)" }
            return "CREATE TABLE \(q(name)) ( \(parts.joined(separator: ", ")) )"
        }

        /// The quoted column name of a property's column, or nil when the property has none (a composite has
        /// one per leaf: `column(forLeaf:of:)`).
        public func column(for property: NSPropertyDescription) -> String? {
            columnByProperty[ObjectIdentifier(property)].map { q(columns[$0].name) }
        }

        /// The quoted column of the leaf at `path` (element names below the composite) of a stored composite,
        /// with the leaf's type; nil when the path names no leaf.
        public func column(forLeaf path: some Collection<String>, of composite: NSCompositeAttributeDescription) -> (name: String, type: NSAttributeType)? {
            guard let indexes = leafColumnsByComposite[ObjectIdentifier(composite)] else { return nil }
            let wanted = Array(path)
            for (leaf, index) in zip(CompositeAttributeValue.leaves(of: composite), indexes) where leaf.path == wanted {
                return (q(columns[index].name), leaf.attribute.attributeType)
            }
            return nil
        }

        /// The quoted column and attribute type a key of a uniqueness constraint or fetch index names in
        /// `entity`: a stored attribute or to-one (`name`), or a composite's leaf (`location.latitude`).
        func column(forKey key: String, in entity: NSEntityDescription) -> (name: String, type: NSAttributeType?)? {
            let parts = key.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            guard let property = entity.propertiesByName[parts[0]] else { return nil }
            if parts.count > 1 {
                guard let composite = property as? NSCompositeAttributeDescription,
                      let leaf = column(forLeaf: parts.dropFirst(), of: composite) else { return nil }
                return (leaf.name, leaf.type)
            }
            return column(for: property).map { ($0, (property as? NSAttributeDescription)?.attributeType) }
        }
    }

    /// The model whose entities the tables hold.
    public let model: NSManagedObjectModel
    /// How the tables and the SQL compiled against them are spelled.
    public let dialect: any SQLDialect
    /// Tables by root entity.
    private var tables: [ObjectIdentifier: Table] = [:]
    /// Tables in root-entity `Z_ENT` order.
    public private(set) var orderedTables: [Table] = []
    /// Join tables, in the order they are created.
    public private(set) var joinTables: [JoinTable] = []
    private var toMany: [ObjectIdentifier: ToManyStorage] = [:]
    /// The existing store's names, when the schema was built for one.
    public let stored: SQLStoredSchema?
    /// The order in which properties claim columns (`SQLColumnOrder`).
    public let columnOrder: SQLColumnOrder
    /// Each entity's `Z_ENT` in the store: the model's `entityNumber` for a new store, the number in the
    /// file's `Z_PRIMARYKEY` for an existing one.
    private var storedNumbers: [ObjectIdentifier: Int64] = [:]
    /// The inverse of `storedNumbers`: model entity numbers by the store's `Z_ENT`.
    private var modelNumbers: [Int64: Int32] = [:]
    /// For an existing store: what the model needs that the file does not have under any name the rules
    /// allow (a table, column or join table), each as a phrase naming it; empty for a new store.
    public internal(set) var unmappedNames: [String] = []

    /// Builds the schema of `entities` (a configuration's, or the whole model), spelled in `dialect`: derived
    /// from the model when `stored` is nil (a new store), else mapped onto the existing store's names and
    /// entity numbers (see `SQLStoredSchema`). `columnOrder` is the order in which properties claim columns
    /// (names with collision suffixes, and the order within a type); stores use the current one, `.byName`.
    public init(model: NSManagedObjectModel, entities: [NSEntityDescription], dialect: any SQLDialect, stored: SQLStoredSchema? = nil,
                columnOrder: SQLColumnOrder = .byName) {
        self.model = model
        self.dialect = dialect
        self.stored = stored
        self.columnOrder = columnOrder
        numberEntities()
        let wanted = Set(entities.map { ObjectIdentifier($0.rootEntity) })
        let roots = model.entitiesInStoreOrder.filter { $0.superentity == nil && wanted.contains(ObjectIdentifier($0)) }
        for entity in roots.sorted(by: { storedNumber(of: $0) < storedNumber(of: $1) }) {
            let table = Table(root: entity)
            tables[ObjectIdentifier(entity)] = table
            orderedTables.append(table)
        }
        for table in orderedTables { buildColumns(table) }
        buildJoinTables()
        if let stored { adoptStoredNames(stored) }
        registerJoinTables()
        for table in orderedTables { buildIndexes(table) }
    }

    /// The entity's `Z_ENT` in the store (see `storedNumbers`).
    public func storedNumber(of entity: NSEntityDescription) -> Int64 {
        storedNumbers[ObjectIdentifier(entity)] ?? Int64(entity.entityNumber)
    }

    /// The model's `entityNumber` of the entity the store numbers `number`, or 0 (no entity) when the store
    /// has no such entity or the model lacks it. Keys handed to the coordinator carry model numbers.
    public func modelNumber(forStored number: Int64) -> Int32 { modelNumbers[number] ?? 0 }

    /// The store's `Z_ENT` of the entity the model numbers `number` (a key's `entityNumber`).
    public func storedNumber(forModel number: Int32) -> Int64 {
        model.entity(withNumber: number).map { storedNumber(of: $0) } ?? Int64(number)
    }

    /// The `Z_ENT` numbers of an entity and its subentities in the store, ascending.
    public func storedNumbers(ofHierarchy entity: NSEntityDescription) -> [Int64] {
        Self.hierarchy(of: entity).map { storedNumber(of: $0) }.sorted()
    }

    /// The entities of a hierarchy, root first, in the store's `Z_ENT` (pre-)order.
    func storedHierarchy(of root: NSEntityDescription) -> [NSEntityDescription] {
        var result = [root]
        for sub in root.subentities.sorted(by: { storedNumber(of: $0) < storedNumber(of: $1) }) { result += storedHierarchy(of: sub) }
        return result
    }

    /// Numbers every entity as the store does: the model's numbers for a new store; for an existing one its
    /// `Z_PRIMARYKEY` row's (found by name, or renaming identifier), and numbers past the file's largest for
    /// entities it lacks (such a store fails `SQLiteSchemaCheck`, but the numbers stay distinct).
    private func numberEntities() {
        let entities = model.entitiesInStoreOrder
        guard let stored else {
            for entity in entities { storedNumbers[ObjectIdentifier(entity)] = Int64(entity.entityNumber) }
            modelNumbers = Dictionary(entities.map { (Int64($0.entityNumber), $0.entityNumber) }, uniquingKeysWith: { first, _ in first })
            return
        }
        let rows = stored.rows(for: entities)
        var next = (stored.entities.map(\.number).max() ?? 0) + 1
        for entity in entities {
            let number: Int64
            if let row = rows[ObjectIdentifier(entity)], modelNumbers[row.number] == nil {
                number = row.number
            } else {
                number = next
                next += 1
            }
            storedNumbers[ObjectIdentifier(entity)] = number
            modelNumbers[number] = entity.entityNumber
        }
    }

    /// The table that holds an entity's rows.
    public func table(for entity: NSEntityDescription) -> Table? { tables[ObjectIdentifier(entity.rootEntity)] }

    /// Whether a relationship of the model (not transient) leads into `table` or out of one of its entities: a
    /// batch delete of its rows then has foreign keys to clear, join rows to remove or rules to follow, and needs
    /// the rows' keys first.
    public func isReferenced(_ table: Table) -> Bool {
        for entity in model.entitiesInStoreOrder {
            for case let relationship as NSRelationshipDescription in entity.properties where !relationship.isTransient {
                if relationship.destinationEntity?.rootEntity === table.root || entity.rootEntity === table.root { return true }
            }
        }
        return false
    }

    /// How a to-many relationship is stored, or nil for a transient one or one outside this store.
    public func storage(of relationship: NSRelationshipDescription) -> ToManyStorage? { toMany[ObjectIdentifier(relationship)] }

    /// Every `CREATE` statement of the entity and join tables and their indexes, in Apple's order: each
    /// entity table followed by its indexes, then each join table followed by its index. (The store's own
    /// tables, such as `Z_PRIMARYKEY` and `Z_METADATA`, are the store's to create.)
    public var createStatements: [String] {
        var statements: [String] = []
        for table in orderedTables {
            statements.append(table.createSQL(dialect))
            statements.append(contentsOf: table.indexes.map(\.sql))
        }
        for join in joinTables {
            statements.append(join.createSQL(dialect))
            statements.append(join.indexSQL)
        }
        return statements
    }

    // MARK: Building

    /// A model name as it appears in table and column names: uppercased (`Z` + `upper("title")` is `ZTITLE`).
    public static func upper(_ name: String) -> String { name.uppercased() }

    /// The entities of a hierarchy, root first, in `Z_ENT` (pre-)order.
    public static func hierarchy(of root: NSEntityDescription) -> [NSEntityDescription] {
        var result = [root]
        for sub in root.subentities.sorted(by: { $0.entityNumber < $1.entityNumber }) { result += hierarchy(of: sub) }
        return result
    }

    /// Apple's column-order group of attributes of `type`, or nil for a type that has no column: integers and
    /// Booleans 0; dates and floating-point numbers 1; decimals 2; text 3; UUIDs 4; other blobs (binary data,
    /// transformable) 5. The groups follow the declared column types (`INTEGER`, `TIMESTAMP`/`FLOAT`, `DECIMAL`,
    /// `VARCHAR`, `BLOB`); within them, Apple's stores put a date before a decimal and a UUID before a
    /// transformable whatever the declaration order (SampleModel2's `Book`, see SQLiteStore.md "Column order").
    static func rank(of type: NSAttributeType) -> Int? {
        switch type {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .booleanAttributeType: return 0
        case .dateAttributeType, .doubleAttributeType, .floatAttributeType: return 1
        case .decimalAttributeType: return 2
        case .stringAttributeType, .URIAttributeType, .objectIDAttributeType: return 3
        case .UUIDAttributeType: return 4
        case .binaryDataAttributeType, .transformableAttributeType: return 5
        default: return nil
        }
    }

    /// What a column of an entity table serves.
    private enum ColumnRole {
        case value(NSPropertyDescription), entity(NSRelationshipDescription), order(NSRelationshipDescription)
        case leaf(NSCompositeAttributeDescription, Int)
    }

    /// The columns of an entity's own stored attributes, in `columnOrder`: one per attribute, one per leaf of
    /// a composite (`Z<COMPOSITE>_<ELEMENT>`, nested `Z<A>_<B>_<C>`, see SQLiteStore.md) in its place.
    private func attributeColumns(of entity: NSEntityDescription) -> [(column: Column, role: ColumnRole)] {
        let of = " of \(entity.name ?? "")"
        var columns: [(column: Column, role: ColumnRole)] = []
        for attribute in columnOrder.attributes(of: entity) {
            if let composite = attribute as? NSCompositeAttributeDescription {
                for (number, leaf) in CompositeAttributeValue.leaves(of: composite).enumerated() {
                    guard let rank = Self.rank(of: leaf.attribute.attributeType) else { continue }
                    let name = "Z" + Self.upper(composite.name) + "_" + leaf.path.map(Self.upper).joined(separator: "_")
                    columns.append((Column(name: name, type: dialect.columnType(of: leaf.attribute.attributeType), rank: rank,
                                           purpose: "element \(composite.name).\(leaf.dottedPath)" + of), .leaf(composite, number)))
                }
                continue
            }
            guard let rank = Self.rank(of: attribute.attributeType) else { continue }
            columns.append((Column(name: "Z" + Self.upper(attribute.name), type: dialect.columnType(of: attribute.attributeType), rank: rank,
                                   purpose: "attribute \(attribute.name)" + of), .value(attribute)))
        }
        return columns
    }

    /// The columns of an entity's own stored to-one relationships, in `columnOrder`: each foreign key, then
    /// `Z<destZ_ENT>_<REL>` when the destination has subentities.
    private func toOneColumns(of entity: NSEntityDescription) -> [(column: Column, role: ColumnRole)] {
        let of = " of \(entity.name ?? "")"
        let key = dialect.keyColumnType
        var columns: [(column: Column, role: ColumnRole)] = []
        for relationship in columnOrder.relationships(of: entity) where !relationship.isToMany {
            let name = Self.upper(relationship.name)
            columns.append((Column(name: "Z" + name, type: key, rank: 0, purpose: "relationship \(relationship.name)" + of), .value(relationship)))
            if let destination = relationship.destinationEntity, !destination.subentities.isEmpty {
                columns.append((Column(name: "Z\(storedNumber(of: destination))_" + name, type: key, rank: 0,
                                       purpose: "the destination entity of relationship \(relationship.name)" + of), .entity(relationship)))
            }
        }
        return columns
    }

    /// The `Z_FOK_<REL>` columns of an entity's own stored to-one relationships whose inverse is an ordered
    /// to-many, in `columnOrder`. (Apple lists several of them in a hash table's order, not reproduced:
    /// SQLiteStore.md "Column order".)
    private func orderColumns(of entity: NSEntityDescription) -> [(column: Column, role: ColumnRole)] {
        let of = " of \(entity.name ?? "")"
        return columnOrder.relationships(of: entity).compactMap { relationship in
            guard !relationship.isToMany, let inverse = relationship.inverseRelationship,
                  inverse.isToMany, inverse.isOrdered, !inverse.isTransient else { return nil }
            return (Column(name: "Z_FOK_" + Self.upper(relationship.name), type: dialect.keyColumnType, rank: 0,
                           purpose: "the order of ordered relationship \(inverse.name) through \(relationship.name)" + of), .order(relationship))
        }
    }

    private func buildColumns(_ table: Table) {
        // Each column with the property (or role) it serves, in the order Apple creates them (SQLColumnOrder),
        // then grouped by type with a stable sort.
        var pending: [(column: Column, role: ColumnRole)] = []
        for entity in storedHierarchy(of: table.root) {
            pending += attributeColumns(of: entity)
            pending += toOneColumns(of: entity)
        }
        // Apple adds the order columns of to-ones once every entity's properties have columns
        // (-[NSSQLEntity _generateInverseRelationshipsAndMore]).
        for entity in storedHierarchy(of: table.root) { pending += orderColumns(of: entity) }
        // Names that collide in the flattened hierarchy: the first property to claim a name keeps it, later
        // ones get numeric suffixes, as Apple's do (ZTITLE, ZTITLE1, ZTITLE2).
        var used: Set<String> = ["Z_PK", "Z_ENT", "Z_OPT"]
        var lastSuffix: [String: Int] = [:]
        for index in pending.indices {
            let base = pending[index].column.name
            guard !used.insert(base).inserted else { continue }
            var suffix = lastSuffix[base, default: 0] + 1
            while used.contains(base + String(suffix)) { suffix += 1 }
            lastSuffix[base] = suffix
            pending[index].column.name = base + String(suffix)
            used.insert(base + String(suffix))
        }
        var leafColumns: [ObjectIdentifier: [(Int, Int)]] = [:]
        let ordered = pending.enumerated().sorted { ($0.element.column.rank, $0.offset) < ($1.element.column.rank, $1.offset) }.map(\.element)
        for (index, item) in ordered.enumerated() {
            table.columns.append(item.column)
            switch item.role {
            case .value(let property): table.columnByProperty[ObjectIdentifier(property)] = index
            case .entity(let relationship): table.entityColumnByRelationship[ObjectIdentifier(relationship)] = index
            case .order(let relationship): table.orderColumnByRelationship[ObjectIdentifier(relationship)] = index
            case .leaf(let composite, let number): leafColumns[ObjectIdentifier(composite), default: []].append((number, index))
            }
        }
        for (composite, columns) in leafColumns { table.leafColumnsByComposite[composite] = columns.sorted { $0.0 < $1.0 }.map(\.1) }
        for entity in storedHierarchy(of: table.root) {
            for case let relationship as NSRelationshipDescription in entity.declaredProperties
            where relationship.isToMany && !relationship.isTransient {
                if let inverse = relationship.inverseRelationship, !inverse.isToMany, !inverse.isTransient {
                    toMany[ObjectIdentifier(relationship)] = .inverseForeignKey(inverse: inverse)
                }
            }
        }
    }

    /// One join table per many-to-many pair (and per inverse-less to-many), named after the side whose entity
    /// has the lower `Z_ENT` (then the lower name) or, in an existing store, after the side whose name the
    /// file has. Each column is `Z_<destination Z_ENT><REL>`; a table or column name already given to an
    /// earlier join table or column gets a numeric suffix (`Z_14USERS1`), as Apple's do.
    private func buildJoinTables() {
        var usedNames: [String: Int] = [:]
        /// The name, or with a suffix when the same kind (table `T:`, column `C:`) already has it.
        func unique(_ name: String, _ kind: String) -> String {
            usedNames[kind + name, default: 0] += 1
            let count = usedNames[kind + name] ?? 1
            return count > 1 ? name + String(count - 1) : name
        }
        var done = Set<ObjectIdentifier>()
        for table in orderedTables {
            for entity in storedHierarchy(of: table.root) {
                for case let relationship as NSRelationshipDescription in entity.declaredProperties
                where relationship.isToMany && !relationship.isTransient && !done.contains(ObjectIdentifier(relationship)) {
                    let inverse = relationship.inverseRelationship
                    guard inverse == nil || inverse?.isToMany == true else { continue }
                    guard let destination = relationship.destinationEntity, self.table(for: destination) != nil else { continue }
                    done.insert(ObjectIdentifier(relationship))
                    if let inverse { done.insert(ObjectIdentifier(inverse)) }
                    let owner = joinTableOwner(relationship, inverse)
                    let other = owner === relationship ? inverse : relationship
                    guard let ownerEntity = owner.entity, let ownerDestination = owner.destinationEntity else { continue }
                    let name = unique(joinTableName(of: owner), "T:")
                    let destinationColumn = unique("Z_\(storedNumber(of: ownerDestination))" + Self.upper(owner.name), "C:")
                    let sourceColumn = unique(other.map { "Z_\(storedNumber(of: ownerEntity))" + Self.upper($0.name) }
                                              ?? "Z_\(storedNumber(of: ownerEntity))" + Self.upper(ownerEntity.name ?? ""), "C:")
                    joinTables.append(JoinTable(name: name, relationship: owner, inverse: other, sourceColumn: sourceColumn,
                                                destinationColumn: destinationColumn,
                                                destinationOrderColumn: owner.isOrdered ? "Z_FOK_" + destinationColumn.dropFirst(2) : nil,
                                                sourceOrderColumn: other?.isOrdered == true ? "Z_FOK_" + sourceColumn.dropFirst(2) : nil))
                }
            }
        }
    }

    /// `Z_<source Z_ENT><REL>`: the name of the join table when `relationship` names it (before suffixes).
    func joinTableName(of relationship: NSRelationshipDescription) -> String {
        "Z_\(relationship.entity.map { storedNumber(of: $0) } ?? 0)" + Self.upper(relationship.name)
    }

    /// The side of a many-to-many pair that names its join table: in an existing store, the side whose name
    /// the file has (Apple's choice for a relationship of an entity to itself is not predictable from the
    /// model); otherwise the side whose entity has the lower `Z_ENT`, then the lower name.
    private func joinTableOwner(_ relationship: NSRelationshipDescription, _ inverse: NSRelationshipDescription?) -> NSRelationshipDescription {
        guard let inverse, inverse !== relationship, let entity = relationship.entity, let inverseEntity = inverse.entity else { return relationship }
        if let stored {
            let has = (stored.tables[joinTableName(of: relationship)] != nil, stored.tables[joinTableName(of: inverse)] != nil)
            if has == (true, false) { return relationship }
            if has == (false, true) { return inverse }
        }
        return (storedNumber(of: inverseEntity), inverse.name) < (storedNumber(of: entity), relationship.name) ? inverse : relationship
    }

    /// Records how each to-many with a join table is stored, from the join tables' final names.
    private func registerJoinTables() {
        for join in joinTables {
            toMany[ObjectIdentifier(join.relationship)] = .joinTable(join, ownerColumn: join.sourceColumn, destinationColumn: join.destinationColumn,
                                                                     orderColumn: join.destinationOrderColumn)
            if let other = join.inverse {
                toMany[ObjectIdentifier(other)] = .joinTable(join, ownerColumn: join.destinationColumn, destinationColumn: join.sourceColumn,
                                                             orderColumn: join.sourceOrderColumn)
            }
        }
    }

    /// Whether the root entity's `userInfo` asks Apple's store not to index `Z_ENT`: its
    /// `_NSEntityOmitSubentityColumnIndex` is a string that reads `yes` or `1`, in any case (Apple's test in
    /// `-[NSSQLiteAdapter newCreateIndexStatementsForEntity:defaultIndicesOnly:]`; any other value, a number
    /// included, keeps the index).
    static func omitsEntityColumnIndex(_ root: NSEntityDescription) -> Bool {
        guard let value = root.userInfo?["_NSEntityOmitSubentityColumnIndex"] as? String else { return false }
        return ["yes", "1"].contains(value.lowercased())
    }

    private func buildIndexes(_ table: Table) {
        let tableName = table.name
        var indexes: [(String, String)] = []
        var seen = Set<String>()
        func add(_ name: String, _ sql: String) {
            if seen.insert(name).inserted { indexes.append((name, sql)) }
        }
        // Foreign keys in the order their columns were made (-[NSSQLiteAdapter newCreateIndexStatementsForEntity:…]).
        for entity in storedHierarchy(of: table.root) {
            for relationship in columnOrder.relationships(of: entity) where !relationship.isToMany {
                guard let column = table.columnByProperty[ObjectIdentifier(relationship)].map({ table.columns[$0].name }) else { continue }
                add("\(tableName)_\(column)_INDEX", "CREATE INDEX \(q("\(tableName)_\(column)_INDEX")) ON \(q(tableName)) (\(q(column)))")
            }
        }
        if table.hasSubentities && !Self.omitsEntityColumnIndex(table.root) {
            add("\(tableName)_Z_ENT_INDEX", "CREATE INDEX \(q("\(tableName)_Z_ENT_INDEX")) ON \(q(tableName)) (Z_ENT)")
        }
        for entity in storedHierarchy(of: table.root) {
            for case let attribute as NSAttributeDescription in entity.declaredProperties where attribute.isIndexed && !attribute.isTransient {
                guard let column = table.columnByProperty[ObjectIdentifier(attribute)].map({ table.columns[$0].name }) else { continue }
                add("\(tableName)_\(column)_INDEX", "CREATE INDEX \(q("\(tableName)_\(column)_INDEX")) ON \(q(tableName)) (\(q(column)))")
            }
            let entityName = entity.name ?? ""
            for index in entity.indexes {
                let columns = index.elements.compactMap { element -> String? in
                    if let property = element.property, let column = table.column(for: property) {
                        return indexKey(column, property, ascending: element.isAscending)
                    }
                    guard let name = element.propertyName ?? element.property?.name,
                          let column = table.column(forKey: name, in: entity) else { return nil }
                    return dialect.indexKey(column.name, type: column.type, ascending: element.isAscending)
                }
                guard !columns.isEmpty else { continue }
                let name = "Z_\(entityName)_\(index.name)"
                add(name, "CREATE INDEX \(q(name)) ON \(q(tableName)) (\(columns.joined(separator: ", ")))")
            }
            for constraint in entity.uniquenessConstraints {
                let names = constraint.compactMap { $0 as? String }
                let keys = names.compactMap { name in
                    table.column(forKey: name, in: entity).map { dialect.indexKey($0.name, type: $0.type, ascending: true) }
                }
                guard !keys.isEmpty, keys.count == names.count else { continue }
                let name = "Z_\(entityName)_UNIQUE_" + names.joined(separator: "_")
                add(name, "CREATE UNIQUE INDEX \(q(name)) ON \(q(tableName)) (\(keys.joined(separator: ", ")))")
            }
        }
        table.indexes = indexes
    }

    /// One key of a fetch or uniqueness index, spelled by the dialect.
    private func indexKey(_ column: String, _ property: NSPropertyDescription, ascending: Bool) -> String {
        dialect.indexKey(column, type: (property as? NSAttributeDescription)?.attributeType, ascending: ascending)
    }

    // MARK: Identifiers

    /// An SQL identifier: bare when it is a plain ASCII word starting with `Z` (every name the schema makes
    /// is, as Apple writes them, and no SQL keyword starts with Z), double-quoted with inner quotes doubled
    /// otherwise. A pure function of the name, so one name is written the same way everywhere (a database
    /// that folds bare identifiers, as PostgreSQL folds them to lower case, folds it everywhere alike).
    public static func quote(_ identifier: String) -> String {
        let plain = identifier.hasPrefix("Z")
            && identifier.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 65 && $0 <= 90) || ($0 >= 97 && $0 <= 122) || $0 == 95 }
        return plain ? identifier : "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

/// Shorthand for `SQLSchema.quote(_:)` in the SQL this module writes.
func q(_ identifier: String) -> String { SQLSchema.quote(identifier) }
