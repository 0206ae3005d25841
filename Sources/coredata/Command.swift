import CoreData
import CoreDataStoreKit
import Foundation

/// One subcommand of the `coredata` tool. To add a command, write a type conforming to this in its own
/// file and list it in `Commands.all`.
protocol Command {
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
struct UsageError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Arguments split into positional ones and `--option value` pairs.
struct ParsedArguments {
    var positional: [String] = []
    var options: [String: String] = [:]
    var flags: Set<String> = []

    /// Splits `arguments`; options in `valued` take the next argument as their value.
    init(_ arguments: [String], valued: Set<String>, flags allowedFlags: Set<String> = []) throws {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument.hasPrefix("--") {
                if valued.contains(argument) {
                    guard index + 1 < arguments.count else { throw UsageError("\(argument) needs a value") }
                    options[argument] = arguments[index + 1]
                    index += 2
                    continue
                }
                guard allowedFlags.contains(argument) else { throw UsageError("unknown option \(argument)") }
                flags.insert(argument)
            } else {
                positional.append(argument)
            }
            index += 1
        }
    }
}
