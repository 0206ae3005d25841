import CoreData
import CoreDataStoreKit
import Foundation

/// The tool's subcommands, and the dispatcher that picks one.
///
/// Exit statuses: 0 when the command succeeded (and for `help`, `--help`, `-h`, `--version`), 1 when it
/// failed (a store that cannot be opened, a predicate that does not parse, …), 64 for a usage error (an
/// unknown command or option, a missing argument), with the message and a hint on standard error.
enum Commands {
    /// Every subcommand; add new ones here.
    static var all: [any Command.Type] { [GenerateCommand.self, CompileCommand.self, ModelCommand.self, InspectCommand.self,
                                          QueryCommand.self, ValidateCommand.self, ExportCommand.self, ImportCommand.self,
                                          ConvertCommand.self, MigrateCommand.self, DemoCommand.self, CompletionCommand.self,
                                          AccessorsCommand.self] }

    /// The tool's version, printed by `coredata --version`.
    static let version = "0.2.0"

    /// Exit statuses (sysexits' EX_USAGE for usage errors).
    static let success: Int32 = 0, failure: Int32 = 1, usageError: Int32 = 64

    /// Runs the command named by `arguments[1]`; returns the process exit status.
    static func dispatch(_ arguments: [String]) -> Int32 {
        let words = Array(arguments.dropFirst())
        guard let name = words.first else {
            printError(help)
            return usageError
        }
        switch name {
        case "help", "--help", "-h":
            return showHelp(about: Array(words.dropFirst()))
        case "--version", "version":
            print("coredata \(version) (swift-coredata)")
            return success
        default:
            break
        }
        guard let command = all.first(where: { $0.name == name }) else {
            let hint = Spelling.closest(to: name, among: Set(all.map { $0.name })).map { " Did you mean \"\($0)\"?" } ?? ""
            printError("coredata: unknown command \"\(name)\".\(hint)\n\n\(help)")
            return usageError
        }
        let rest = Array(words.dropFirst())
        if wantsHelp(rest) {
            print(command.usage)
            return success
        }
        do {
            try command.run(rest)
            return success
        } catch let error as UsageError {
            printError("coredata \(name): \(error.description)\n\n\(command.usage)\n\nRun `coredata \(name) --help` for its options.")
            return usageError
        } catch let diagnostic as SourceDiagnostic {
            // `file:line: error: …` stays at the start of the line, where build logs and editors look for it.
            printError(diagnostic.description)
            return failure
        } catch {
            printError("coredata \(name): \(error.localizedDescription)")
            return failure
        }
    }

    /// `coredata help [command]`: the tool's help, or one command's usage; an unknown command is a usage error.
    private static func showHelp(about words: [String]) -> Int32 {
        guard let topic = words.first else {
            print(help)
            return success
        }
        guard let command = all.first(where: { $0.name == topic }) else {
            printError("coredata help: unknown command \"\(topic)\".\n\n\(help)")
            return usageError
        }
        print(command.usage)
        return success
    }

    /// Whether a command's arguments ask for its usage (`--help` or `-h` before any `--`).
    private static func wantsHelp(_ arguments: [String]) -> Bool {
        for argument in arguments {
            if argument == "--" { return false }
            if argument == "--help" || argument == "-h" { return true }
        }
        return false
    }

    static var help: String {
        var text = "usage: coredata <command> [arguments]\n\ncommands:\n"
        for command in all { text += "  \(command.name.padding(toLength: 11, withPad: " ", startingAt: 0)) \(command.summary)\n" }
        return text + """

            Run `coredata <command> --help` (or `coredata help <command>`) for a command's options;
            `coredata --version` prints the version. Exit status: 0 success, 1 failure, 64 usage error.
            """
    }

    /// The options a command's usage text names (`--model`, …), for shell completion.
    static func optionNames(of command: any Command.Type) -> [String] {
        var names: [String] = []
        var rest = Substring(command.usage)
        while let start = rest.range(of: "--") {
            let name = rest[start.lowerBound...].prefix { $0 == "-" || $0.isLetter || $0.isNumber }
            if name.count > 2, !names.contains(String(name)) { names.append(String(name)) }
            rest = rest[start.upperBound...]
        }
        return names + ["--help"]
    }

    /// The values an option of a command takes, where its usage text lists them (`--to sqlite|xml|…`), for
    /// shell completion: option name to values, in the order of the usage text.
    static func optionValues(of command: any Command.Type) -> [(option: String, values: [String])] {
        var found: [(option: String, values: [String])] = []
        let words = command.usage.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "[" || $0 == "]" }).map(String.init)
        for (option, next) in zip(words, words.dropFirst()) where option.hasPrefix("--") && next.contains("|") {
            let values = next.split(separator: "|").map(String.init)
            guard values.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isLetter || $0.isNumber } }),
                  !found.contains(where: { $0.option == option }) else { continue }
            found.append((option, values))
        }
        return found
    }
}

/// Writes `message` and a newline to standard error.
func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}
