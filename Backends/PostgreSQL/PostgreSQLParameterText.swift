/// A statement's parameters as the NUL-terminated texts libpq reads, in one buffer: one allocation per statement
/// instead of one per parameter (a batch insert sends thousands).
///
/// libpq reads a parameter up to its first NUL, as it read the `strdup`ed copies this replaces.
struct PostgreSQLParameterText {
    /// Every non-nil parameter's UTF-8 bytes, each followed by a NUL.
    private var bytes: [CChar] = []
    /// Where each parameter starts in `bytes`, or nil for SQL NULL.
    private var starts: [Int?] = []

    init(_ parameters: [String?]) {
        var size = 0
        for parameter in parameters { if let parameter { size += parameter.utf8.count + 1 } }
        bytes.reserveCapacity(size)
        starts.reserveCapacity(parameters.count)
        for parameter in parameters {
            guard let parameter else {
                starts.append(nil)
                continue
            }
            starts.append(bytes.count)
            for byte in parameter.utf8 { bytes.append(CChar(bitPattern: byte)) }
            bytes.append(0)
        }
    }

    /// Calls `body` with a pointer per parameter (nil for SQL NULL), valid only during the call.
    func withPointers<T>(_ body: (UnsafeBufferPointer<UnsafePointer<CChar>?>) throws -> T) rethrows -> T {
        try bytes.withUnsafeBufferPointer { buffer in
            let base = buffer.baseAddress
            let pointers: [UnsafePointer<CChar>?] = starts.map { start in start.flatMap { offset in base.map { $0 + offset } } }
            return try pointers.withUnsafeBufferPointer(body)
        }
    }
}
