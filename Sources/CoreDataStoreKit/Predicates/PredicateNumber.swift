/// A number read from any of the numeric types the evaluator meets, for comparison and arithmetic by value.
///
/// Covers `Bool`, every fixed-width integer, `Double`, `Float`, `Decimal`, `NSNumber` and `NSDecimalNumber`.
/// Comparison and arithmetic never trap: integer overflow falls back to `Double`.
enum PredicateNumber: Hashable {
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case decimal(Decimal)

    /// Reads a number, or nil when the value is not numeric (strings are not numbers).
    init?(_ value: Any) {
        // Compare the dynamic type first: a failed `as?` cast between unrelated types is slow.
        let type = Swift.type(of: value)
        if type == Int64.self { self = .integer(value as! Int64) }
        else if type == Int.self { self = .integer(Int64(value as! Int)) }
        else if type == Double.self { self = .double(value as! Double) }
        else if type == Bool.self { self = .bool(value as! Bool) }
        else if type == Int32.self { self = .integer(Int64(value as! Int32)) }
        else if type == Int16.self { self = .integer(Int64(value as! Int16)) }
        else if type == Float.self { self = .double(Double(value as! Float)) }
        else if type == Decimal.self { self = .decimal(value as! Decimal) }
        else if type == Int8.self { self = .integer(Int64(value as! Int8)) }
        else if type == UInt.self { self = Self.unsigned(UInt64(value as! UInt)) }
        else if type == UInt64.self { self = Self.unsigned(value as! UInt64) }
        else if type == UInt32.self { self = .integer(Int64(value as! UInt32)) }
        else if type == UInt16.self { self = .integer(Int64(value as! UInt16)) }
        else if type == UInt8.self { self = .integer(Int64(value as! UInt8)) }
        else if PredicateValues.isPlainValueType(type) || !(type is AnyClass) { return nil }
        else if let v = value as? NSDecimalNumber { self = .decimal(v.decimalValue) }
        else if let v = value as? NSNumber {
            switch String(cString: v.objCType) {
            case "f", "d": self = .double(v.doubleValue)
            case "Q", "L": self = Self.unsigned(v.uint64Value)
            default: self = .integer(v.int64Value)  // "c" (NSNumber(value: Bool)) included: it compares by value
            }
        } else {
            return nil
        }
    }

    private static func unsigned(_ v: UInt64) -> PredicateNumber {
        if v <= UInt64(Int64.max) { return .integer(Int64(v)) }
        return .decimal(Decimal(v))
    }

    /// The value as a `Double` (possibly rounded).
    var doubleValue: Double {
        switch self {
        case .bool(let b): return b ? 1 : 0
        case .integer(let i): return Double(i)
        case .double(let d): return d
        case .decimal(let d): return NSDecimalNumber(decimal: d).doubleValue
        }
    }

    /// The value as a `Decimal`, when it has one (not for NaN or infinities).
    var decimalValue: Decimal? {
        switch self {
        case .bool(let b): return b ? 1 : 0
        case .integer(let i): return Decimal(i)
        case .double(let d): return d.isFinite && Swift.abs(d) < 1e120 ? Decimal(d) : nil
        case .decimal(let d): return d
        }
    }

    /// The value as an integer when it is one exactly.
    var integerValue: Int64? {
        switch self {
        case .bool(let b): return b ? 1 : 0
        case .integer(let i): return i
        case .double, .decimal: return nil
        }
    }

    /// The value in the plain Swift type the evaluator hands out.
    var anyValue: Any {
        switch self {
        case .bool(let b): return b
        case .integer(let i): return i
        case .double(let d): return d
        case .decimal(let d): return d
        }
    }

