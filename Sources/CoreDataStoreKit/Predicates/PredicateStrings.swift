/// String operations of the predicate language: `[c]`/`[d]` folding, ordering, `LIKE` and `MATCHES`.
///
/// Guarantees: linear-time `LIKE` (no backtracking blow-up), regular expressions compiled once per pattern
/// and options (a bounded, lock-protected cache), an invalid regular expression matches nothing.
///
/// An addition to Apple's API: ``fold(_:_:)`` and ``matches(_:_:_:)`` are public so that a store's own query
/// language (the SQLite store's SQL functions) computes exactly what the evaluator computes.
public enum PredicateStrings {
    /// Folds a string for comparison: `[c]` is Unicode case folding, `[d]` strips diacritics.
    public static func fold(_ s: String, _ options: PredicateComparison.Options) -> String {
        var folding: String.CompareOptions = []
        if options.contains(.caseInsensitive) { folding.insert(.caseInsensitive) }
        if options.contains(.diacriticInsensitive) { folding.insert(.diacriticInsensitive) }
        if folding.isEmpty { return s }
        // ASCII has no diacritics, and its case folding is lowercasing: skip Foundation's Unicode folding.
        if s.utf8.allSatisfy({ $0 < 0x80 }) {
            return folding.contains(.caseInsensitive) ? s.lowercased() : s
        }
        return s.folding(options: folding, locale: nil)
    }

    /// Orders two strings after folding (by Unicode scalar values, as `compare:` without options does).
    static func compare(_ a: String, _ b: String, _ options: PredicateComparison.Options) -> ComparisonResult {
        compareFolded(fold(a, options), fold(b, options))
    }

    /// Orders two strings already folded (by Unicode scalar values; equal strings are the same).
    static func compareFolded(_ x: String, _ y: String) -> ComparisonResult {
        if x == y { return .orderedSame }
        return x.unicodeScalars.lexicographicallyPrecedes(y.unicodeScalars) ? .orderedAscending : .orderedDescending
    }

    /// An empty prefix, suffix or part never matches, as with `NSString`.
    static func beginsWith(_ s: String, _ prefix: String, _ options: PredicateComparison.Options) -> Bool {
        let p = fold(prefix, options)
        return !p.isEmpty && fold(s, options).hasPrefix(p)
    }

    static func endsWith(_ s: String, _ suffix: String, _ options: PredicateComparison.Options) -> Bool {
        let p = fold(suffix, options)
        return !p.isEmpty && fold(s, options).hasSuffix(p)
    }

    static func contains(_ s: String, _ part: String, _ options: PredicateComparison.Options) -> Bool {
        let p = fold(part, options)
        if p.isEmpty { return false }
        return fold(s, options).contains(p)
    }

    /// `LIKE`: the whole string matches the pattern; `*` matches any run of characters, `?` one character,
    /// and a backslash makes the next pattern character literal.
    static func like(_ s: String, _ pattern: String, _ options: PredicateComparison.Options) -> Bool {
        let text = Array(fold(s, options))
        enum Token: Equatable { case literal(Character), one, any }
        var tokens: [Token] = []
        var escaping = false
        for c in fold(pattern, options) {
            if escaping {
                tokens.append(.literal(c))
                escaping = false
            } else if c == "\\" {
                escaping = true
            } else if c == "*" {
                if tokens.last != .any { tokens.append(.any) }
            } else if c == "?" {
                tokens.append(.one)
            } else {
                tokens.append(.literal(c))
            }
        }
        if escaping { tokens.append(.literal("\\")) }
        // Greedy matching with one backtrack point: linear in practice, quadratic at worst.
        var t = 0
        var p = 0
        var starP = -1
        var starT = 0
        while t < text.count {
            if p < tokens.count {
                switch tokens[p] {
                case .any:
                    starP = p
                    starT = t
                    p += 1
                    continue
                case .one:
                    t += 1
                    p += 1
                    continue
                case .literal(let c) where c == text[t]:
                    t += 1
                    p += 1
                    continue
                default:
                    break
                }
            }
            if starP >= 0 {
                p = starP + 1
                starT += 1
                t = starT
            } else {
                return false
            }
        }
        while p < tokens.count, tokens[p] == .any { p += 1 }
        return p == tokens.count
    }

    /// `MATCHES`: the whole string matches the regular expression (ICU syntax, as `NSRegularExpression`);
    /// `[c]` matches case-insensitively, `[d]` strips diacritics from both string and pattern.
    public static func matches(_ s: String, _ pattern: String, _ options: PredicateComparison.Options) -> Bool {
        let subject = options.contains(.diacriticInsensitive) ? fold(s, [.diacriticInsensitive]) : s
        let source = options.contains(.diacriticInsensitive) ? fold(pattern, [.diacriticInsensitive]) : pattern
        guard let regex = RegexCache.shared.regex(source, caseInsensitive: options.contains(.caseInsensitive)) else {
            return false
        }
        let range = NSRange(subject.startIndex..<subject.endIndex, in: subject)
        return regex.firstMatch(in: subject, options: [.anchored], range: range).map { $0.range == range } ?? false
    }
}

/// Compiled regular expressions by pattern and case option; forgets everything when it grows past its bound.
///
/// `@unchecked Sendable`: `entries` is read and written only under `lock`; a compiled `NSRegularExpression` is
/// immutable, and Foundation documents it safe to match on several threads at once.
final class RegexCache: @unchecked Sendable {
    static let shared = RegexCache()
    private let lock = NSLock()
    private var entries: [String: NSRegularExpression?] = [:]
    private let bound = 256

    func regex(_ pattern: String, caseInsensitive: Bool) -> NSRegularExpression? {
        let key = (caseInsensitive ? "i:" : "s:") + pattern
        lock.lock()
        if let cached = entries[key] {
            lock.unlock()
            return cached
        }
        lock.unlock()
        // Wrapped so the whole subject must match, whatever alternation the pattern uses.
        let compiled = try? NSRegularExpression(
            pattern: "(?:" + pattern + ")\\z", options: caseInsensitive ? [.caseInsensitive] : [])
        lock.lock()
        if entries.count >= bound { entries.removeAll() }
        entries[key] = compiled
        lock.unlock()
        return compiled
    }
}
