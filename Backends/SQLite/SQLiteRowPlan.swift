import CSQLite
import CoreDataSQL
import CoreDataStoreKit

/// How rows of one concrete entity are read from and written to its table, computed once per store.
///
/// Reads select every column of the table (`selectList`), so one statement serves every entity of a
/// hierarchy; each row is then decoded with the plan of its own `Z_ENT`.
final class SQLiteRowPlan {
    enum Kind {
        case attribute(NSAttributeType, external: Bool)
        /// A to-one: the destination's `Z_ENT` is read from `entityColumn`, or is always `destination`.
        case toOne(entityColumn: Int?, destination: Int32)
        /// A composite attribute: one column per leaf, in `CompositeAttributeValue.leaves(of:)` order.
        case composite(NSCompositeAttributeDescription, leaves: [(column: Int, type: NSAttributeType)])
    }

    struct Field {
        var slot: Int
        /// Index into the table's columns (add 3 for the position in `selectList`); a composite's first leaf.
        var column: Int
        var kind: Kind

        /// Every column the field writes, in binding order: its column, a to-one's entity column, a composite's
        /// leaf columns.
        var columns: [Int] {
            switch kind {
            case .attribute: return [column]
            case .toOne(let entityColumn, _): return [column] + (entityColumn.map { [$0] } ?? [])
            case .composite(_, let leaves): return leaves.map(\.column)
            }
        }
    }

    let entity: NSEntityDescription
    let table: SQLSchema.Table
    /// The store's schema: translates `Z_ENT` values of `Z<n>_<REL>` columns between the store's numbers and
    /// the model's (keys carry the model's).
    let schema: SQLSchema
    /// The entity's `Z_ENT` in the store, written into `Z_ENT` of its rows.
    let storedEntityNumber: Int64
    /// The entity's number in the model, which its rows' keys carry (read once: the entity's property takes a run-time
    /// exclusivity check per read).
    let entityNumber: Int32
    let fields: [Field]
    /// How each of `fields` is bound when a row is written, in the same order.
    let binders: [Binder]
    let slotCount: Int
    /// Every column of the table, `Z_PK, Z_ENT, Z_OPT` first, qualified with `alias`.
    let selectList: String
    /// `SELECT` of `selectList` from the table where `Z_PK` is `?1`: the row of one key, made once per plan, so
    /// a fault filled from the store builds no SQL text.
    let selectByKeySQL: String
    /// `INSERT` of a new row of this entity; bind with `insertBindings`.
    let insertSQL: String
    /// Fields by slot, for updates.
    let fieldBySlot: [Int: Field]
    /// Whether the fields are one attribute per slot, in slot order (a row is then read by appending).
    let attributesFillEverySlot: Bool
    /// How each of `fields` is read, in the same order, when the fields are one attribute per slot in slot order
    /// (`attributesFillEverySlot`); nil otherwise.
    let readers: [Reader]?
    /// Whether each slot holds a derived attribute, which the store's triggers write, never a save.
    private let derivedSlots: [Bool]
    /// Whether the entity has derived attributes.
    let hasDerivedAttributes: Bool

    /// Whether `slot` holds a derived attribute.
    func isDerivedSlot(_ slot: Int) -> Bool { slot < derivedSlots.count && derivedSlots[slot] }

