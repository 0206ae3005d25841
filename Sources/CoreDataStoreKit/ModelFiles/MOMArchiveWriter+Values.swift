/// Values (default values, userInfo entries, predicate constants) as Apple's `NSKeyedArchiver` stores them, so
/// that `KeyedArchive.plainValue` and Apple's unarchiver read them back.
extension MOMArchiveWriter.Builder {
    /// A default or userInfo value: strings, numbers, Booleans, dates, data, UUIDs, URLs, decimals, and arrays
    /// and dictionaries of them.
    /// - Throws: `refuse(reason)` for a value of another kind.
    package mutating func plainValue(_ value: Any, refuse: (String) -> NSError) throws -> Value {
        switch value {
        case let text as String: return string(text)
        case let flag as Bool: return .bool(flag)
        case let number as Int: return .integer(Int64(number))
        case let number as Int16: return .integer(Int64(number))
        case let number as Int32: return .integer(Int64(number))
        case let number as Int64: return .integer(number)
        case let number as Double: return .real(number)
        case let number as Float: return .real(Double(number))
        case let date as Date: return self.date(date)
        case let data as Data: return bytes(data)
        case let uuid as UUID: return self.uuid(uuid)
        case let url as URL: return self.url(url)
        case let decimal as Decimal: return decimalNumber(decimal)
        case let number as NSNumber:
            let double = number.doubleValue
            if let integer = Int64(exactly: double) { return .integer(integer) }
            return .real(double)
        case let list as [Any]:
            return array(try list.map { try plainValue($0, refuse: refuse) })
        case let dictionary as [AnyHashable: Any]:
            var entries: [(Value, Value)] = []
            for (key, item) in dictionary.sorted(by: { "\($0.key.base)" < "\($1.key.base)" }) {
                entries.append((try plainValue(key.base, refuse: refuse), try plainValue(item, refuse: refuse)))
            }
            return object("NSDictionary", [("NS.keys", .array(entries.map(\.0))), ("NS.objects", .array(entries.map(\.1)))])
        default:
            throw refuse("a value of type \(type(of: value)) is not written by the .mom writer")
        }
    }

    /// An `NSDate`: seconds since 2001-01-01 under `NS.time`.
    package mutating func date(_ date: Date) -> Value {
        object("NSDate", [("NS.time", .real(date.timeIntervalSinceReferenceDate))])
    }

    /// An `NSUUID`: its 16 bytes under `NS.uuidbytes`.
    package mutating func uuid(_ uuid: UUID) -> Value {
        object("NSUUID", [("NS.uuidbytes", .data(withUnsafeBytes(of: uuid.uuid) { Data($0) }))])
    }

    /// An `NSURL`: no base, the whole address under `NS.relative`.
    package mutating func url(_ url: URL) -> Value {
        object("NSURL", [("NS.base", .uid(0)), ("NS.relative", string(url.absoluteString))])
    }

    /// An `NSDecimalNumber` of any precision, with the keys Apple's `NSDecimalNumber` archives: `NS.exponent`,
    /// `NS.length` (how many 16-bit words of the mantissa are used), `NS.negative`, `NS.compact` (no trailing
    /// decimal zero left in the mantissa), `NS.mantissa.bo` = 1 (words little-endian) and `NS.mantissa`: all
    /// eight words, 16 bytes, the size Apple's unarchiver requires. A NaN is written as Apple's (length 0,
    /// negative).
    package mutating func decimalNumber(_ decimal: Decimal) -> Value {
        let parts = Self.decimalParts(decimal)
        let bytes = Data(parts.words.flatMap { [UInt8(truncatingIfNeeded: $0), UInt8(truncatingIfNeeded: $0 >> 8)] })
        let compact = parts.length == 0 || parts.lastDigit != 0
        return object("NSDecimalNumber", superclasses: ["NSNumber", "NSValue"], [
            ("NS.exponent", .integer(Int64(parts.exponent))), ("NS.length", .integer(Int64(parts.length))),
            ("NS.negative", .bool(parts.negative)), ("NS.compact", .bool(compact)),
            ("NS.mantissa.bo", .integer(1)), ("NS.mantissa", .data(bytes)),
        ])
    }

    /// A decimal's mantissa as eight 16-bit words (least significant first), its exponent, sign, the number of
    /// words in use and its last decimal digit (`Decimal` keeps its own fields internal, so they are rebuilt
    /// from `significand`, a whole number of at most 38 digits).
    static func decimalParts(_ decimal: Decimal) -> (words: [UInt16], exponent: Int, negative: Bool, length: Int, lastDigit: Int) {
        if decimal.isNaN { return (Array(repeating: 0, count: 8), 0, true, 0, 0) }
        var words = [UInt16](repeating: 0, count: 8)
        let digits = "\(decimal.significand.magnitude)".compactMap(\.wholeNumberValue)
        for digit in digits {
            var carry = UInt32(digit)
            for index in words.indices {
                let product = UInt32(words[index]) * 10 + carry
                words[index] = UInt16(truncatingIfNeeded: product)
                carry = product >> 16
            }
        }
        guard let top = words.lastIndex(where: { $0 != 0 }) else { return (words, 0, false, 0, 0) }
        return (words, decimal.exponent, decimal.sign == .minus, top + 1, digits.last ?? 0)
    }
}
