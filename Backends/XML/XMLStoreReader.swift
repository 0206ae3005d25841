#if canImport(Glibc)
import Glibc
#endif
import CoreDataStoreKit

/// Reads an XML store file into a snapshot with libxml2's streaming reader, so a large file never becomes a DOM.
///
/// The snapshot keeps the file's names (upper-case entities, lower-case properties); `XMLStore.matchNames`
/// matches them to the model. Object IDs "zN" become primary key N, and `nextObjectID` − 1 becomes the
/// high-water mark of every entity in the file.
///
/// Errors: a file that is empty, not XML, or XML whose root element is not `<database>` is not an XML store
/// (134000); a file that starts as one but is truncated, malformed, or holds values that do not parse is
/// damaged (259). libxml2's message is part of the error's description.
struct XMLStoreReader {
    let url: URL

    func read() throws -> AtomicStoreSnapshot {
        try checkLooksLikeXML()
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw CoreDataError.openFailed(url, reason: "it could not be opened (\(String(cString: strerror(errno))))")
        }
        defer { close(descriptor) }
        guard let reader = LibXMLStreamReader(descriptor: descriptor) else {
            throw CoreDataError.notAStore(url, type: NSXMLStoreType, reason: "libxml2 could not start reading it")
        }
        var sawRoot = false
        do {
            return try parse(reader, sawRoot: &sawRoot)
        } catch let failure as LibXMLStreamReader.Failure {
            if sawRoot { throw corrupt("the XML is malformed (\(failure.message))") }
            throw CoreDataError.notAStore(url, type: NSXMLStoreType, reason: "it is not well-formed XML (\(failure.message))")
        } catch let invalid as XMLAttributeValue.Invalid {
            throw corrupt(invalid.reason)
        }
    }

    /// Rejects, before libxml2 sees it, a file that is empty or does not start like an XML document.
    private func checkLooksLikeXML() throws {
        let handle: FileHandle
        do { handle = try FileHandle(forReadingFrom: url) } catch {
            throw CoreDataError.openFailed(url, reason: "it could not be read (\(error.localizedDescription))")
        }
        defer { try? handle.close() }
        let prefix = (try? handle.read(upToCount: 64)) ?? Data()
        var bytes = prefix[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        guard let first = bytes.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) else {
            throw CoreDataError.notAStore(url, type: NSXMLStoreType, reason: prefix.isEmpty ? "the file is empty" : "the file holds only white space")
        }
        guard first == UInt8(ascii: "<") else {
            throw CoreDataError.notAStore(url, type: NSXMLStoreType, reason: "it is not an XML document")
        }
    }

    private func corrupt(_ reason: String) -> NSError {
        CoreDataError.corruptStore(url, type: NSXMLStoreType, reason: reason)
    }

    /// Feeds the reader's events to a parse state, one event at a time, and returns what it gathered.
    private func parse(_ reader: LibXMLStreamReader, sawRoot: inout Bool) throws -> AtomicStoreSnapshot {
        var state = XMLStoreParseState(url: url)
        defer { sawRoot = state.sawRoot }
        while try reader.read() {
            switch reader.kind {
            case .element:
                try state.startElement(reader)
            case .text:
                state.gatherText(reader.value)
            case .entityReference:
                throw corrupt("the file uses an entity reference, which XML stores do not contain")
            case .endElement:
                try state.endElement(depth: reader.depth)
            case .other:
                break
            }
        }
        return try state.snapshot()
    }
}
