import Foundation
import Testing

/// Apple's `-com.apple.CoreData.SQLDebug N` and `-com.apple.CoreData.MigrationDebug 1` launch arguments (and
/// `COREDATA_SQL_DEBUG=N`, `COREDATA_MIGRATION_DEBUG=1`): a program's SQL and migration steps on standard error.
/// Run in a process of its own, since the launch arguments are read once.
@Suite struct DebugLogTests {
    @Test func levelOneShowsStatementsAndFetchTimes() throws {
        let run = try ProbeProcess.run(["sql-debug"], environment: ["COREDATA_SQL_DEBUG": "1"])
        #expect(run.status == 0, "\(run.output)")
        let fetch = run.lines.first { $0.hasPrefix("CoreData: sql: SELECT") && $0.contains("FROM ZITEM") && $0.contains("WHERE") }
        #expect(fetch != nil, "the fetch's SELECT: \(run.output)")
        #expect(run.lines.contains { $0.hasPrefix("CoreData: sql: INSERT INTO ZITEM") }, "the save's INSERT: \(run.output)")
        #expect(run.lines.contains { $0.range(of: #"^CoreData: annotation: total fetch execution time: \d+\.\d{4}s for 1 rows\.$"#, options: .regularExpression) != nil },
                "the fetch's row count and time: \(run.output)")
        #expect(!run.lines.contains { $0.hasPrefix("CoreData: details:") }, "no bound values at level 1: \(run.output)")
    }

    @Test func levelFourAddsBoundValuesAndQueryPlansWithTheLaunchArgument() throws {
        let run = try ProbeProcess.run(["sql-debug", "-com.apple.CoreData.SQLDebug", "4"], environment: ["COREDATA_SQL_DEBUG": "0"])
        #expect(run.status == 0, "\(run.output)")
        #expect(run.lines.contains { $0.range(of: #"^CoreData: details: SQLite bind\[\d\] = "logged"$"#, options: .regularExpression) != nil }, "the fetch's bound value: \(run.output)")
        #expect(run.lines.contains { $0.hasPrefix("CoreData: details: SQLite: ") && $0.contains("ZITEM") }, "the query plan: \(run.output)")
        #expect(run.lines.contains { $0.hasPrefix("CoreData: details: row 0: ") && $0.contains("\"logged\"") }, "the row's values: \(run.output)")
    }

    @Test func migrationStepsWithTheMigrationLaunchArgument() throws {
        let run = try ProbeProcess.run(["migration-debug", "-com.apple.CoreData.MigrationDebug", "1"], environment: ["COREDATA_MIGRATION_DEBUG": "0"])
        #expect(run.status == 0, "\(run.output)")
        #expect(run.lines.contains { $0.hasPrefix("CoreData: annotation: (migration) will attempt automatic schema migration of the SQLite store at") },
                "\(run.output)")
        #expect(run.lines.contains { $0.range(of: #"^CoreData: annotation: \(migration\) in-place migration of .*Probe\.sqlite completed successfully in \d+\.\d\d seconds$"#,
                                                options: .regularExpression) != nil }, "\(run.output)")
    }

    @Test func nothingIsLoggedByDefault() throws {
        for mode in ["sql-debug", "migration-debug"] {
            let run = try ProbeProcess.run([mode], environment: ["COREDATA_SQL_DEBUG": "0", "COREDATA_MIGRATION_DEBUG": "0"])
            #expect(run.status == 0, "\(run.output)")
            #expect(!run.output.contains("CoreData:"), "\(run.output)")
        }
    }
}
