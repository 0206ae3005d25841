import CoreDataStoreKit
import CLibXML2

/// A thin, safe wrapper over libxml2's streaming reader (`xmlTextReader`): one node at a time, no DOM.
///
/// External DTDs and network access are never loaded (the `DOCTYPE` of Apple's files names a DTD that exists
/// only on macOS), entities are not substituted, and libxml2's messages are collected rather than printed.
/// The reader is used from one thread; it releases libxml2's state when it is deallocated.
final class LibXMLStreamReader {
    /// What kind of node the reader is on.
    enum NodeKind {
        case element, endElement, text, entityReference, other
    }

    private let reader: xmlTextReaderPtr
    private let errors = ErrorBox()

    /// Reads the open file `descriptor` (which the caller keeps and closes). Returns nil when libxml2 cannot
    /// start. A descriptor rather than a path: libxml2 would treat a path as a URI and unescape "%".
    init?(descriptor: Int32) {
        let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_HUGE.rawValue | XML_PARSE_NOCDATA.rawValue)
        guard let reader = xmlReaderForFd(descriptor, nil, nil, options) else { return nil }
        self.reader = reader
        xmlTextReaderSetStructuredErrorHandler(reader, { context, error in
            guard let context, let error else { return }
            let box = Unmanaged<ErrorBox>.fromOpaque(context).takeUnretainedValue()
            guard box.messages.count < 8 else { return }
            let message = error.pointee.message.map { String(cString: $0) }?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "unknown error"
            box.messages.append("line \(error.pointee.line): \(message)")
        }, Unmanaged.passUnretained(errors).toOpaque())
    }

    deinit {
        xmlFreeTextReader(reader)
    }

    /// The first message libxml2 reported, if any.
    var firstError: String? { errors.messages.first }

    /// Moves to the next node. Returns false at the end of the document.
    /// - Throws: `LibXMLStreamReader.Failure` when the document is not well-formed.
    func read() throws -> Bool {
        switch xmlTextReaderRead(reader) {
        case 1: return true
        case 0: return false
        default: throw Failure(message: firstError ?? "the XML is not well-formed")
        }
    }

    /// Skips the current node's subtree and moves to its next sibling. Returns false at the end.
    func skipSubtree() throws -> Bool {
        switch xmlTextReaderNext(reader) {
        case 1: return true
        case 0: return false
        default: throw Failure(message: firstError ?? "the XML is not well-formed")
        }
    }

    var kind: NodeKind {
        switch xmlTextReaderNodeType(reader) {
        case Int32(XML_READER_TYPE_ELEMENT.rawValue): return .element
        case Int32(XML_READER_TYPE_END_ELEMENT.rawValue): return .endElement
        case Int32(XML_READER_TYPE_TEXT.rawValue), Int32(XML_READER_TYPE_CDATA.rawValue),
             Int32(XML_READER_TYPE_WHITESPACE.rawValue), Int32(XML_READER_TYPE_SIGNIFICANT_WHITESPACE.rawValue):
            return .text
        case Int32(XML_READER_TYPE_ENTITY_REFERENCE.rawValue): return .entityReference
        default: return .other
        }
    }

    /// The depth of the current node (the root element is at depth 0).
    var depth: Int { Int(xmlTextReaderDepth(reader)) }

    /// Whether the current element is written `<name/>` (it then has no end-element node).
    var isEmptyElement: Bool { xmlTextReaderIsEmptyElement(reader) == 1 }

    /// The current node's name.
    var name: String {
        xmlTextReaderConstName(reader).map { String(cString: $0) } ?? ""
    }

    /// The current text node's value.
    var value: String {
        xmlTextReaderConstValue(reader).map { String(cString: $0) } ?? ""
    }

    /// The current element's attributes, by name.
    func attributes() -> [String: String] {
        var result: [String: String] = [:]
        guard xmlTextReaderHasAttributes(reader) == 1 else { return result }
        while xmlTextReaderMoveToNextAttribute(reader) == 1 {
            if let name = xmlTextReaderConstName(reader), let value = xmlTextReaderConstValue(reader) {
                result[String(cString: name)] = String(cString: value)
            }
        }
        xmlTextReaderMoveToElement(reader)
        return result
    }

    /// The current element's content as XML text (its children, serialized).
    /// - Throws: `Failure` when the content is not well-formed.
    func innerXML() throws -> String {
        guard let text = xmlTextReaderReadInnerXml(reader) else {
            if let error = firstError { throw Failure(message: error) }
            return ""
        }
        defer { clibxml2_free(text) }
        return String(cString: text)
    }

    /// A libxml2 parse failure, with its message.
    struct Failure: Error {
        var message: String
    }

    private final class ErrorBox {
        var messages: [String] = []
    }
}
