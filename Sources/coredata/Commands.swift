import CoreData
import CoreDataStoreKit
import Foundation

/// The tool's subcommands, and the dispatcher that picks one.
enum Commands {
    /// Every subcommand; add new ones here.
    static let all: [any Command.Type] = [GenerateCommand.self, CompileCommand.self, ModelCommand.self, InspectCommand.self, QueryCommand.self, DemoCommand.self]

    /// Runs the command named by `arguments[1]`; returns the process exit status.
    static func dispatch(_ arguments: [String]) -> Int32 {
        let words = Array(arguments.dropFirst())
        guard let name = words.first, name != "help", name != "--help", name != "-h" else {
            if words.count > 1, let command = all.first(where: { $0.name == words[1] }) {
                print(command.usage)
            } else {
                print(help)
            }
            return 0
        }
        guard let command = all.first(where: { $0.name == name }) else {
            printError("coredata: unknown command \"\(name)\".\n\n\(help)")
            return 64
        }
        do {
            try command.run(Array(words.dropFirst()))
            return 0
        } catch let error as UsageError {
            printError("coredata \(name): \(error.description)\n\n\(command.usage)")
            return 64
        } catch {
            printError("coredata \(name): \(error.localizedDescription)")
            return 1
        }
    }

    static var help: String {
        var text = "usage: coredata <command> [arguments]\n\ncommands:\n"
        for command in all { text += "  \(command.name.padding(toLength: 10, withPad: " ", startingAt: 0)) \(command.summary)\n" }
        return text + "\nRun `coredata help <command>` for a command's options."
    }
}

/// Writes `message` and a newline to standard error.
func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}
