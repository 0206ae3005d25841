import CoreData
import Foundation
import Testing

/// Runs the built `coredata` executable (or `coredata-modelc`, the build plugin's tool; SwiftPM builds both beside
/// the test bundle) and collects its exit status, standard output and standard error.
///
/// The child is started with `posix_spawn` and waited for by its own pid: Foundation's `Process` was seen to
/// leave an exited child unreaped (and `waitUntilExit` hanging) while another test ran `system(3)` (the
/// PostgreSQL test server's script).
enum ToolProcess {
    struct Outcome { var status: Int32; var output: String; var error: String }

    /// Runs the tool named `tool` with `arguments`, its standard input read from `input` (else `/dev/null`).
    static func run(_ arguments: [String], input: URL? = nil, tool name: String = "coredata") throws -> Outcome {
        var folder = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        while folder.pathExtension == "xctest" { folder.deleteLastPathComponent() }
        let tool = folder.appendingPathComponent(name)
        guard FileManager.default.isExecutableFile(atPath: tool.path) else {
            throw NSError(domain: "CoreDataToolTests", code: 1, userInfo: [NSLocalizedDescriptionKey: "\(name) is not built at \(tool.path)"])
        }
        return try runExecutable(tool, arguments, input: input)
    }

    /// Runs the executable at `tool` with `arguments`, its standard input read from `input` (else `/dev/null`).
    static func runExecutable(_ tool: URL, _ arguments: [String], input: URL? = nil) throws -> Outcome {
        let name = tool.lastPathComponent
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("tool-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let out = scratch.appendingPathComponent("out"), err = scratch.appendingPathComponent("err")
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, input?.path ?? "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, out.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, err.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let argv: [UnsafeMutablePointer<CChar>?] = ([tool.path] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, tool.path, &actions, nil, argv, environ)
        guard spawned == 0 else {
            throw NSError(domain: "CoreDataToolTests", code: Int(spawned), userInfo: [NSLocalizedDescriptionKey: "\(name) did not start: \(String(cString: strerror(spawned)))"])
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            guard errno == EINTR else { throw NSError(domain: "CoreDataToolTests", code: Int(errno), userInfo: [NSLocalizedDescriptionKey: "waitpid failed"]) }
        }
        // WIFEXITED / WEXITSTATUS, which Swift does not import: a signal's death reads as 128 + the signal.
        let exitStatus = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return Outcome(status: exitStatus,
                       output: String(decoding: try Data(contentsOf: out), as: UTF8.self),
                       error: String(decoding: try Data(contentsOf: err), as: UTF8.self))
    }
}

/// The tool follows the conventions of command-line tools: `--help`/`-h` on every command, `--version`,
/// `--opt value` and `--opt=value`, usage errors with exit status 64 and a hint, failures with 1.
@Suite struct CommandLineConventionTests {
    static let commands = ["generate", "compile", "model", "inspect", "query", "validate", "export", "import", "convert", "migrate",
                            "demo", "completion", "accessors"]

    @Test(arguments: commands)
    func everyCommandTakesHelp(_ command: String) throws {
        for flag in ["--help", "-h"] {
            let run = try ToolProcess.run([command, flag])
            #expect(run.status == 0, "\(command) \(flag): \(run.error)")
            #expect(run.output.hasPrefix("usage: coredata \(command)"), "\(command) \(flag): \(run.output)")
        }
        let viaHelp = try ToolProcess.run(["help", command])
        #expect(viaHelp.status == 0)
        #expect(viaHelp.output.hasPrefix("usage: coredata \(command)"))
    }

    @Test func versionAndHelpSucceed() throws {
        let version = try ToolProcess.run(["--version"])
        #expect(version.status == 0)
        #expect(version.output.hasPrefix("coredata "))
        for arguments in [["help"], ["--help"], ["-h"]] {
            let run = try ToolProcess.run(arguments)
            #expect(run.status == 0, "\(arguments)")
            #expect(run.output.contains("commands:"), "\(arguments)")
        }
    }

    @Test func usageErrorsExitWith64AndAHint() throws {
        let bare = try ToolProcess.run([])
        #expect(bare.status == 64)
        #expect(bare.error.contains("usage: coredata"))
        let unknownTopic = try ToolProcess.run(["help", "bogus"])
        #expect(unknownTopic.status == 64)
        #expect(unknownTopic.error.contains("unknown command \"bogus\""))
        let typo = try ToolProcess.run(["qeury"])
        #expect(typo.status == 64)
        #expect(typo.error.contains("Did you mean \"query\"?"), "\(typo.error)")
        let option = try ToolProcess.run(["query", "store.sqlite", "--entity", "Item", "--modl", "m"])
        #expect(option.status == 64)
        #expect(option.error.contains("unknown option --modl; did you mean --model?"), "\(option.error)")
        #expect(option.error.contains("coredata query --help"))
        let missing = try ToolProcess.run(["query", "store.sqlite", "--entity"])
        #expect(missing.status == 64)
        #expect(missing.error.contains("--entity needs a value"))
    }

