/// `CAST(value, "Type")` conversions.
///
/// Apple's type names: `NSDate` (from seconds since 2001-01-01, Apple's reference date), `NSNumber`,
/// `NSString`, `NSDecimalNumber`. Ours, an addition to Apple's API so every constant has a textual form:
/// `NSUUID` (from its string), `NSData` (from Base64), `NSURL` (from its string). Swift spellings (`Date`,
/// `String`, …) are accepted too. A value that cannot be converted gives nil.
enum PredicateCast {
    private static let types: Set<String> = [
        "NSDate", "Date", "NSNumber", "NSString", "String", "NSDecimalNumber", "Decimal",
        "NSUUID", "UUID", "NSData", "Data", "NSURL", "URL",
    ]

    static func isSupported(_ type: String) -> Bool { types.contains(type) }

    static func cast(_ value: Any?, to type: String) -> Any? {
        guard let value = PredicateValues.unwrap(value) else { return nil }
        let number = PredicateNumber(value)
        let string = PredicateValues.string(value)
        switch type {
        case "NSDate", "Date":
            if let d = PredicateValues.date(value) { return d }
            if let n = number { return Date(timeIntervalSinceReferenceDate: n.doubleValue) }
            if let s = string, let seconds = Double(s) { return Date(timeIntervalSinceReferenceDate: seconds) }
            return nil
        case "NSNumber":
            if let n = number { return n.anyValue }
            if let d = PredicateValues.date(value) { return d.timeIntervalSinceReferenceDate }
            if let s = string?.trimmingCharacters(in: .whitespaces) {
                if let i = Int64(s) { return i }
                if let d = Double(s) { return d }
            }
            return nil
        case "NSDecimalNumber", "Decimal":
            if let n = number { return n.decimalValue }
            if let s = string { return Decimal(string: s) }
            return nil
        case "NSString", "String":
            if let s = string { return s }
            if let n = number { return "\(n.anyValue)" }
            if let u = value as? UUID { return u.uuidString }
            if let u = value as? URL { return u.absoluteString }
            return nil
        case "NSUUID", "UUID":
            if let u = value as? UUID { return u }
            return string.flatMap(UUID.init(uuidString:))
        case "NSData", "Data":
            if let d = value as? Data { return d }
            return string.flatMap { Data(base64Encoded: $0) }
        case "NSURL", "URL":
            if let u = value as? URL { return u }
            return string.flatMap { URL(string: $0) }
        default:
            return nil
        }
    }
}
