/// Errors of the predicate language, built in one place.
///
/// Apple raises `NSInvalidArgumentException` for a malformed format; Swift cannot catch that, so we report
/// it as an `NSError` in `NSCocoaErrorDomain` with code 2048 (`NSFormattingError`, Apple's "formatting
/// error", the closest Cocoa code). The message names the offset (in characters from the start of the
/// format) and the token found there.
public enum PredicateFormatError {
    /// The `userInfo` key for the character offset of the error in the format string (an `Int`).
    public static let offsetKey = "PredicateFormatErrorOffset"
    /// The `userInfo` key for the format string that failed (a `String`).
    public static let formatKey = "PredicateFormatErrorFormat"
    /// The `userInfo` key for the key that names no property (a `String`), for key validation errors.
    public static let keyKey = "PredicateFormatErrorKey"
    /// The error code: `NSFormattingError` (2048).
    public static let code = 2048

    /// A parse error: `Unable to parse the format string "a ==" at offset 4: expected an expression, found end of input`.
    static func parse(format: String, offset: Int, problem: String) -> NSError {
        let message = "Unable to parse the format string \"\(format)\" at offset \(offset): \(problem)"
        return NSError(domain: NSCocoaErrorDomain, code: code, userInfo: [
            NSLocalizedDescriptionKey: message,
            NSDebugDescriptionErrorKey: message,
            offsetKey: offset,
            formatKey: format,
        ])
    }

    /// A predicate that cannot be used for another reason (an unknown key, an unsupported construct).
    static func invalid(_ message: String, key: String? = nil) -> NSError {
        var info: [String: Any] = [NSLocalizedDescriptionKey: message, NSDebugDescriptionErrorKey: message]
        if let key = key { info[keyKey] = key }
        return NSError(domain: NSCocoaErrorDomain, code: code, userInfo: info)
    }
}
