import CSQLite
import CoreDataSQL
import CoreDataStoreKit

/// Apple's encodings of attribute values in SQLite columns, both ways.
///
/// Dates are REAL seconds since 2001-01-01; UUIDs 16 raw bytes; Booleans 0/1; URIs their absolute string;
/// decimals are written as their decimal text into a `DECIMAL` column (SQLite keeps a REAL) and read back
/// through SQLite's text form, so `3.3333333333` reads as exactly that. Reading never traps: a column holding
/// an unexpected storage class is converted when it can be and read as nil otherwise.
enum SQLValueCoding {
    /// The value to bind for an attribute value, or nil when the value cannot be stored in that type.
    static func encode(_ value: Any?, as type: NSAttributeType, externalStorage: Bool = false) -> SQLValue? {
        guard let value, !(value is NSNull) else { return .null }
        switch (type, value) {
        case (.integer64AttributeType, let v as Int64): return .integer(v)
        case (.integer32AttributeType, let v as Int32): return .integer(Int64(v))
        case (.integer16AttributeType, let v as Int16): return .integer(Int64(v))
        case (.booleanAttributeType, let v as Bool): return .integer(v ? 1 : 0)
        case (.doubleAttributeType, let v as Double): return .real(v)
        case (.floatAttributeType, let v as Float): return .real(Double(v))
        case (.dateAttributeType, let v as Date): return .real(v.timeIntervalSinceReferenceDate)
        case (.stringAttributeType, let v as String): return .text(v)
        case (.decimalAttributeType, let v as Decimal): return .text(v.description)
        case (.URIAttributeType, let v as URL): return .text(v.absoluteString)
        case (.UUIDAttributeType, let v as UUID): return .blob(withUnsafeBytes(of: v.uuid) { Data($0) })
        case (.binaryDataAttributeType, let v as Data), (.transformableAttributeType, let v as Data):
            // Apple marks inline values of external-storage attributes with a 0x01 byte.
            return .blob(externalStorage ? Data([1]) + v : v)
        case (.objectIDAttributeType, _): return .text(String(describing: value))
        default:
            guard let coerced = AttributeValueCoercion.coerce(value, to: type), let plain = coerced else { return nil }
            if type == .transformableAttributeType || type == .undefinedAttributeType { return nil }
            return encode(plain, as: type, externalStorage: externalStorage)
        }
    }

    /// The attribute value in column `column` of the current row.
    static func decode(_ statement: SQLiteStatement, _ column: Int32, as type: NSAttributeType, externalStorage: Bool = false,
                       storeURL: URL? = nil) -> Any? {
        let storage = statement.columnType(at: column)
        if storage == SQLITE_NULL { return nil }
        switch type {
        case .integer16AttributeType: return integer(statement, column, storage).map { Int16(truncatingIfNeeded: $0) }
        case .integer32AttributeType: return integer(statement, column, storage).map { Int32(truncatingIfNeeded: $0) }
        case .integer64AttributeType: return integer(statement, column, storage)
        case .booleanAttributeType: return integer(statement, column, storage).map { $0 != 0 }
        case .doubleAttributeType: return real(statement, column, storage)
        case .floatAttributeType: return real(statement, column, storage).map { Float($0) }
        case .dateAttributeType: return real(statement, column, storage).map { Date(timeIntervalSinceReferenceDate: $0) }
        case .decimalAttributeType:
            if storage == SQLITE_INTEGER { return Decimal(statement.int64(at: column)) }
            return statement.string(at: column).flatMap { Decimal(string: $0, locale: Locale(identifier: "en_US_POSIX")) }
        case .stringAttributeType: return statement.string(at: column)
        case .URIAttributeType: return statement.string(at: column).flatMap { URL(string: $0) }
        case .UUIDAttributeType:
            if storage == SQLITE_TEXT { return statement.string(at: column).flatMap(UUID.init(uuidString:)) }
            guard let data = statement.data(at: column), data.count == 16 else { return nil }
            return data.withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
        case .binaryDataAttributeType, .transformableAttributeType:
            guard let data = storage == SQLITE_TEXT ? statement.string(at: column).map({ Data($0.utf8) }) : statement.data(at: column) else { return nil }
            return externalStorage ? unwrapExternal(data, storeURL: storeURL) : data
        default:
            return nil
        }
    }

    private static func integer(_ statement: SQLiteStatement, _ column: Int32, _ storage: Int32) -> Int64? {
        switch storage {
        case SQLITE_INTEGER: return statement.int64(at: column)
        case SQLITE_FLOAT:
            let value = statement.double(at: column)
            return value.isFinite && abs(value) < 9.2e18 ? Int64(value) : nil
        case SQLITE_TEXT: return statement.string(at: column).flatMap { Int64($0) }
        default: return nil
        }
    }

    private static func real(_ statement: SQLiteStatement, _ column: Int32, _ storage: Int32) -> Double? {
        switch storage {
        case SQLITE_INTEGER, SQLITE_FLOAT: return statement.double(at: column)
        case SQLITE_TEXT: return statement.string(at: column).flatMap { Double($0) }
        default: return nil
        }
    }

    /// An external-storage value: `0x01` + bytes inline, or `0x02` + the name of a file in the store's
    /// `.<store>_SUPPORT/_EXTERNAL_DATA` folder. Anything else is returned as it is.
    private static func unwrapExternal(_ data: Data, storeURL: URL?) -> Data? {
        guard let marker = data.first else { return data }
        switch marker {
        case 1: return data.dropFirst()
        case 2:
            guard let storeURL, let name = String(data: data.dropFirst(), encoding: .utf8)?.trimmingCharacters(in: .controlCharacters),
                  !name.contains("/") else { return nil }
            let folder = storeURL.deletingLastPathComponent()
                .appendingPathComponent("." + storeURL.deletingPathExtension().lastPathComponent + "_SUPPORT")
                .appendingPathComponent("_EXTERNAL_DATA")
            return try? Data(contentsOf: folder.appendingPathComponent(name))
        default: return data
        }
    }
}