    init(entity: NSEntityDescription, table: SQLSchema.Table, schema: SQLSchema, alias: String = "t0") {
        self.entity = entity
        self.table = table
        self.schema = schema
        storedEntityNumber = schema.storedNumber(of: entity)
        entityNumber = entity.entityNumber
        let layout = entity.layout
        slotCount = layout.slotCount
        derivedSlots = layout.allProperties.map { $0 is NSDerivedAttributeDescription }
        hasDerivedAttributes = derivedSlots.contains(true)
        var fields: [Field] = []
        for slot in layout.storedSlots {
            let property = layout.allProperties[slot]
            if let composite = property as? NSCompositeAttributeDescription {
                guard let columns = table.leafColumnsByComposite[ObjectIdentifier(composite)], let first = columns.first else { continue }
                let types = CompositeAttributeValue.leaves(of: composite).map(\.attribute.attributeType)
                fields.append(Field(slot: slot, column: first, kind: .composite(composite, leaves: Array(zip(columns, types)))))
                continue
            }
            guard let column = table.columnByProperty[ObjectIdentifier(property)] else { continue }
            if let attribute = property as? NSAttributeDescription {
                fields.append(Field(slot: slot, column: column, kind: .attribute(attribute.attributeType, external: attribute.allowsExternalBinaryDataStorage)))
            } else if let relationship = property as? NSRelationshipDescription {
                fields.append(Field(slot: slot, column: column,
                                    kind: .toOne(entityColumn: table.entityColumnByRelationship[ObjectIdentifier(relationship)],
                                                 destination: relationship.destinationEntity?.entityNumber ?? 0)))
            }
        }
        self.fields = fields
        binders = Binder.binders(for: fields)
        attributesFillEverySlot = fields.count == slotCount && fields.enumerated().allSatisfy { index, field in
            guard case .attribute = field.kind else { return false }
            return field.slot == index
        }
        readers = attributesFillEverySlot ? Reader.readers(for: fields) : nil
        fieldBySlot = Dictionary(fields.map { ($0.slot, $0) }, uniquingKeysWith: { a, _ in a })
        selectList = (["Z_PK", "Z_ENT", "Z_OPT"] + table.columns.map { q($0.name) }).map { "\(alias).\($0)" }.joined(separator: ", ")
        selectByKeySQL = "SELECT \(selectList) FROM \(q(table.name)) \(alias) WHERE \(alias).Z_PK = ?1"
        var columns = ["Z_PK", "Z_ENT", "Z_OPT"]
        for field in fields { columns += field.columns.map { q(table.columns[$0].name) } }
        insertSQL = "INSERT INTO \(q(table.name)) (\(columns.joined(separator: ", "))) VALUES (\(columns.indices.map { "?\($0 + 1)" }.joined(separator: ", ")))"
    }

    /// The row in the current result of `statement`, whose first columns are `selectList`.
    /// - Throws: 259 when `Z_OPT` is neither NULL nor an integer up to `StoreNumberLimits.largestStoredNumber`
    ///   (a damaged file: every later update adds one to it).
    func row(from statement: SQLiteStatement, storeURL: URL?) throws -> StoreRow {
        let versionType = statement.columnType(at: 2)
        let version = statement.int64(at: 2)
        guard versionType == SQLITE_INTEGER || versionType == SQLITE_NULL, version <= StoreNumberLimits.largestStoredNumber else {
            throw CoreDataError.corruptStore(storeURL, type: NSSQLiteStoreType,
                                             reason: "row \(statement.int64(at: 0)) of \(entity.name ?? "") has Z_OPT \(statement.string(at: 2) ?? "NULL")")
        }
        var values: [Any?]
        if let readers {
            // One attribute per slot, in slot order: each value is appended, never written twice.
            values = []
            values.reserveCapacity(readers.count)
            for reader in readers { values.append(reader.value(in: statement, storeURL: storeURL)) }
            return StoreRow(key: ObjectKey(entityNumber: entityNumber, primaryKey: statement.int64(at: 0)), version: version, values: values)
        }
        values = [Any?](repeating: nil, count: slotCount)
        for field in fields {
            let column = Int32(field.column + 3)
            switch field.kind {
            case .attribute(let type, let external):
                values[field.slot] = SQLValueCoding.decode(statement, column, as: type, externalStorage: external, storeURL: storeURL)
            case .composite(let composite, let leaves):
                let leafValues = leaves.map { SQLValueCoding.decode(statement, Int32($0.column + 3), as: $0.type, storeURL: storeURL) }
                values[field.slot] = CompositeAttributeValue.assemble(leafValues, of: composite)
            case .toOne(let entityColumn, let destination):
                guard !statement.isNull(at: column) else { continue }
                let number = entityColumn.map { schema.modelNumber(forStored: statement.int64(at: Int32($0 + 3))) } ?? destination
                values[field.slot] = ObjectKey(entityNumber: number == 0 ? destination : number, primaryKey: statement.int64(at: column))
            }
        }
        return StoreRow(key: ObjectKey(entityNumber: entityNumber, primaryKey: statement.int64(at: 0)),
                        version: version, values: values)
    }

