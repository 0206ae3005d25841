import CSQLite
import CoreDataStoreKit

extension SQLiteRowPlan {
    /// How one attribute's column is read when a row is read, decided once per plan.
    ///
    /// Reading a field through `SQLValueCoding.decode` copied the field (an enum holding references, copied through a
    /// value witness per field and row) and then switched on its attribute type; a reader is a few plain numbers. For
    /// an attribute stored as an integer, a Boolean, a double or a string whose column holds the storage class SQLite
    /// writes for it, the value is read directly; anything else (NULL, another storage class, every other type) goes
    /// through `SQLValueCoding.decode`, so what is read never depends on the path.
    struct Reader {
        /// The column's position in the statement (`selectList`'s order).
        let column: Int32
        let direct: DirectType
        let type: NSAttributeType
        let externalStorage: Bool

        /// The readers of `fields` when each is an attribute (nil otherwise), in order.
        static func readers(for fields: [Field]) -> [Reader]? {
            var readers: [Reader] = []
            readers.reserveCapacity(fields.count)
            for field in fields {
                guard case .attribute(let type, let external) = field.kind else { return nil }
                readers.append(Reader(column: Int32(field.column + 3), direct: DirectType(type), type: type, externalStorage: external))
            }
            return readers
        }

        /// The attribute value in the reader's column of the current row of `statement`: what
        /// `SQLValueCoding.decode` gives for it.
        @inline(__always)
        func value(in statement: SQLiteStatement, storeURL: URL?) -> Any? {
            let storage = statement.columnType(at: column)
            switch direct {
            case .int64: if storage == SQLITE_INTEGER { return statement.int64(at: column) }
            case .int32: if storage == SQLITE_INTEGER { return Int32(truncatingIfNeeded: statement.int64(at: column)) }
            case .int16: if storage == SQLITE_INTEGER { return Int16(truncatingIfNeeded: statement.int64(at: column)) }
            case .boolean: if storage == SQLITE_INTEGER { return statement.int64(at: column) != 0 }
            case .double: if storage == SQLITE_FLOAT { return statement.double(at: column) }
            case .string: if storage == SQLITE_TEXT { return statement.string(at: column) }
            case .general: break
            }
            if storage == SQLITE_NULL { return nil }
            return SQLValueCoding.decode(statement, column, as: type, externalStorage: externalStorage, storeURL: storeURL)
        }
    }
}
