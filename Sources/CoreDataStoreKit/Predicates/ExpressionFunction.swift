import Foundation

/// The functions of Apple's `NSExpression(forFunction:arguments:)`, by Apple's names (`sum:`, `add:to:`, …),
/// evaluated on plain values. An addition to Apple's API, used by `NSExpression` and by fetches with
/// `NSExpressionDescription`.
///
/// Guarantees: never traps. A value of the wrong kind (a string for `sqrt:`, a division by zero of integers)
/// gives nil; an unknown name is reported by ``isKnown(_:)`` so callers can refuse it before evaluating.
public enum ExpressionFunction {
    /// The functions that reduce a collection to one value. In a fetch with `propertiesToGroupBy`, they reduce
    /// the rows of each group.
    public static let aggregates: Set<String> = ["sum:", "count:", "min:", "max:", "average:", "median:", "mode:", "stddev:"]

    private static let unaryNumeric: Set<String> = ["sqrt:", "log:", "ln:", "exp:", "ceiling:", "floor:", "abs:", "trunc:"]
    private static let binaryNumeric: Set<String> = ["add:to:", "from:subtract:", "multiply:by:", "divide:by:", "modulus:by:", "raise:toPower:"]
    private static let other: Set<String> = ["uppercase:", "lowercase:", "now", "noindex:", "length:", "onesComplement:"]
    /// Apple's bitwise functions, on whole numbers.
    private static let bitwise: Set<String> = ["bitwiseAnd:with:", "bitwiseOr:with:", "bitwiseXor:with:", "leftshift:by:", "rightshift:by:"]

    /// Whether `name` is a function this library evaluates.
    public static func isKnown(_ name: String) -> Bool {
        aggregates.contains(name) || unaryNumeric.contains(name) || binaryNumeric.contains(name) || other.contains(name)
            || bitwise.contains(name)
    }

    /// The number of arguments `name` takes, or nil for an unknown name.
    public static func arity(_ name: String) -> Int? {
        if name == "now" { return 0 }
        if binaryNumeric.contains(name) || bitwise.contains(name) { return 2 }
        return isKnown(name) ? 1 : nil
    }

    /// Applies a function to its evaluated arguments. An aggregate's single argument is a collection (an array,
    /// a set, an ordered set); a scalar counts as a collection of one.
    public static func apply(_ name: String, _ arguments: [Any?]) -> Any? {
        if aggregates.contains(name) {
            guard let first = arguments.first else { return nil }
            guard let value = PredicateValues.unwrap(first) else { return aggregate(name, over: []) }
            return aggregate(name, over: PredicateValues.elements(of: value) ?? [value])
        }
        switch name {
        case "now":
            return Date()
        case "noindex:":
            return arguments.first ?? nil
        case "uppercase:":
            return arguments.first.flatMap { PredicateValues.string($0) }.map { $0.uppercased() }
        case "lowercase:":
            return arguments.first.flatMap { PredicateValues.string($0) }.map { $0.lowercased() }
        case "length:":
            // The string's length in UTF-16 units, as `NSString.length`.
            return arguments.first.flatMap { PredicateValues.string($0) }.map { Int64($0.utf16.count) }
        case "onesComplement:":
            return number(arguments.first ?? nil)?.integerValue.map { ~$0 }
        default:
            break
        }
        if bitwise.contains(name), arguments.count == 2 {
            guard let a = number(arguments[0])?.integerValue, let b = number(arguments[1])?.integerValue else { return nil }
            switch name {
            case "bitwiseAnd:with:": return a & b
            case "bitwiseOr:with:": return a | b
            case "bitwiseXor:with:": return a ^ b
            // Shifts beyond the width give 0 (or -1 for a negative number shifted right), never a trap.
            case "leftshift:by:": return b < 0 ? nil : a << b
            default: return b < 0 ? nil : a >> b
            }
        }
        if unaryNumeric.contains(name) {
            guard let number = number(arguments.first ?? nil) else { return nil }
            return unary(name, number)
        }
        if binaryNumeric.contains(name), arguments.count == 2 {
            guard let a = number(arguments[0]), let b = number(arguments[1]) else {
                // Dates move by seconds, as in predicate arithmetic.
                switch name {
                case "add:to:": return PredicateEvaluator.arithmetic(.add, arguments[0], arguments[1])
                case "from:subtract:": return PredicateEvaluator.arithmetic(.subtract, arguments[0], arguments[1])
                default: return nil
                }
            }
            return binary(name, a, b)
        }
        return nil
    }

