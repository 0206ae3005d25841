import CoreDataStoreKit

extension SQLiteRowPlan {
    /// How one field of the plan is bound when a row is written, decided once per plan.
    ///
    /// Binding a field's value through `bind(_:value:to:at:)` copies the field (an enum holding references) and the
    /// row's `Any?` out of their arrays, then casts the value: in a profile of the benchmark's insert + save on the
    /// store contract, those copies and casts were two thirds of writing the rows. A binder is a few plain numbers,
    /// and for an attribute stored as an integer, a Boolean, a double or a string it reads the value in place in the
    /// row's array when the value is of exactly that type (`ExistentialPayload`); anything else (nil, another type,
    /// every other kind of field) goes through `bind(_:value:to:at:)`, so what is written never depends on the path.
    struct Binder {
        /// The slot of the field's value in a row.
        let slot: Int
        /// The field's position in `fields`.
        let field: Int
        let direct: DirectType

        /// The binders of `fields`, in order.
        static func binders(for fields: [Field]) -> [Binder] {
            fields.enumerated().map { position, field in
                Binder(slot: field.slot, field: position, direct: direct(for: field.kind))
            }
        }

        private static func direct(for kind: Kind) -> DirectType {
            guard case .attribute(let type, _) = kind, ExistentialPayload.layoutIsAsExpected else { return .general }
            return DirectType(type)
        }
    }

    /// Binds the value in `values` at the binder's slot (nil past the end of `values`, or when `omitted`) to its
    /// column(s) starting at parameter `index`; returns the next index. Binds what `bind(_:value:to:at:)` binds
    /// for the same value.
    func bind(_ binder: Binder, from values: UnsafeBufferPointer<Any?>, omitted: Bool = false, to statement: SQLiteStatement,
              at index: Int32) throws -> Int32 {
        guard !omitted, binder.slot < values.count, let base = values.baseAddress else {
            return try bind(fields[binder.field], value: nil, to: statement, at: index)
        }
        let container = UnsafeRawPointer(base + binder.slot)
        switch binder.direct {
        case .int64:
            if let value = ExistentialPayload.value(at: container, ofExactType: Int64.self) { statement.bind(value, at: index); return index + 1 }
        case .int32:
            if let value = ExistentialPayload.value(at: container, ofExactType: Int32.self) { statement.bind(Int64(value), at: index); return index + 1 }
        case .int16:
            if let value = ExistentialPayload.value(at: container, ofExactType: Int16.self) { statement.bind(Int64(value), at: index); return index + 1 }
        case .boolean:
            if let value = ExistentialPayload.value(at: container, ofExactType: Bool.self) { statement.bind(value ? 1 : 0, at: index); return index + 1 }
        case .double:
            if let value = ExistentialPayload.value(at: container, ofExactType: Double.self) { try statement.bind(.real(value), at: index); return index + 1 }
        case .string:
            if let value = ExistentialPayload.value(at: container, ofExactType: String.self) { try statement.bind(.text(value), at: index); return index + 1 }
        case .general:
            break
        }
        return try bind(fields[binder.field], value: values[binder.slot], to: statement, at: index)
    }
}