    private func unstorable(_ field: Field, _ value: Any?, _ type: NSAttributeType, element: String? = nil) -> NSError {
        let name = entity.layout.allProperties[field.slot].name + (element.map { "." + $0 } ?? "")
        return CoreDataError.saveFailed("attribute \(name) of \(entity.name.orEmpty) holds a \(value.map { "\(Swift.type(of: $0))" } ?? "nil"), which cannot be stored as \(type)")
    }

    /// Binds one field's value to its column(s) starting at parameter `index`; returns the next index.
    /// Integers, Booleans, doubles, strings and keys take a direct path; the rest go through `SQLValueCoding`.
    func bind(_ field: Field, value: Any?, to statement: SQLiteStatement, at index: Int32) throws -> Int32 {
        switch field.kind {
        case .attribute(let type, let external):
            guard let value else {
                try statement.bind(.null, at: index)
                return index + 1
            }
            // One cast, straight from the value (no tuple of type and value to copy it into).
            switch type {
            case .integer64AttributeType: if let v = value as? Int64 { statement.bind(v, at: index); return index + 1 }
            case .integer32AttributeType: if let v = value as? Int32 { statement.bind(Int64(v), at: index); return index + 1 }
            case .integer16AttributeType: if let v = value as? Int16 { statement.bind(Int64(v), at: index); return index + 1 }
            case .booleanAttributeType: if let v = value as? Bool { statement.bind(v ? 1 : 0, at: index); return index + 1 }
            case .doubleAttributeType: if let v = value as? Double { try statement.bind(.real(v), at: index); return index + 1 }
            case .stringAttributeType: if let v = value as? String { try statement.bind(.text(v), at: index); return index + 1 }
            default: break
            }
            guard let encoded = SQLValueCoding.encode(value, as: type, externalStorage: external) else {
                throw unstorable(field, value, type)
            }
            try statement.bind(encoded, at: index)
            return index + 1
        case .composite:
            var next = index
            for encoded in try bindings(for: field, value: value) {
                try statement.bind(encoded, at: next)
                next += 1
            }
            return next
        case .toOne(let entityColumn, _):
            let key = value as? ObjectKey
            if let key { statement.bind(key.primaryKey, at: index) } else { try statement.bind(.null, at: index) }
            guard entityColumn != nil else { return index + 1 }
            if let key { statement.bind(schema.storedNumber(forModel: key.entityNumber), at: index + 1) } else { try statement.bind(.null, at: index + 1) }
            return index + 2
        }
    }

    /// The values bound to one field's column(s), in the order of `insertSQL`.
    func bindings(for field: Field, value: Any?) throws -> [SQLValue] {
        switch field.kind {
        case .attribute(let type, let external):
            guard let encoded = SQLValueCoding.encode(value, as: type, externalStorage: external) else {
                throw unstorable(field, value, type)
            }
            return [encoded]
        case .composite(let composite, let leaves):
            if let value, !(value is [String: Any]) { throw unstorable(field, value, .compositeAttributeType) }
            return try zip(CompositeAttributeValue.leaves(of: composite), leaves).map { leaf, column in
                let leafValue = CompositeAttributeValue.value(at: leaf.path, in: value)
                guard let encoded = SQLValueCoding.encode(leafValue, as: column.type) else {
                    throw unstorable(field, leafValue, column.type, element: leaf.dottedPath)
                }
                return encoded
            }
        case .toOne(let entityColumn, _):
            let key = value as? ObjectKey
            var result: [SQLValue] = [key.map { .integer($0.primaryKey) } ?? .null]
            if entityColumn != nil { result.append(key.map { .integer(schema.storedNumber(forModel: $0.entityNumber)) } ?? .null) }
            return result
        }
    }
}
