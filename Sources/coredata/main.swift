import Foundation

exit(Commands.dispatch(CommandLine.arguments))
