import Foundation
import Testing

/// A model in use is immutable, as on Apple's platforms: once a coordinator is made with it, changing the model,
/// its entities or their properties stops the program with "Can't modify an immutable model"; a copy of the
/// model is editable. Run in a probe process, since the violation ends the process.
@Suite struct ModelFreezeTests {
    @Test func changingAModelACoordinatorUsesStopsTheProgram() throws {
        let run = try ProbeProcess.run(["model-freeze", "original"], environment: ["SWIFT_BACKTRACE": "enable=no"])
        #expect(run.status != 0, "\(run.output)")
        #expect(run.output.contains("Can't modify an immutable model: the isOptional of the property Item.name"), "\(run.output)")
        #expect(!run.lines.contains("done"), "\(run.output)")
    }

    @Test func aCopyOfAModelInUseCanChange() throws {
        let run = try ProbeProcess.run(["model-freeze", "copy"], environment: ["SWIFT_BACKTRACE": "enable=no"])
        #expect(run.status == 0, "\(run.output)")
        #expect(!run.lines.contains { $0.hasPrefix("FAIL") }, "\(run.output)")
        #expect(run.lines.contains("ok a new model is editable"), "\(run.output)")
        #expect(run.lines.contains("ok a model a coordinator uses is not"), "\(run.output)")
        #expect(run.lines.contains("ok a copy changes"), "\(run.output)")
        #expect(run.lines.last == "done", "\(run.output)")
    }
}
