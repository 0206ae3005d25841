/// Relocating an atomic store: the whole file is written at each save, so the next save writes it at the new
/// location; the old file stays as it was. A store without a file (the in-memory store) has nothing to move.
extension AtomicStore: StoreRelocating {
    /// Makes `url` where the next save writes the store (nothing for a store without a file).
    /// - Throws: 514 for a URL that is not a file's.
    public func relocate(to url: URL) throws {
        guard fileURL != nil else { return }
        guard url.isFileURL else {
            throw CoreDataError.make(NSFileWriteInvalidFileNameError, "An atomic store can only move to a file URL, not \(url).")
        }
        fileURL = url
    }
}
