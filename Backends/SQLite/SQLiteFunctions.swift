import CSQLite
import CoreDataStoreKit

/// SQL functions the store registers on each connection.
///
/// - `NSCoreDataDATriggerUpdatedAffectedObjectValue` and `NSCoreDataDATriggerInsertUpdatedAffectedObjectValue`:
///   Apple's derived-attribute triggers call them to tell the framework which objects changed. Here they
///   return NULL; without them, any write to a table with such a trigger fails.
/// - `NSCoreDataFold(text, flags)`: the text folded for `[c]` (1) and `[d]` (2) comparisons.
/// - `NSCoreDataMatches(text, pattern)`: 1 when the whole text matches the ICU-style regular expression
///   (`MATCHES`), 0 when not, NULL for NULL input.
enum SQLiteFunctions {
    static func register(on connection: SQLiteConnection) {
        guard let handle = connection.handle else { return }
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC
        for name in ["NSCoreDataDATriggerUpdatedAffectedObjectValue", "NSCoreDataDATriggerInsertUpdatedAffectedObjectValue"] {
            sqlite3_create_function_v2(handle, name, -1, SQLITE_UTF8, nil, { context, _, _ in
                sqlite3_result_null(context)
            }, nil, nil, nil)
        }
        sqlite3_create_function_v2(handle, "NSCoreDataMatches", 2, flags, nil, { context, count, arguments in
            guard count == 2, let arguments, let textPointer = sqlite3_value_text(arguments[0]),
                  let patternPointer = sqlite3_value_text(arguments[1]) else {
                sqlite3_result_null(context)
                return
            }
            let text = String(cString: textPointer)
            let pattern = String(cString: patternPointer)
            sqlite3_result_int(context, SQLiteFunctions.matches(text, pattern) ? 1 : 0)
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

    /// `text` folded for `[c]` (flag 1) and `[d]` (flag 2) comparisons, as the in-memory evaluator folds it.
    static func fold(_ text: String, _ flags: Int) -> String {
        var options: String.CompareOptions = []
        if flags & 1 != 0 { options.insert(.caseInsensitive) }
        if flags & 2 != 0 { options.insert(.diacriticInsensitive) }
        return text.folding(options: options, locale: nil)
    }

    private static let cacheLock = NSLock()
    nonisolated(unsafe) private static var cache: [String: NSRegularExpression] = [:]

    /// Whether the whole of `text` matches `pattern`; false for an invalid pattern.
    static func matches(_ text: String, _ pattern: String) -> Bool {
        cacheLock.lock()
        var expression = cache[pattern]
        if expression == nil {
            expression = try? NSRegularExpression(pattern: "^(?:" + pattern + ")$", options: [.dotMatchesLineSeparators])
            if cache.count > 64 { cache.removeAll() }
            cache[pattern] = expression
        }
        cacheLock.unlock()
        guard let expression else { return false }
        let range = NSRange(text.startIndex..., in: text)
        return expression.firstMatch(in: text, options: [.anchored], range: range) != nil
    }
}
