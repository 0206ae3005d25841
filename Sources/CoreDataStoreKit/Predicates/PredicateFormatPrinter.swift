/// The canonical format of predicate trees: the string `predicateFormat` returns.
///
/// Guarantees: parsing ``PredicateNode/format`` gives back an equal tree, except for ``PredicateNode/block(_:)``
/// nodes, object and opaque constants (printed as a description that does not parse), and NaN. Constants
/// without a literal form print as `CAST(…)`: dates as seconds since 2001-01-01 (as Apple prints them),
/// decimals as strings, UUIDs, URLs and Base64 data as ours.
extension PredicateNode {
    /// The canonical format string, such as `name BEGINSWITH[c] "a" AND (age > 3 OR age < 1)`.
    public var format: String {
        switch self {
        case .constant(let b):
            return b ? "TRUEPREDICATE" : "FALSEPREDICATE"
        case .comparison(let c):
            return c.format
        case .and(let items):
            if items.isEmpty { return "TRUEPREDICATE" }
            return items.map { $0.formatAsOperand }.joined(separator: " AND ")
        case .or(let items):
            if items.isEmpty { return "FALSEPREDICATE" }
            return items.map { $0.formatAsOperand }.joined(separator: " OR ")
        case .not(let inner):
            return "NOT " + inner.formatAsOperand
        case .block:
            return "BLOCKPREDICATE"
        }
    }

    private var formatAsOperand: String {
        switch self {
        case .and, .or: return "(" + format + ")"
        default: return format
        }
    }
}

extension PredicateComparison {
    /// The canonical format of one comparison: `ANY items.price >[c] 5`.
    public var format: String {
        let prefix = modifier == .direct ? "" : modifier.rawValue + " "
        return prefix + lhs.format + " " + self.operator.rawValue + options.formatSuffix + " " + rhs.format
    }
}

extension PredicateOperand {
    /// The canonical format of an expression.
    public var format: String {
        switch self {
        case .constant(let c):
            return c.format
        case .evaluatedObject:
            return "SELF"
        case .keyPath(let path):
            return path.map(Self.formatKey).joined(separator: ".")
        case .member(let base, let path):
            return base.formatAsPostfixBase + "." + path.map(Self.formatKey).joined(separator: ".")
        case .variable(let name):
            return "$" + name
        case .aggregate(let op, let inner):
            if op != .count, case .keyPath(let path) = inner, path.count > 1 {
                // Apple's documented spelling: items.@sum.price
                return Self.formatKey(path[0]) + "." + op.rawValue + "."
                    + path.dropFirst().map(Self.formatKey).joined(separator: ".")
            }
            if case .evaluatedObject = inner { return "SELF." + op.rawValue }
            return inner.formatAsPostfixBase + "." + op.rawValue
        case .subquery(let collection, let variable, let predicate):
            return "SUBQUERY(" + collection.format + ", $" + variable + ", " + predicate.format + ")"
        case .array(let items):
            return "{" + items.map { $0.format }.joined(separator: ", ") + "}"
        case .arithmetic(let op, let a, let b):
            return a.formatAsArithmeticOperand + " " + op.rawValue + " " + b.formatAsArithmeticOperand
        case .negate(let inner):
            return "-" + inner.formatAsArithmeticOperand
        case .cast(let inner, let type):
            return "CAST(" + inner.format + ", " + PredicateConstant.quote(type) + ")"
        case .index(let base, let index):
            let inside: String
            switch index {
            case .first: inside = "FIRST"
            case .last: inside = "LAST"
            case .size: inside = "SIZE"
            case .position(let i): inside = String(i)
            }
            return base.formatAsPostfixBase + "[" + inside + "]"
        case .function(let target, let selector, let arguments):
            return "FUNCTION(" + ([target.format, PredicateConstant.quote(selector)] + arguments.map(\.format)).joined(separator: ", ") + ")"
        case .fetch(let request, let context, let countOnly):
            return "FETCH(" + request.format + ", " + context.format + ", " + (countOnly ? "YES" : "NO") + ")"
        case .builtInFunction(let name, let arguments):
            // Apple's spelling: the selector, colons included, then the arguments (`count:(items)`, `now()`).
            let escape = PredicateFormatParser.reservedWords.contains(name.uppercased()) ? "#" : ""
            return escape + name + "(" + arguments.map(\.format).joined(separator: ", ") + ")"
        case .ternary(let predicate, let whenTrue, let whenFalse):
            return "TERNARY(" + predicate.format + ", " + whenTrue.format + ", " + whenFalse.format + ")"
        case .anyKey:
            return "ANYKEY"
        case .setOperation(let op, let left, let right):
            // Left-associative: only a set operation on the right needs parentheses to keep the tree.
            let rightText: String
            if case .setOperation = right { rightText = "(" + right.format + ")" } else { rightText = right.format }
            return left.format + " " + op.rawValue + " " + rightText
        }
    }

    private var formatAsArithmeticOperand: String {
        switch self {
        case .arithmetic, .setOperation: return "(" + format + ")"
        default: return format
        }
    }

    private var formatAsPostfixBase: String {
        switch self {
        case .arithmetic, .negate, .setOperation: return "(" + format + ")"
        case .constant(let c) where c.format.hasPrefix("-"): return "(" + format + ")"
        default: return format
        }
    }

    /// A key as written in a format: plain when it is a word, `#key` when it is a reserved word.
    static func formatKey(_ key: String) -> String {
        PredicateFormatParser.reservedWords.contains(key.uppercased()) ? "#" + key : key
    }
}

extension PredicateConstant {
    /// The canonical format of a constant: `"text"`, `12`, `1.5`, `TRUE`, `nil`, `{1, 2}`, `CAST(…)`.
    public var format: String {
        switch self {
        case .null: return "nil"
        case .bool(let b): return b ? "TRUE" : "FALSE"
        case .integer(let i): return String(i)
        case .double(let d):
            if d.isFinite { return "\(d)" }
            return "CAST(" + Self.quote(d.isNaN ? "nan" : (d > 0 ? "inf" : "-inf")) + ", \"NSNumber\")"
        case .decimal(let d): return "CAST(" + Self.quote("\(d)") + ", \"NSDecimalNumber\")"
        case .string(let s): return Self.quote(s)
        case .date(let d): return "CAST(\(d.timeIntervalSinceReferenceDate), \"NSDate\")"
        case .data(let d): return "CAST(" + Self.quote(d.base64EncodedString()) + ", \"NSData\")"
        case .uuid(let u): return "CAST(" + Self.quote(u.uuidString) + ", \"NSUUID\")"
        case .url(let u): return "CAST(" + Self.quote(u.absoluteString) + ", \"NSURL\")"
        case .collection(let items): return "{" + items.map { $0.format }.joined(separator: ", ") + "}"
        case .object(let o): return "<\(o.object)>"
        case .opaque(let o): return "<\(o.value)>"
        }
    }

    /// A double-quoted string literal with backslash escapes, as the format parser reads it back.
    public static func quote(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            case "\0": out += "\\0"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    out += String(format: "\\u%04X", scalar.value)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
