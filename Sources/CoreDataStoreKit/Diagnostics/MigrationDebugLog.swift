import Synchronization

/// The migration debug log, Apple's `-com.apple.CoreData.MigrationDebug 1` launch argument (or the environment
/// variable `COREDATA_MIGRATION_DEBUG=1`). An addition to Apple's API.
///
/// When on, each migration writes its steps to standard error as `CoreData: annotation: (migration) …` lines:
/// what is migrated from which version to which (by version checksum), the mapping model inferred, each stage,
/// and how long it took.
public enum MigrationDebugLog {
    /// Whether migrations write their steps to standard error. Starts from the launch argument or the
    /// environment variable.
    public static var isEnabled: Bool {
        get { enabled.load(ordering: .relaxed) }
        set { enabled.store(newValue, ordering: .relaxed) }
    }

    private static let enabled = Atomic<Bool>(DebugLaunchArgument.level(named: "com.apple.CoreData.MigrationDebug",
                                                                       environment: "COREDATA_MIGRATION_DEBUG") > 0)

    /// Writes one step when the log is on; `message` is not evaluated otherwise.
    public static func note(_ message: @autoclosure () -> String) {
        guard isEnabled else { return }
        DebugLaunchArgument.write(["CoreData: annotation: (migration) \(message())"])
    }
}
