import CoreDataStoreKit

/// PostgreSQL's text format for the types the store uses, both ways, for a session set to UTC and ISO dates
/// (as `PostgreSQLConnection` sets every session).
///
/// Guarantees: formatting then parsing gives the value back (dates to the microsecond, which is what
/// `timestamptz` keeps); parsing never traps on text the server did not send, it returns nil.
enum PostgreSQLText {
    // MARK: Numbers

    /// An `int8`/`int4`/`int2` value read in place from libpq's NUL-terminated text (`-?[0-9]+`, no `String`
    /// made); nil for anything else, or a number outside `Int64`.
    static func int64(_ text: UnsafePointer<CChar>) -> Int64? {
        var pointer = text
        let isNegative = pointer.pointee == 45  // "-"
        if isNegative { pointer += 1 }
        guard pointer.pointee != 0 else { return nil }
        var magnitude: UInt64 = 0
        while pointer.pointee != 0 {
            let digit = UInt8(bitPattern: pointer.pointee) &- 48  // "0"
            guard digit < 10 else { return nil }
            let (shifted, shiftOverflow) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, addOverflow) = shifted.addingReportingOverflow(UInt64(digit))
            guard !shiftOverflow, !addOverflow else { return nil }
            magnitude = sum
            pointer += 1
        }
        if isNegative { return magnitude <= UInt64(Int64.max) + 1 ? Int64(truncatingIfNeeded: 0 &- magnitude) : nil }
        return magnitude <= UInt64(Int64.max) ? Int64(magnitude) : nil
    }

    static func int64(_ text: String) -> Int64? { Int64(text) }

    /// A `float8` or `float4` value; PostgreSQL spells the specials `Infinity`, `-Infinity`, `NaN`.
    static func double(_ text: String) -> Double? {
        switch text {
        case "Infinity": return .infinity
        case "-Infinity": return -.infinity
        case "NaN": return .nan
        default: return Double(text)
        }
    }

    /// A double as `float8` input text that reads back as exactly the same double.
    static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value < 0 ? "-Infinity" : "Infinity" }
        return "\(value)"
    }

    static func decimal(_ text: String) -> Decimal? {
        if text == "NaN" { return .nan }
        return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
    }

    // MARK: Binary

    /// `bytea` in the hex output format (`\x0a1b…`); the older escape format is read too.
    static func bytes(_ text: String) -> Data? {
        let utf8 = Array(text.utf8)
        if utf8.count >= 2, utf8[0] == 92, utf8[1] == 120 {  // \x
            guard utf8.count % 2 == 0 else { return nil }
            var data = Data(capacity: (utf8.count - 2) / 2)
            var index = 2
            while index < utf8.count {
                guard let high = hexValue(utf8[index]), let low = hexValue(utf8[index + 1]) else { return nil }
                data.append(high << 4 | low)
                index += 2
            }
            return data
        }
        return escapedBytes(utf8)
    }

    /// `bytea` input text in the hex format.
    static func format(_ data: Data) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8](repeating: 0, count: 2 + data.count * 2)
        text[0] = 92
        text[1] = 120
        for (index, byte) in data.enumerated() {
            text[2 + index * 2] = digits[Int(byte >> 4)]
            text[3 + index * 2] = digits[Int(byte & 15)]
        }
        return String(decoding: text, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 48...57: return byte - 48
        case 97...102: return byte - 87
        case 65...70: return byte - 55
        default: return nil
        }
    }

    /// The escape format: printable bytes as themselves, `\\` for a backslash, `\nnn` octal for the rest.
    private static func escapedBytes(_ utf8: [UInt8]) -> Data? {
        var data = Data()
        var index = 0
        while index < utf8.count {
            let byte = utf8[index]
            guard byte == 92 else { data.append(byte); index += 1; continue }
            if index + 1 < utf8.count, utf8[index + 1] == 92 { data.append(92); index += 2; continue }
            guard index + 3 < utf8.count else { return nil }
            let octal = utf8[(index + 1)...(index + 3)]
            guard octal.allSatisfy({ $0 >= 48 && $0 <= 55 }) else { return nil }
            let value = octal.reduce(0) { $0 * 8 + Int($1 - 48) }
            guard value <= 255 else { return nil }
            data.append(UInt8(value))
            index += 4
        }
        return data
    }

    // MARK: Dates

    /// Seconds from 1970-01-01 to 2001-01-01, Foundation's reference date.
    private static let referenceOffsetDays: Int64 = 11_323

    /// A date as `timestamptz` input text in UTC, rounded to the microsecond (what the type keeps).
    /// Returns nil for a date that is not finite or lies beyond PostgreSQL's range (4713 BC to 294276 AD).
    static func format(_ date: Date) -> String? {
        let seconds = date.timeIntervalSinceReferenceDate
        guard seconds.isFinite else { return nil }
        let micros = (seconds * 1_000_000).rounded()
        guard abs(micros) < 9.0e18 else { return nil }
        let total = Int64(micros)
        var days = total / 86_400_000_000
        var rest = total % 86_400_000_000
        if rest < 0 { rest += 86_400_000_000; days -= 1 }
        let (year, month, day) = civil(fromDays: days + referenceOffsetDays)
        guard year >= -4712, year <= 294_276 else { return nil }
        let secondOfDay = rest / 1_000_000
        let fraction = rest % 1_000_000
        let hour = secondOfDay / 3600, minute = secondOfDay / 60 % 60, second = secondOfDay % 60
        let era = year <= 0 ? " BC" : ""
        let shownYear = year <= 0 ? 1 - year : year
        return "\(pad(shownYear, 4))-\(pad(month, 2))-\(pad(day, 2)) \(pad(hour, 2)):\(pad(minute, 2)):\(pad(second, 2)).\(pad(fraction, 6))+00\(era)"
    }

    /// A `timestamptz` in the ISO output style (`2001-01-01 00:00:00.5+00`, `… BC`, `infinity`); nil when the
    /// text is not one.
    static func date(_ text: String) -> Date? {
        if text == "infinity" { return .distantFuture }
        if text == "-infinity" { return .distantPast }
        var rest = Substring(text)
        var bc = false
        if rest.hasSuffix(" BC") { bc = true; rest = rest.dropLast(3) }
        let parts = rest.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        let dateParts = parts[0].split(separator: "-", omittingEmptySubsequences: false)
        guard dateParts.count == 3, var year = Int64(dateParts[0]), let month = Int64(dateParts[1]), let day = Int64(dateParts[2]),
              (1...12).contains(month), (1...31).contains(day), (0...300_000).contains(year) else { return nil }
        if bc { year = 1 - year }
        var time = parts[1]
        var offsetSeconds: Int64 = 0
        if let sign = time.lastIndex(where: { $0 == "+" || $0 == "-" }) {
            let zone = time[time.index(after: sign)...].split(separator: ":")
            guard !zone.isEmpty, zone.count <= 3 else { return nil }
            var zoneSeconds: Int64 = 0
            for (index, piece) in zone.enumerated() {
                guard let value = Int64(piece), (0...99).contains(value) else { return nil }
                zoneSeconds += value * [3600, 60, 1][index]
            }
            offsetSeconds = time[sign] == "-" ? -zoneSeconds : zoneSeconds
            time = time[..<sign]
        }
        let clock = time.split(separator: ":", omittingEmptySubsequences: false)
        guard clock.count == 3, let hour = Int64(clock[0]), let minute = Int64(clock[1]), (0...24).contains(hour), (0...59).contains(minute) else { return nil }
        let secondParts = clock[2].split(separator: ".", omittingEmptySubsequences: false)
        guard let second = Int64(secondParts[0]), (0...60).contains(second), secondParts.count <= 2 else { return nil }
        var micros: Int64 = 0
        if secondParts.count == 2 {
            let digits = secondParts[1]
            guard !digits.isEmpty, digits.count <= 6, let value = Int64(digits) else { return nil }
            micros = value * Int64(pow(10, Double(6 - digits.count)))
        }
        let days = daysFromCivil(year: year, month: month, day: day) - referenceOffsetDays
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        let total = Double(seconds) * 1_000_000 + Double(micros)
        return Date(timeIntervalSinceReferenceDate: total / 1_000_000)
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (year 0 is 1 BC).
    static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The proleptic Gregorian date of a day count since 1970-01-01.
    static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
