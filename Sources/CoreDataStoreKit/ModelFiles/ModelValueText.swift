/// Converts attribute values to and from the text Xcode writes in `defaultValueString`.
package enum ModelValueText {
    /// The value `text` denotes for an attribute of `type`, in the attribute's Swift storage type; nil when
    /// the text is not a valid value of that type, or the type has no text form (binary, transformable).
    static func value(_ text: String, type: NSAttributeType) -> Any? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        switch type {
        case .integer16AttributeType: return integer(trimmed).flatMap { Int16(exactly: $0) }
        case .integer32AttributeType: return integer(trimmed).flatMap { Int32(exactly: $0) }
        case .integer64AttributeType: return integer(trimmed)
        case .decimalAttributeType:
            guard Double(trimmed) != nil else { return nil }
            return Decimal(string: trimmed, locale: Locale(identifier: "en_US_POSIX"))
        case .doubleAttributeType: return Double(trimmed)
        case .floatAttributeType: return Float(trimmed)
        case .booleanAttributeType:
            switch trimmed.uppercased() {
            case "YES", "TRUE", "1": return true
            case "NO", "FALSE", "0": return false
            default: return nil
            }
        case .stringAttributeType: return text
        case .UUIDAttributeType: return UUID(uuidString: trimmed)
        case .URIAttributeType: return URL(string: trimmed)
        case .dateAttributeType:
            if let seconds = Double(trimmed) { return Date(timeIntervalSinceReferenceDate: seconds) }
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "UTC")
            for format in ["yyyy-MM-dd HH:mm:ss Z", "yyyy-MM-dd HH:mm:ss", "yyyy-MM-dd HH:mm", "yyyy-MM-dd"] {
                formatter.dateFormat = format
                if let date = formatter.date(from: trimmed) { return date }
            }
            return nil
        default: return nil
        }
    }

    /// An integer written in decimal, or as a whole floating-point number ("3.0").
    private static func integer(_ text: String) -> Int64? {
        if let value = Int64(text) { return value }
        if let value = Double(text), value.rounded() == value { return Int64(exactly: value) }
        return nil
    }

    /// `text` as a double-quoted predicate string literal.
    package static func quoted(_ text: String) -> String {
        var out = "\""
        for character in text {
            switch character {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            default: out.append(character)
            }
        }
        return out + "\""
    }
}
