import CoreDataModelCommands
import Foundation

// The build plugin's tool: the commands a build runs (`generate`, `compile`, `accessors`), the same as the
// `coredata` tool's, in an executable that needs neither the `CoreData` module nor the stores. SwiftPM builds a
// plugin's tool apart from the targets that use it, so a tool that linked the whole library built it twice.
let tool = CommandLineTool(name: "coredata-modelc", version: CommandLineTool.packageVersion,
                           commands: [GenerateCommand.self, CompileCommand.self, AccessorsCommand.self])
exit(tool.dispatch(CommandLine.arguments))
