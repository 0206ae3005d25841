import CSQLite
import CoreDataStoreKit

/// SQL functions the store registers on each connection.
///
/// - `NSCoreDataDATriggerUpdatedAffectedObjectValue` and `NSCoreDataDATriggerInsertUpdatedAffectedObjectValue`:
///   Apple's derived-attribute triggers call them to tell the framework which objects changed. Here they
///   return NULL; without them, any write to a table with such a trigger fails.
/// - `NSCoreDataFold(text, flags)`: the text folded for `[c]` (1) and `[d]` (2) comparisons.
/// - `NSCoreDataMatches(text, pattern, flags)`: 1 when the whole text matches the ICU-style regular expression
///   (`MATCHES`) with `[c]` (1) and `[d]` (2), 0 when not, NULL for NULL input; computed by the in-memory
///   evaluator's own `PredicateStrings.matches`, so SQL and memory agree.
enum SQLiteFunctions {
    static func register(on connection: SQLiteConnection) {
        guard let handle = connection.handle else { return }
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC
        for name in ["NSCoreDataDATriggerUpdatedAffectedObjectValue", "NSCoreDataDATriggerInsertUpdatedAffectedObjectValue"] {
            sqlite3_create_function_v2(handle, name, -1, SQLITE_UTF8, nil, { context, _, _ in
                sqlite3_result_null(context)
            }, nil, nil, nil)
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

    /// `text` folded for `[c]` (flag 1) and `[d]` (flag 2) comparisons, by the in-memory evaluator's own folding.
    static func fold(_ text: String, _ flags: Int) -> String {
        PredicateStrings.fold(text, PredicateComparison.Options(rawValue: flags & 3))
    }
}
