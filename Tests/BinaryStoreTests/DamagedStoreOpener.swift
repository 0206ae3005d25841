import Testing
import CoreData
import StoreTestSupport

/// Opens many damaged copies of a binary store through the public API, each in a file of its own, cheaply: one
/// directory and one model serve them all, and each file is written without the flush Foundation's
/// `Data.write(to:)` makes (a damaged copy is scratch, not data), so a test's time goes to the opens.
final class DamagedStoreOpener {
    private let directory = TemporaryDirectory(prefix: "damaged-binary")
    private let model = everyTypeModel()
    private var count = 0

    /// The code of the error adding `contents` as a binary store throws, or nil when it opens; records an
    /// issue when an open changed the file (a failed open must leave it as it was).
    func openCode(_ contents: Data, sourceLocation: SourceLocation = #_sourceLocation) throws -> Int? {
        count += 1
        let url = directory.file("store-\(count).binary")
        try contents.withUnsafeBytes { try AtomicFileReplacement.writeUnflushed($0, to: url) }
        defer { try? FileManager.default.removeItem(at: url) }
        let code = errorCode { _ = try openStore(.binary, at: url, model: model) }
        #expect(try Data(contentsOf: url) == contents, "the file must be left as it was", sourceLocation: sourceLocation)
        return code
    }
}

/// The positions (byte offsets, or truncation lengths) a damage test tries in `range`: every one up to
/// `headerEnd` (each header field is checked on its own, in an order that decides the error's code), every one
/// within `margin` of each of `boundaries` (where an archive or section ends and the next begins: a property
/// list's 32-byte trailer, a checksum), and every `stride`-th one in between (a prime, so the positions fall at
/// every alignment). Deterministic; every region of the file is hit, and about `range.count / stride` positions
/// are tried elsewhere instead of all of them.
func damagePositions(in range: Range<Int>, headerEnd: Int, boundaries: [Int], margin: Int = 40, stride: Int = 17) -> [Int] {
    var positions = Set(range.clamped(to: range.lowerBound..<max(headerEnd, range.lowerBound)))
    for boundary in boundaries {
        positions.formUnion(((boundary - margin)..<(boundary + margin)).clamped(to: range))
    }
    positions.formUnion(Swift.stride(from: range.lowerBound, to: range.upperBound, by: stride))
    if let last = range.last { positions.insert(last) }
    return positions.sorted()
}
