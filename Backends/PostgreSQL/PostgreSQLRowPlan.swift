import CoreDataSQL
import CoreDataStoreKit

/// How rows of one concrete entity are read from and written to its table, computed once per store.
///
/// Reads select every column of the table (`selectList`), so one statement serves every entity of a
/// hierarchy; each row is then decoded with the plan of its own `Z_ENT`.
final class PostgreSQLRowPlan {
    enum Kind {
        case attribute(NSAttributeType)
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

        /// Every column the field writes, in parameter order: its column, a to-one's entity column, a
        /// composite's leaf columns.
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
    let fields: [Field]
    let slotCount: Int
    /// Every column of the table, `Z_PK, Z_ENT, Z_OPT` first, qualified with `t0`.
    let selectList: String
    /// `INSERT` of a new row of this entity; its parameters are `insertParameters(for:)`.
    let insertSQL: String
    /// Fields by slot, for updates.
    let fieldBySlot: [Int: Field]
    /// Whether each slot holds a derived attribute, which the store's triggers write, never a save.
    private let derivedSlots: [Bool]
    /// Whether the entity has derived attributes.
    let hasDerivedAttributes: Bool

    /// Whether `slot` holds a derived attribute.
    func isDerivedSlot(_ slot: Int) -> Bool { slot < derivedSlots.count && derivedSlots[slot] }

    init(entity: NSEntityDescription, table: SQLSchema.Table) {
        self.entity = entity
        self.table = table
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
                fields.append(Field(slot: slot, column: column, kind: .attribute(attribute.attributeType)))
            } else if let relationship = property as? NSRelationshipDescription {
                fields.append(Field(slot: slot, column: column,
                                    kind: .toOne(entityColumn: table.entityColumnByRelationship[ObjectIdentifier(relationship)],
                                                 destination: relationship.destinationEntity?.entityNumber ?? 0)))
            }
        }
        self.fields = fields
        fieldBySlot = Dictionary(fields.map { ($0.slot, $0) }, uniquingKeysWith: { first, _ in first })
        selectList = (["Z_PK", "Z_ENT", "Z_OPT"] + table.columns.map { SQLSchema.quote($0.name) }).map { "t0.\($0)" }.joined(separator: ", ")
        var columns = ["Z_PK", "Z_ENT", "Z_OPT"]
        for field in fields { columns += field.columns.map { SQLSchema.quote(table.columns[$0].name) } }
        insertSQL = "INSERT INTO \(SQLSchema.quote(table.name)) (\(columns.joined(separator: ", "))) VALUES (\(columns.indices.map { "$\($0 + 1)" }.joined(separator: ", ")))"
    }

    /// The row at `index` of `result`, whose first columns are `selectList`.
    /// - Throws: 259 when `Z_OPT` is not an integer up to `StoreNumberLimits.largestStoredNumber`.
    func row(_ result: PostgreSQLResult, _ index: Int, storeURL: URL?) throws -> StoreRow {
        let version = result.isNull(index, 2) ? 0 : result.int64(index, 2)
        guard let version, version <= StoreNumberLimits.largestStoredNumber, let primaryKey = result.int64(index, 0) else {
            throw CoreDataError.corruptStore(storeURL, type: PostgreSQLStore.storeType,
                                             reason: "row \(result.text(index, 0) ?? "NULL") of \(entity.name ?? "") has Z_OPT \(result.text(index, 2) ?? "NULL")")
        }
        var values = [Any?](repeating: nil, count: slotCount)
        for field in fields {
            let column = field.column + 3
            switch field.kind {
            case .attribute(let type):
                values[field.slot] = PostgreSQLValueCoding.decode(result, index, column, as: type)
            case .composite(let composite, let leaves):
                let leafValues = leaves.map { PostgreSQLValueCoding.decode(result, index, $0.column + 3, as: $0.type) }
                values[field.slot] = CompositeAttributeValue.assemble(leafValues, of: composite)
            case .toOne(let entityColumn, let destination):
                guard let key = result.int64(index, column) else { continue }
                let number = entityColumn.flatMap { result.int64(index, $0 + 3) }.map { Int32(truncatingIfNeeded: $0) } ?? destination
                values[field.slot] = ObjectKey(entityNumber: number == 0 ? destination : number, primaryKey: key)
            }
        }
        return StoreRow(key: ObjectKey(entityNumber: entity.entityNumber, primaryKey: primaryKey), version: version, values: values)
    }

    /// The parameters of one field's column(s), in the order of `insertSQL`.
    /// - Throws: 134030 when the value cannot be stored in the attribute's type.
    func parameters(for field: Field, value: Any?) throws -> [String?] {
        var parameters: [String?] = []
        try appendParameters(for: field, value: value, to: &parameters)
        return parameters
    }

    /// Appends the parameters of `parameters(for:value:)` to `parameters`, without an array of their own for the
    /// common field of one column.
    func appendParameters(for field: Field, value: Any?, to parameters: inout [String?]) throws {
        switch field.kind {
        case .attribute(let type):
            guard let encoded = PostgreSQLValueCoding.encode(value, as: type) else {
                let name = entity.layout.allProperties[field.slot].name
                throw CoreDataError.saveFailed("attribute \(name) of \(entity.name ?? "") holds a \(value.map { "\(Swift.type(of: $0))" } ?? "nil"), which cannot be stored as \(type)")
            }
            parameters.append(encoded)
        case .composite(let composite, let leaves):
            let name = entity.layout.allProperties[field.slot].name
            if let value, !(value is [String: Any]) {
                throw CoreDataError.saveFailed("attribute \(name) of \(entity.name ?? "") holds a \(Swift.type(of: value)), which is not a composite value")
            }
            for (leaf, column) in zip(CompositeAttributeValue.leaves(of: composite), leaves) {
                let leafValue = CompositeAttributeValue.value(at: leaf.path, in: value)
                guard let encoded = PostgreSQLValueCoding.encode(leafValue, as: column.type) else {
                    throw CoreDataError.saveFailed("element \(name).\(leaf.dottedPath) of \(entity.name ?? "") holds a \(leafValue.map { "\(Swift.type(of: $0))" } ?? "nil"), which cannot be stored as \(column.type)")
                }
                parameters.append(encoded)
            }
        case .toOne(let entityColumn, _):
            let key = value as? ObjectKey
            parameters.append(key.map { String($0.primaryKey) })
            if entityColumn != nil { parameters.append(key.map { String($0.entityNumber) }) }
        }
    }

    /// The parameters of a new row: `Z_PK`, `Z_ENT`, `Z_OPT` 1, then every field's; a derived attribute's is
    /// NULL (its triggers set it).
    func insertParameters(for row: StoreRow) throws -> [String?] {
        var parameters: [String?] = [String(row.key.primaryKey), String(row.key.entityNumber), "1"]
        parameters.reserveCapacity(3 + fields.count)
        for field in fields {
            let value = field.slot < row.values.count && !isDerivedSlot(field.slot) ? row.values[field.slot] : nil
            try appendParameters(for: field, value: value, to: &parameters)
        }
        return parameters
    }
}
