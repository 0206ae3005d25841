import Foundation

/// A command-line tool made of subcommands (`<tool> <command> [arguments]`), and the dispatcher that picks one:
/// the `coredata` tool and `coredata-modelc`, the build plugin's smaller tool, are each one of these.
///
/// Exit statuses: 0 when the command succeeded (and for `help`, `--help`, `-h`, `--version`), 1 when it
/// failed (a store that cannot be opened, a predicate that does not parse, …), 64 for a usage error (an
/// unknown command or option, a missing argument), with the message and a hint on standard error.
package struct CommandLineTool {
    /// The tool's name, as its messages and `--version` print it.
    package let name: String
    /// The tool's version, printed by `<tool> --version`.
    package let version: String
    /// Every subcommand, in the order `help` lists them.
    package let commands: [any Command.Type]

    /// The package's version, which both tools print.
    package static let packageVersion = "0.2.0"

    /// Exit statuses (sysexits' EX_USAGE for usage errors).
    package static let success: Int32 = 0, failure: Int32 = 1, usageError: Int32 = 64

    package init(name: String, version: String, commands: [any Command.Type]) {
        self.name = name
        self.version = version
        self.commands = commands
    }

    /// Runs the command named by `arguments[1]`; returns the process exit status.
    package func dispatch(_ arguments: [String]) -> Int32 {
        let words = Array(arguments.dropFirst())
        guard let word = words.first else {
            printError(help)
            return Self.usageError
        }
        switch word {
        case "help", "--help", "-h":
            return showHelp(about: Array(words.dropFirst()))
        case "--version", "version":
            print("\(name) \(version) (swift-coredata)")
            return Self.success
        default:
            break
        }
        guard let command = commands.first(where: { $0.name == word }) else {
            let hint = Spelling.closest(to: word, among: Set(commands.map { $0.name })).map { " Did you mean \"\($0)\"?" } ?? ""
            printError("\(name): unknown command \"\(word)\".\(hint)\n\n\(help)")
            return Self.usageError
        }
        let rest = Array(words.dropFirst())
        if Self.wantsHelp(rest) {
            print(usage(of: command))
            return Self.success
        }
        do {
            try command.run(rest)
            return Self.success
        } catch let error as UsageError {
            printError("\(name) \(word): \(error.description)\n\n\(usage(of: command))\n\nRun `\(name) \(word) --help` for its options.")
            return Self.usageError
        } catch let diagnostic as SourceDiagnostic {
            // `file:line: error: …` stays at the start of the line, where build logs and editors look for it.
            printError(diagnostic.description)
            return Self.failure
        } catch {
            printError("\(name) \(word): \(error.localizedDescription)")
            return Self.failure
        }
    }

    /// `<tool> help [command]`: the tool's help, or one command's usage; an unknown command is a usage error.
    private func showHelp(about words: [String]) -> Int32 {
        guard let topic = words.first else {
            print(help)
            return Self.success
        }
        guard let command = commands.first(where: { $0.name == topic }) else {
            printError("\(name) help: unknown command \"\(topic)\".\n\n\(help)")
            return Self.usageError
        }
        print(usage(of: command))
        return Self.success
    }

    /// A command's usage text as this tool runs it: the texts are written for the `coredata` tool
    /// (`coredata compile …`), and another tool sharing the command (`coredata-modelc`) shows its own name.
    private func usage(of command: any Command.Type) -> String {
        guard name != "coredata" else { return command.usage }
        return command.usage.replacingOccurrences(of: "coredata \(command.name) ", with: "\(name) \(command.name) ")
    }

    /// Whether a command's arguments ask for its usage (`--help` or `-h` before any `--`).
    private static func wantsHelp(_ arguments: [String]) -> Bool {
        for argument in arguments {
            if argument == "--" { return false }
            if argument == "--help" || argument == "-h" { return true }
        }
        return false
    }

    /// The tool's help: its commands with their summaries, and how to learn more.
    package var help: String {
        var text = "usage: \(name) <command> [arguments]\n\ncommands:\n"
        for command in commands { text += "  \(command.name.padding(toLength: 11, withPad: " ", startingAt: 0)) \(command.summary)\n" }
        return text + """

            Run `\(name) <command> --help` (or `\(name) help <command>`) for a command's options;
            `\(name) --version` prints the version. Exit status: 0 success, 1 failure, 64 usage error.
            """
    }
}

/// Writes `message` and a newline to standard error.
package func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}
