import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// How `convert` and `migrate` show their progress on standard output.
///
/// On a terminal (`isatty`), one line redrawn in place: a bar, the percentage and the step
/// (`[##########----------]  50% Book: relationships`), ended by a line break when done. Otherwise (a pipe, a
/// file, a test), one plain line per step, `progress: 50% Book: relationships`, so a log reads the same.
/// Fractions are clamped to 0…1 and never go back; percentages are rounded to the nearest whole number.
final class ProgressReport {
    /// Whether the bar is drawn (standard output is a terminal).
    let drawsBar: Bool
    /// The width of the bar, in characters.
    static let barWidth = 30
    private var shown: Double = 0
    private var barIsOpen = false
    private let sink: (String) -> Void

    /// A report drawing a bar when standard output is a terminal, written to `sink` (standard output).
    init(drawsBar: Bool = isatty(STDOUT_FILENO) == 1, sink: @escaping (String) -> Void = ProgressReport.standardOutput) {
        self.drawsBar = drawsBar
        self.sink = sink
    }

    static func standardOutput(_ text: String) {
        StandardOutput.write(text)
    }

    /// Reports that `fraction` (0…1) of the work is done, the step now running described by `step`.
    func update(_ fraction: Double, _ step: String) {
        shown = max(shown, min(1, max(0, fraction)))
        let percent = String(format: "%3d%%", Int((shown * 100).rounded()))
        if drawsBar {
            let filled = Int((shown * Double(Self.barWidth)).rounded(.down))
            let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: Self.barWidth - filled)
            write("\r\u{1B}[2K[\(bar)] \(percent) \(step)")
            barIsOpen = true
        } else {
            write("progress: \(percent.trimmingCharacters(in: .whitespaces)) \(step)\n")
        }
    }

    /// Ends the bar's line (on a terminal), so what follows starts on a line of its own.
    func finish() {
        if barIsOpen { write("\n") }
        barIsOpen = false
    }

    private func write(_ text: String) {
        sink(text)
    }
}