    /// Compares by value across representations. Nil when unordered (a NaN is involved).
    static func compare(_ a: PredicateNumber, _ b: PredicateNumber) -> ComparisonResult? {
        if let x = a.integerValue, let y = b.integerValue {
            return x < y ? .orderedAscending : (x > y ? .orderedDescending : .orderedSame)
        }
        let aIsDecimal: Bool
        let bIsDecimal: Bool
        if case .decimal = a { aIsDecimal = true } else { aIsDecimal = false }
        if case .decimal = b { bIsDecimal = true } else { bIsDecimal = false }
        if aIsDecimal || bIsDecimal, let x = a.decimalValue, let y = b.decimalValue {
            if x.isNaN || y.isNaN { return nil }
            return x < y ? .orderedAscending : (x > y ? .orderedDescending : .orderedSame)
        }
        // An integer against a double: compare exactly when the double is integral and in range.
        if let x = a.integerValue, case .double(let y) = b {
            return compareIntegerToDouble(x, y)
        }
        if case .double(let x) = a, let y = b.integerValue {
            return compareIntegerToDouble(y, x).map(reversed)
        }
        let x = a.doubleValue
        let y = b.doubleValue
        if x.isNaN || y.isNaN { return nil }
        return x < y ? .orderedAscending : (x > y ? .orderedDescending : .orderedSame)
    }

    private static func compareIntegerToDouble(_ x: Int64, _ y: Double) -> ComparisonResult? {
        if y.isNaN { return nil }
        if y >= 9_223_372_036_854_775_808.0 { return .orderedAscending }
        if y < -9_223_372_036_854_775_808.0 { return .orderedDescending }
        let whole = y.rounded(.down)
        let w = Int64(whole)
        if x < w { return .orderedAscending }
        if x > w { return .orderedDescending }
        return whole == y ? .orderedSame : .orderedAscending
    }

    private static func reversed(_ r: ComparisonResult) -> ComparisonResult {
        switch r {
        case .orderedAscending: return .orderedDescending
        case .orderedDescending: return .orderedAscending
        case .orderedSame: return .orderedSame
        }
    }

    /// Applies an arithmetic operator. Integers stay integers while exact and in range, then fall back to
    /// `Double`; division by integer zero gives nil, as does anything NaN-producing for decimals.
    static func apply(_ op: PredicateOperand.ArithmeticOperator, _ a: PredicateNumber, _ b: PredicateNumber) -> PredicateNumber? {
        if let x = a.integerValue, let y = b.integerValue {
            switch op {
            case .add:
                let (r, o) = x.addingReportingOverflow(y)
                if !o { return .integer(r) }
            case .subtract:
                let (r, o) = x.subtractingReportingOverflow(y)
                if !o { return .integer(r) }
            case .multiply:
                let (r, o) = x.multipliedReportingOverflow(by: y)
                if !o { return .integer(r) }
            case .divide:
                if y == 0 { return nil }
                let (remainder, remainderOverflow) = x.remainderReportingOverflow(dividingBy: y)
                if !remainderOverflow && remainder == 0 {
                    let (r, o) = x.dividedReportingOverflow(by: y)
                    if !o { return .integer(r) }
                }
                return .double(Double(x) / Double(y))
            case .power:
                if y >= 0 && y < 64 {
                    var result: Int64 = 1
                    var overflow = false
                    for _ in 0..<y {
                        let (r, o) = result.multipliedReportingOverflow(by: x)
                        if o { overflow = true; break }
                        result = r
                    }
                    if !overflow { return .integer(result) }
                }
            }
        }
        var isDecimal = false
        if case .decimal = a { isDecimal = true }
        if case .decimal = b { isDecimal = true }
        if isDecimal, op != .power, let x = a.decimalValue, let y = b.decimalValue {
            switch op {
            case .add: return .decimal(x + y)
            case .subtract: return .decimal(x - y)
            case .multiply: return .decimal(x * y)
            case .divide: return y.isZero ? nil : .decimal(x / y)
            case .power: break
            }
        }
        let x = a.doubleValue
        let y = b.doubleValue
        switch op {
        case .add: return .double(x + y)
        case .subtract: return .double(x - y)
        case .multiply: return .double(x * y)
        case .divide: return .double(x / y)
        case .power: return .double(Foundation.pow(x, y))
        }
    }

    /// The negation, never trapping (`-Int64.min` becomes a `Double`).
    var negated: PredicateNumber {
        switch self {
        case .bool(let b): return .integer(b ? -1 : 0)
        case .integer(let i): return i == Int64.min ? .double(-Double(i)) : .integer(-i)
        case .double(let d): return .double(-d)
        case .decimal(let d): return .decimal(-d)
        }
    }
}
