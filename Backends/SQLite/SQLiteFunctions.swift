import CSQLite
import CoreDataStoreKit

/// SQL functions the store registers on each connection.
///
/// - `NSCoreDataDATriggerUpdatedAffectedObjectValue` and `NSCoreDataDATriggerInsertUpdatedAffectedObjectValue`
///   (`'TABLE', Z_ENT, Z_PK, 'attribute', value`): Apple's derived-attribute triggers call them for every row
///   whose derived value they set; the row and attribute are recorded in the connection's `derivedChanges`, and
///   NULL is returned. Without them, any write to a table with such a trigger fails.
/// - `NSCoreDataNow()`: the time as Apple stores dates (seconds since 2001-01-01), for `now()` derivations.
/// - `NSCoreDataToLower(text)`, `NSCoreDataToUpper(text)`, `NSCoreDataCanonical(text)`: the string functions of
///   derivations (`lowercase:`, `uppercase:`, `canonical:`, the last case- and diacritic-folded as the in-memory
///   evaluator folds); NULL for NULL.
/// - `NSCoreDataFold(text, flags)`: the text folded for `[c]` (1) and `[d]` (2) comparisons.
/// - `NSCoreDataMatches(text, pattern, flags)`: 1 when the whole text matches the ICU-style regular expression
///   (`MATCHES`) with `[c]` (1) and `[d]` (2), 0 when not, NULL for NULL input; computed by the in-memory
///   evaluator's own `PredicateStrings.matches`, so SQL and memory agree.
enum SQLiteFunctions {
    static func register(on connection: SQLiteConnection) {
        guard let handle = connection.handle else { return }
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC
        let changes = Unmanaged.passUnretained(connection.derivedChanges).toOpaque()
        for name in ["NSCoreDataDATriggerUpdatedAffectedObjectValue", "NSCoreDataDATriggerInsertUpdatedAffectedObjectValue"] {
            sqlite3_create_function_v2(handle, name, -1, SQLITE_UTF8, changes, { context, count, arguments in
                sqlite3_result_null(context)
                guard count == 5, let arguments, let pointer = sqlite3_user_data(context),
                      let name = sqlite3_value_text(arguments[3]) else { return }
                // The connection owns the log and outlives its functions (they go when its handle closes).
                let log = Unmanaged<SQLiteDerivedChanges>.fromOpaque(pointer).takeUnretainedValue()
                log.record(.init(storedEntity: sqlite3_value_int64(arguments[1]), primaryKey: sqlite3_value_int64(arguments[2]),
                                 attribute: String(cString: name)))
            }, nil, nil, nil)
        }
        sqlite3_create_function_v2(handle, "NSCoreDataNow", 0, SQLITE_UTF8, nil, { context, _, _ in
            sqlite3_result_double(context, Date().timeIntervalSinceReferenceDate)
        }, nil, nil, nil)
        for (name, transform) in SQLiteFunctions.stringFunctions {
            let box = Unmanaged.passRetained(StringFunctionBox(transform)).toOpaque()
            sqlite3_create_function_v2(handle, name, 1, flags, box, { context, count, arguments in
                guard count == 1, let arguments, let textPointer = sqlite3_value_text(arguments[0]), let pointer = sqlite3_user_data(context) else {
                    sqlite3_result_null(context)
                    return
                }
                let function = Unmanaged<StringFunctionBox>.fromOpaque(pointer).takeUnretainedValue().transform
                sqlite3_result_text(context, function(String(cString: textPointer)), -1, csqlite_transient())
            }, nil, nil, { pointer in
                if let pointer { Unmanaged<StringFunctionBox>.fromOpaque(pointer).release() }
            })
        }
        sqlite3_create_function_v2(handle, "NSCoreDataMatches", 3, flags, nil, { context, count, arguments in
            guard count == 3, let arguments, let textPointer = sqlite3_value_text(arguments[0]),
                  let patternPointer = sqlite3_value_text(arguments[1]) else {
                sqlite3_result_null(context)
                return
            }
            let text = String(cString: textPointer)
            let pattern = String(cString: patternPointer)
            let options = PredicateComparison.Options(rawValue: Int(sqlite3_value_int64(arguments[2])) & 3)
            sqlite3_result_int(context, PredicateStrings.matches(text, pattern, options) ? 1 : 0)
        }, nil, nil, nil)
        sqlite3_create_function_v2(handle, "NSCoreDataFold", 2, flags, nil, { context, count, arguments in
            guard count == 2, let arguments, let textPointer = sqlite3_value_text(arguments[0]) else {
                sqlite3_result_null(context)
                return
            }
            let folded = SQLiteFunctions.fold(String(cString: textPointer), Int(sqlite3_value_int64(arguments[1])))
            sqlite3_result_text(context, folded, -1, csqlite_transient())
        }, nil, nil, nil)
    }

    /// The derivations' string functions by SQL name.
    static let stringFunctions: [(String, @Sendable (String) -> String)] = [
        ("NSCoreDataToLower", { $0.lowercased() }),
        ("NSCoreDataToUpper", { $0.uppercased() }),
        ("NSCoreDataCanonical", { PredicateStrings.fold($0, [.caseInsensitive, .diacriticInsensitive]) }),
    ]

    /// `text` folded for `[c]` (flag 1) and `[d]` (flag 2) comparisons, by the in-memory evaluator's own folding.
    static func fold(_ text: String, _ flags: Int) -> String {
        PredicateStrings.fold(text, PredicateComparison.Options(rawValue: flags & 3))
    }
}

/// A string function handed to SQLite as a function's user data; released when the function is dropped.
private final class StringFunctionBox {
    let transform: @Sendable (String) -> String
    init(_ transform: @escaping @Sendable (String) -> String) { self.transform = transform }
}
