/// Apple's debug launch arguments (`-com.apple.CoreData.SQLDebug 1`), read as Apple's frameworks read user
/// defaults given on the command line, with an environment variable for programs whose arguments are their own.
enum DebugLaunchArgument {
    /// The level `-<name> N` gives among the process's arguments, else the integer in `environment`, else 0.
    /// A value that is not an integer counts as 0.
    static func level(named name: String, environment variable: String) -> Int {
        let arguments = ProcessInfo.processInfo.arguments
        if let index = arguments.firstIndex(of: "-" + name), index + 1 < arguments.count {
            return max(0, Int(arguments[index + 1]) ?? 0)
        }
        return max(0, Int(ProcessInfo.processInfo.environment[variable] ?? "") ?? 0)
    }

    /// Writes `lines` to standard error in one piece, so lines from two threads do not interleave.
    static func write(_ lines: [String]) {
        guard !lines.isEmpty else { return }
        FileHandle.standardError.write(Data((lines.joined(separator: "\n") + "\n").utf8))
    }
}
