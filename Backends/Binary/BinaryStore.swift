import CoreDataStoreKit

/// The binary store (`NSBinaryStoreType`): an atomic store in Apple's binary store format, so that stores
/// written by Apple's Core Data open here and stores written here open on Apple's platforms
/// (`Docs/BinaryStoreFormat.md`, "Apple's format"; `Docs/Decisions.md`, "The binary store writes Apple's format").
///
/// Files in this package's earlier format (magic `89 "CDBIN" CR LF`, "This package's format, version 1") still
/// open, and are saved again in that format, since their primary keys are numbered per entity and Apple's map
/// needs keys unique across the store. The file's first bytes tell the formats apart.
///
/// The whole file is read when the store is added and rewritten on every save through
/// `AtomicFileReplacement`, so a crash leaves the old file or the new one. Damage is caught before any of the
/// file is used: a CRC-32 over the whole file in both formats (for Apple's, in header bytes Apple leaves
/// zero and ignores; files Apple writes have none, and their archives are checked field by field).
public final class BinaryStore: AtomicStore {
    public override class var storeTypeName: String { NSBinaryStoreType }

    /// Apple's binary store numbers objects with one key sequence for the whole store.
    public override class var sharesPrimaryKeysAcrossEntities: Bool { true }

    /// The formats a binary store file can be in.
    enum FileFormat {
        /// Apple's format ("CoreData" magic).
        case apple
        /// This package's earlier format (`BinaryStoreFormat`).
        case legacy
    }

    /// The format of a file starting with `prefix`, or nil when it is neither's. A prefix shorter than a magic
    /// number counts as that format when it starts it (a truncated file, reported as damaged by the decoder).
    static func format(ofPrefix prefix: UnsafeRawBufferPointer) -> FileFormat? {
        func starts(_ magic: [UInt8]) -> Bool {
            let length = min(prefix.count, magic.count)
            return length > 0 && prefix.prefix(length).elementsEqual(magic.prefix(length))
        }
        if starts(AppleBinaryStoreFormat.magic) { return .apple }
        if starts(BinaryStoreFormat.magic) { return .legacy }
        return nil
    }

    /// Reads a whole binary store file, in Apple's format or this package's earlier one.
    /// - Throws: 134000 when the file is empty or not a binary store (or of a version this package does not
    ///   read); 259 when it is truncated or damaged; 134080 when it cannot be read; 134091 for an Apple file
    ///   holding an archived object of a class this package does not read.
    public override class func readSnapshot(from url: URL) throws -> AtomicStoreSnapshot {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw CoreDataError.openFailed(url, reason: "it could not be read (\(error.localizedDescription))")
        }
        guard !data.isEmpty else { throw CoreDataError.notAStore(url, type: NSBinaryStoreType, reason: "the file is empty") }
        switch data.withUnsafeBytes({ format(ofPrefix: $0) }) {
        case .apple: return try AppleBinaryStoreReader(url: url).decode(data)
        case .legacy: return try BinaryStoreDecoder(url: url).decode(data)
        case nil:
            throw CoreDataError.notAStore(url, type: NSBinaryStoreType, reason: "it starts with neither Apple's binary store magic (\"CoreData\") nor this package's earlier one")
        }
    }

    /// Matches an Apple-format file's positions and relationships to the model (`AppleBinaryNameMatching`);
    /// a file in the earlier format already records names.
    public override class func matchNames(in snapshot: AtomicStoreSnapshot, to request: StoreOpenRequest) throws -> AtomicStoreSnapshot {
        try AppleBinaryNameMatching(request: request).match(snapshot)
    }

    /// Writes a whole binary store file: in the earlier format when the store's file is in it, else in Apple's.
    /// - Throws: 134030 when a value cannot be encoded or the file cannot be written.
    public override func writeSnapshot(_ snapshot: AtomicStoreSnapshot, to url: URL) throws {
        let bytes: [UInt8]
        switch existingFileFormat() {
        case .legacy: bytes = try BinaryStoreEncoder().encode(snapshot)
        case .apple, nil: bytes = try AppleBinaryStoreWriter(model: openRequest.model).encode(snapshot)
        }
        try bytes.withUnsafeBytes { try AtomicFileReplacement.writeUnflushed($0, to: url) }
    }

    /// The format of the store's file as it is now, or nil when there is none yet.
    private func existingFileFormat() -> FileFormat? {
        guard let url = openRequest.url, let handle = FileHandle(forReadingAtPath: url.path) else { return nil }
        defer { try? handle.close() }
        let prefix = (try? handle.read(upToCount: 8)) ?? Data()
        return prefix.withUnsafeBytes { Self.format(ofPrefix: $0) }
    }
}
