import CoreDataModelCommands
import Foundation

/// The `coredata` tool's subcommands. `generate`, `compile` and `accessors` come from `CoreDataModelCommands`,
/// which `coredata-modelc` (the build plugin's tool) shares; exit statuses are `CommandLineTool`'s.
enum Commands {
    /// Every subcommand; add new ones here.
    static var all: [any Command.Type] { [GenerateCommand.self, CompileCommand.self, ModelCommand.self, InspectCommand.self,
                                          QueryCommand.self, ValidateCommand.self, ExportCommand.self, ImportCommand.self,
                                          ConvertCommand.self, MigrateCommand.self, DemoCommand.self, CompletionCommand.self,
                                          AccessorsCommand.self] }

    /// The tool's version, printed by `coredata --version`.
    static let version = CommandLineTool.packageVersion

    /// The tool: its name, version and commands (dispatch, help and exit statuses are `CommandLineTool`'s).
    static var tool: CommandLineTool { CommandLineTool(name: "coredata", version: version, commands: all) }

    /// Runs the command named by `arguments[1]`; returns the process exit status.
    static func dispatch(_ arguments: [String]) -> Int32 {
        tool.dispatch(arguments)
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