    /// Reduces values with an aggregate function; nil values are skipped (`count:` counts the non-nil ones).
    /// `sum:` of nothing is 0, `count:` of nothing is 0, the others give nil.
    public static func aggregate(_ name: String, over values: [Any?]) -> Any? {
        let present = values.compactMap { PredicateValues.unwrap($0) }
        switch name {
        case "count:":
            return Int64(present.count)
        case "sum:":
            return PredicateEvaluator.aggregate(.sum, present)
        case "average:":
            return present.isEmpty ? nil : PredicateEvaluator.aggregate(.average, present)
        case "min:":
            return present.isEmpty ? nil : PredicateEvaluator.aggregate(.min, present)
        case "max:":
            return present.isEmpty ? nil : PredicateEvaluator.aggregate(.max, present)
        case "median:":
            let sorted = present.compactMap(number).map(\.doubleValue).sorted()
            guard !sorted.isEmpty else { return nil }
            let middle = sorted.count / 2
            return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
        case "mode:":
            // The most frequent value; the first to reach that frequency wins a tie.
            var counts: [AnyHashable: Int] = [:]
            var best: (value: AnyHashable, count: Int)?
            for case let value as AnyHashable in present {
                let count = (counts[value] ?? 0) + 1
                counts[value] = count
                if count > (best?.count ?? 0) { best = (value, count) }
            }
            return best?.value.base
        case "stddev:":
            // The population standard deviation, as Apple's.
            let numbers = present.compactMap(number).map(\.doubleValue)
            guard !numbers.isEmpty else { return nil }
            let mean = numbers.reduce(0, +) / Double(numbers.count)
            let variance = numbers.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(numbers.count)
            return variance.squareRoot()
        default:
            return nil
        }
    }

    private static func number(_ value: Any?) -> PredicateNumber? {
        PredicateValues.unwrap(value).flatMap(PredicateNumber.init)
    }

    private static func unary(_ name: String, _ number: PredicateNumber) -> Any? {
        let d = number.doubleValue
        switch name {
        case "abs:":
            if let i = number.integerValue { return i == .min ? nil : Swift.abs(i) }
            if case .decimal(let x) = number { return x < 0 ? -x : x }
            return Swift.abs(d)
        case "sqrt:": return d < 0 ? nil : d.squareRoot()
        case "log:": return d <= 0 ? nil : Foundation.log10(d)
        case "ln:": return d <= 0 ? nil : Foundation.log(d)
        case "exp:": return Foundation.exp(d)
        case "ceiling:": return number.integerValue.map { Double($0) } ?? d.rounded(.up)
        case "floor:": return number.integerValue.map { Double($0) } ?? d.rounded(.down)
        case "trunc:": return number.integerValue.map { Double($0) } ?? d.rounded(.towardZero)
        default: return nil
        }
    }

    private static func binary(_ name: String, _ a: PredicateNumber, _ b: PredicateNumber) -> Any? {
        switch name {
        case "add:to:": return PredicateNumber.apply(.add, a, b)?.anyValue
        case "from:subtract:": return PredicateNumber.apply(.subtract, a, b)?.anyValue
        case "multiply:by:": return PredicateNumber.apply(.multiply, a, b)?.anyValue
        case "divide:by:": return PredicateNumber.apply(.divide, a, b)?.anyValue
        case "raise:toPower:": return PredicateNumber.apply(.power, a, b)?.anyValue
        case "modulus:by:":
            if let x = a.integerValue, let y = b.integerValue { return y == 0 || (x == .min && y == -1) ? nil : x % y }
            let y = b.doubleValue
            return y == 0 ? nil : a.doubleValue.truncatingRemainder(dividingBy: y)
        default: return nil
        }
    }
}
