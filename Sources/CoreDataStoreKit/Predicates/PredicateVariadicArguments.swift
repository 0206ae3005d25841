/// The arguments of a C `va_list` for `NSPredicate(format:arguments:)`, read in the order and with the types the
/// format's specifiers give (`%@`/`%K` an object, `%d` and the other integer conversions an integer, `%f` and the
/// other floating-point conversions a double), as C's `va_arg` reads them.
///
/// Only the x86-64 System V layout (Linux on Intel and AMD) is read; elsewhere the arguments are refused.
/// Foundation on Linux cannot put a Swift `String` in a `va_list` (it stops the program), so text arrives as
/// `NSString`; `NSNumber` is no `CVarArg` there, so numbers arrive as Swift integers and doubles.
enum PredicateVariadicArguments {
    /// The arguments `format` takes from `list`.
    /// - Throws: the format's lexical error; 2048 naming the architecture where the layout is not read.
    static func arguments(for format: String, from list: CVaListPointer) throws -> [Any?] {
        let kinds = try PredicateFormatLexer.tokenize(format).compactMap { token -> Character? in
            if case .argument(let conversion) = token.kind { return conversion }
            return nil
        }
        guard !kinds.isEmpty else { return [] }
        #if arch(x86_64)
        var reader = X86VariadicReader(list)
        return kinds.map { conversion in
            switch conversion {
            case "@", "K":
                let bits = reader.nextWord()
                guard let pointer = UnsafeRawPointer(bitPattern: bits) else { return nil }
                return Unmanaged<AnyObject>.fromOpaque(pointer).takeUnretainedValue()
            case "f", "F", "e", "E", "g", "G":
                return reader.nextDouble()
            default:
                return reader.nextWord()
            }
        }
        #else
        throw PredicateFormatError.invalid("NSPredicate(format:arguments:) reads a va_list only on x86-64; use NSPredicate(format:argumentArray:)")
        #endif
    }
}

#if arch(x86_64)
/// `va_arg` for the x86-64 System V `va_list`: general-purpose words from the register save area (6 × 8 bytes)
/// then the overflow area; doubles from the vector register area (8 × 16 bytes after the words) then the
/// overflow area.
private struct X86VariadicReader {
    private struct Header {
        var gpOffset: UInt32
        var fpOffset: UInt32
        var overflowArea: UnsafeMutableRawPointer
        var registerSaveArea: UnsafeMutableRawPointer
    }

    private let header: UnsafeMutablePointer<Header>

    init(_ list: CVaListPointer) {
        header = unsafeBitCast(list, to: UnsafeMutableRawPointer.self).assumingMemoryBound(to: Header.self)
    }

    mutating func nextWord() -> Int {
        if header.pointee.gpOffset < 48 {
            defer { header.pointee.gpOffset += 8 }
            return header.pointee.registerSaveArea.load(fromByteOffset: Int(header.pointee.gpOffset), as: Int.self)
        }
        defer { header.pointee.overflowArea += 8 }
        return header.pointee.overflowArea.load(as: Int.self)
    }

    mutating func nextDouble() -> Double {
        if header.pointee.fpOffset < 48 + 8 * 16 {
            defer { header.pointee.fpOffset += 16 }
            return header.pointee.registerSaveArea.load(fromByteOffset: Int(header.pointee.fpOffset), as: Double.self)
        }
        defer { header.pointee.overflowArea += 8 }
        return header.pointee.overflowArea.load(as: Double.self)
    }
}
#endif