    @Test func optionsTakeTheirValueEitherWay() throws {
        let model = try ToolModels.writeModel()
        let spaced = try ToolProcess.run(["model", model.path])
        #expect(spaced.status == 0, "\(spaced.error)")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("compile-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let joined = try ToolProcess.run(["compile", model.path, "--output=\(folder.appendingPathComponent("Shop.momd").path)"])
        #expect(joined.status == 0, "\(joined.error)")
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("Shop.momd").path))
        let separate = try ToolProcess.run(["compile", model.path, "--output", folder.appendingPathComponent("Again.momd").path])
        #expect(separate.status == 0, "\(separate.error)")
    }

    @Test func aFailureExitsWith1() throws {
        let run = try ToolProcess.run(["model", "/nonexistent/Model.xcdatamodeld"])
        #expect(run.status == 1)
        #expect(run.error.hasPrefix("coredata model: "))
    }

    @Test func anUnknownSortKeyIsTheSameErrorAsAnUnknownWhereKey() throws {
        let model = try ToolModels.writeModel()
        let store = try ToolModels.writeStore(model: model)
        let sorted = try ToolProcess.run(["query", store.path, "--model", model.path, "--entity", "Product", "--sort", "nosuchkey"])
        let filtered = try ToolProcess.run(["query", store.path, "--model", model.path, "--entity", "Product", "--where", "nosuchkey == 1"])
        #expect(sorted.status == 1 && filtered.status == 1, "\(sorted.error) / \(filtered.error)")
        #expect(sorted.error.contains("nosuchkey") && filtered.error.contains("nosuchkey"))
        let good = try ToolProcess.run(["query", store.path, "--model", model.path, "--entity", "Product", "--sort=-name"])
        #expect(good.status == 0, "\(good.error)")
        #expect(good.output.contains("(2 Product objects)"), "\(good.output)")
    }

    @Test(arguments: ["bash", "zsh"])
    func completionScriptsNameEveryCommand(_ shell: String) throws {
        let run = try ToolProcess.run(["completion", shell])
        #expect(run.status == 0)
        for command in Self.commands { #expect(run.output.contains(command)) }
        #expect(run.output.contains("--entity"), "query's options are offered")
        #expect(try ToolProcess.run(["completion", "fish"]).status == 64)
    }

    /// After an option whose usage lists its values, the values are offered; the scripts parse.
    @Test func completionOffersOptionValues() throws {
        let bash = try ToolProcess.run(["completion", "bash"]).output
        #expect(bash.contains(#""convert --to") COMPREPLY=($(compgen -W "sqlite xml binary postgresql" -- "$current")); return ;;"#), "\(bash)")
        #expect(bash.contains(#""query --format") COMPREPLY=($(compgen -W "table json jsonl csv" -- "$current")); return ;;"#))
        #expect(bash.contains(#""--var"#) || bash.contains("--var"), "query's --var is offered")
        let zsh = try ToolProcess.run(["completion", "zsh"]).output
        #expect(zsh.contains(#""import --to") compadd sqlite xml binary postgresql; return ;;"#), "\(zsh)")
        for command in ["validate", "export", "import", "convert", "migrate"] { #expect(bash.contains("        \(command)) options=")) }
        let script = try ToolLibrary.folder().appendingPathComponent("coredata.bash")
        try Data(bash.utf8).write(to: script)
        #expect(system("bash -n '\(script.path)'") == 0, "the bash script parses")
    }
}

/// A small model file and a SQLite store of it, in a new temporary folder.
enum ToolModels {
    static func writeModel() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tool-model-\(UUID().uuidString)/Shop.xcdatamodel")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let contents = """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
                <entity name="Product" representedClassName="Product" syncable="YES">
                    <attribute name="name" optional="YES" attributeType="String"/>
                    <attribute name="price" optional="YES" attributeType="Double" defaultValueString="0"/>
                </entity>
            </model>
            """
        try Data(contents.utf8).write(to: folder.appendingPathComponent("contents"))
        return folder
    }

    static func writeStore(model: URL) throws -> URL {
        let url = model.deletingLastPathComponent().appendingPathComponent("Shop.sqlite")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try NSManagedObjectModel.load(contentsOf: model))
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            for name in ["pen", "ink"] { NSEntityDescription.insertNewObject(forEntityName: "Product", into: context).setValue(name, forKey: "name") }
            try context.save()
        }
        try coordinator.remove(store)
        return url
    }
}
