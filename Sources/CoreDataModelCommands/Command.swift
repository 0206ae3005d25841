import Foundation

/// One subcommand of the `coredata` tool (and of `coredata-modelc`, the build plugin's tool, for the commands
/// a build runs). To add a command, write a type conforming to this in its own file and list it in the tool's
/// `CommandLineTool`. `package` access: the two executables and their tests share these types; they are not API.
package protocol Command {
    /// The word that selects the command (`coredata <name> …`).
    static var name: String { get }
    /// One line for `coredata help`.
    static var summary: String { get }
    /// The usage text shown by `coredata help <name>` and on a usage error.
    static var usage: String { get }
    /// Runs the command with the arguments after its name; throws to report failure.
    static func run(_ arguments: [String]) throws
}

/// A mistake in the command line; the tool prints the message and the command's usage.
package struct UsageError: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}

/// Arguments split into positional ones, `--option value` (or `--option=value`) pairs and flags.
///
/// `--` ends the options: every argument after it is positional. An option the command does not take, a
/// value given to a flag, and a valued option without a value are usage errors (exit 64). A valued option
/// given twice keeps its last value, except a `repeatable` one, which keeps every value in order.
package struct ParsedArguments {
    package var positional: [String] = []
    package var options: [String: String] = [:]
    package var flags: Set<String> = []
    /// Every value of each repeatable option, in the order given.
    package var repeated: [String: [String]] = [:]

    /// Splits `arguments`; options in `valued` take a value, those in `flags` none, those in `repeatable`
    /// (which must also be in `valued`) a value each time they are given.
    package init(_ arguments: [String], valued: Set<String>, flags allowedFlags: Set<String> = [], repeatable: Set<String> = []) throws {
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            guard !optionsEnded, argument.hasPrefix("--") else { positional.append(argument); continue }
            if argument == "--" { optionsEnded = true; continue }
            let (name, inlineValue) = Self.split(argument)
            if valued.contains(name) {
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else {
                    guard index < arguments.count else { throw UsageError("\(name) needs a value") }
                    value = arguments[index]
                    index += 1
                }
                options[name] = value
                if repeatable.contains(name) { repeated[name, default: []].append(value) }
            } else if allowedFlags.contains(name) {
                guard inlineValue == nil else { throw UsageError("\(name) takes no value") }
                flags.insert(name)
            } else {
                throw UsageError("unknown option \(name)" + Self.suggestion(for: name, among: valued.union(allowedFlags)))
            }
        }
    }

    /// `--name=value` as its name and value; `--name` as its name alone.
    private static func split(_ argument: String) -> (String, String?) {
        guard let equals = argument.firstIndex(of: "=") else { return (argument, nil) }
        return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
    }

    /// "; did you mean --x?" for the known option closest to `name`, when one is close.
    package static func suggestion(for name: String, among known: Set<String>) -> String {
        guard let closest = Spelling.closest(to: name, among: known) else { return "" }
        return "; did you mean \(closest)?"
    }
}

/// Finds the word a mistyped one was meant to be, for hints in usage errors.
package enum Spelling {
    /// The candidate with the smallest edit distance to `word`, when that distance is at most a third of the
    /// word's length (and at least 2 edits are allowed); nil otherwise. Ties go to the alphabetically first.
    package static func closest(to word: String, among candidates: Set<String>) -> String? {
        let limit = max(2, word.count / 3)
        let scored = candidates.map { ($0, distance(word, $0)) }.filter { $0.1 <= limit }
        return scored.min { $0.1 != $1.1 ? $0.1 < $1.1 : $0.0 < $1.0 }?.0
    }

    /// The Levenshtein distance between two strings, by characters.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
