import CoreDataStoreKit

/// The binary store (`NSBinaryStoreType`): an atomic store in a compact, versioned, checksummed format of this
/// package's own, documented in `Docs/BinaryStoreFormat.md`.
///
/// Apple's binary store is an undocumented keyed archive, so files do not move between Apple's Core Data and
/// this one. The whole file is read when the store is added and rewritten on every save through
/// `AtomicFileReplacement`, so a crash leaves the old file or the new one; a CRC-32 over the whole file catches
/// truncation and damage before any of it is used.
public final class BinaryStore: AtomicStore {
    public override class var storeTypeName: String { NSBinaryStoreType }

    /// Reads a whole binary store file.
    /// - Throws: 134000 when the file is empty or not a binary store (or a newer format version); 259 when it is
    ///   truncated or damaged; 134080 when it cannot be read.
    public override class func readSnapshot(from url: URL) throws -> AtomicStoreSnapshot {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw CoreDataError.openFailed(url, reason: "it could not be read (\(error.localizedDescription))")
        }
        return try BinaryStoreDecoder(url: url).decode(data)
    }

    /// Writes a whole binary store file.
    /// - Throws: 134030 when a value cannot be encoded or the file cannot be written.
    public override func writeSnapshot(_ snapshot: AtomicStoreSnapshot, to url: URL) throws {
        let bytes = try BinaryStoreEncoder().encode(snapshot)
        do {
            try Data(bytes).write(to: url)
        } catch {
            throw CoreDataError.saveFailed("could not write \(url.path)", underlying: error)
        }
    }
}
