import CoreDataStoreKit
import Foundation

/// A decompressor for raw DEFLATE data (RFC 1951, no zlib or gzip header): the format of a SQLite store's
/// `Z_MODELCACHE.Z_CONTENT`, which Apple writes with zlib's `wbits = -15`. An addition to Apple's API.
///
/// Stored, fixed-Huffman and dynamic-Huffman blocks are read. Every read is bounds-checked and every loop
/// consumes input or output, so damaged data throws and never traps or spins.
public enum RawDeflate {
    /// The bytes that the raw DEFLATE stream `data` decompresses to.
    ///
    /// Bytes after the final block are ignored. An empty `data` is damaged (a stream has at least one block).
    /// - Throws: 259 (`NSFileReadCorruptFileError`) when the stream is damaged: an invalid block type, a
    ///   stored block whose length check fails, invalid or over-subscribed code lengths, a code that is not
    ///   in its table, a distance before the start of the output, a stream that ends early, or output longer
    ///   than `maximumSize` bytes.
    public static func inflate(_ data: Data, maximumSize: Int) throws -> Data {
        var inflater = Inflater(input: [UInt8](data), maximumSize: max(0, maximumSize))
        try inflater.run()
        return Data(inflater.output)
    }

    static func damaged(_ reason: String) -> NSError {
        CoreDataError.make(NSFileReadCorruptFileError, "The compressed (DEFLATE) data is damaged: \(reason).")
    }
}

/// The state of one decompression: the input with a bit cursor, and the output so far.
private struct Inflater {
    let input: [UInt8]
    let maximumSize: Int
    var output: [UInt8] = []
    /// The next input byte, and how many of its bits (from the low end) are used.
    var byteIndex = 0
    var bitIndex = 0

    init(input: [UInt8], maximumSize: Int) {
        self.input = input
        self.maximumSize = maximumSize
        output.reserveCapacity(min(maximumSize, max(1024, input.count * 4)))
    }

    mutating func run() throws {
        var isFinal = false
        while !isFinal {
            isFinal = try bits(1) == 1
            switch try bits(2) {
            case 0: try storedBlock()
            case 1: try huffmanBlock(literals: FixedCodes.literals, distances: FixedCodes.distances)
            case 2:
                let (literals, distances) = try dynamicCodes()
                try huffmanBlock(literals: literals, distances: distances)
            default: throw RawDeflate.damaged("a block has the reserved type 3")
            }
        }
    }

    // MARK: Bits

    /// The next `count` bits (at most 16), least significant first.
    mutating func bits(_ count: Int) throws -> Int {
        var value = 0
        for shift in 0..<count {
            value |= try bit() << shift
        }
        return value
    }

    mutating func bit() throws -> Int {
        guard byteIndex < input.count else { throw RawDeflate.damaged("the stream ends before its final block is complete") }
        let value = Int(input[byteIndex] >> UInt8(bitIndex)) & 1
        bitIndex += 1
        if bitIndex == 8 {
            bitIndex = 0
            byteIndex += 1
        }
        return value
    }

    // MARK: Blocks

    /// A stored block: skip to a byte boundary, read LEN and its complement NLEN, then copy LEN bytes.
    mutating func storedBlock() throws {
        if bitIndex != 0 {
            bitIndex = 0
            byteIndex += 1
        }
        guard byteIndex + 4 <= input.count else { throw RawDeflate.damaged("a stored block's header is cut off") }
        let length = Int(input[byteIndex]) | Int(input[byteIndex + 1]) << 8
        let complement = Int(input[byteIndex + 2]) | Int(input[byteIndex + 3]) << 8
        byteIndex += 4
        guard length == complement ^ 0xFFFF else {
            throw RawDeflate.damaged("a stored block's length \(length) does not match its check value \(complement)")
        }
        guard length <= input.count - byteIndex else { throw RawDeflate.damaged("a stored block's \(length) bytes are cut off") }
        try reserve(length)
        output.append(contentsOf: input[byteIndex..<byteIndex + length])
        byteIndex += length
    }

    /// Literals and length/distance pairs until the end-of-block symbol 256.
    mutating func huffmanBlock(literals: HuffmanCode, distances: HuffmanCode) throws {
        while true {
            let symbol = try decode(literals)
            if symbol < 256 {
                try reserve(1)
                output.append(UInt8(symbol))
                continue
            }
            if symbol == 256 { return }
            let lengthIndex = symbol - 257
            guard lengthIndex < LengthTables.lengthBase.count else { throw RawDeflate.damaged("a block uses the invalid length code \(symbol)") }
            let length = LengthTables.lengthBase[lengthIndex] + (try bits(LengthTables.lengthExtra[lengthIndex]))
            let distanceSymbol = try decode(distances)
            guard distanceSymbol < LengthTables.distanceBase.count else {
                throw RawDeflate.damaged("a block uses the invalid distance code \(distanceSymbol)")
            }
            let distance = LengthTables.distanceBase[distanceSymbol] + (try bits(LengthTables.distanceExtra[distanceSymbol]))
            guard distance <= output.count else {
                throw RawDeflate.damaged("a match refers \(distance) bytes back, but only \(output.count) bytes precede it")
            }
            try reserve(length)
            // Byte by byte: a match may overlap the bytes it is producing.
            var from = output.count - distance
            for _ in 0..<length {
                output.append(output[from])
                from += 1
            }
        }
    }

    /// Makes sure `count` more output bytes stay within the limit.
    func reserve(_ count: Int) throws {
        guard count <= maximumSize - output.count else {
            throw RawDeflate.damaged("it decompresses to more than the limit of \(maximumSize) bytes")
        }
    }

    /// The literal/length and distance codes of a dynamic block, read from its header.
    mutating func dynamicCodes() throws -> (HuffmanCode, HuffmanCode) {
        let literalCount = try bits(5) + 257
        let distanceCount = try bits(5) + 1
        let lengthCodeCount = try bits(4) + 4
        guard literalCount <= 286 else { throw RawDeflate.damaged("a block declares \(literalCount) literal/length codes (at most 286)") }
        guard distanceCount <= 30 else { throw RawDeflate.damaged("a block declares \(distanceCount) distance codes (at most 30)") }
        // The code lengths of the code-length alphabet come in this fixed order (RFC 1951, 3.2.7).
        let order = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]
        var lengthCodeLengths = [Int](repeating: 0, count: 19)
        for index in 0..<lengthCodeCount {
            lengthCodeLengths[order[index]] = try bits(3)
        }
        let lengthCode = try HuffmanCode(lengths: lengthCodeLengths, name: "code-length")

        var lengths: [Int] = []
        let total = literalCount + distanceCount
        lengths.reserveCapacity(total)
        while lengths.count < total {
            let symbol = try decode(lengthCode)
            let value: Int
            let repeats: Int
            switch symbol {
            case 0...15:
                value = symbol
                repeats = 1
            case 16:
                guard let previous = lengths.last else { throw RawDeflate.damaged("a code-length repeat has no previous length") }
                value = previous
                repeats = 3 + (try bits(2))
            case 17:
                value = 0
                repeats = 3 + (try bits(3))
            default:
                value = 0
                repeats = 11 + (try bits(7))
            }
            guard repeats <= total - lengths.count else { throw RawDeflate.damaged("a code-length repeat runs past the declared codes") }
            lengths.append(contentsOf: repeatElement(value, count: repeats))
        }
        guard lengths[256] != 0 else { throw RawDeflate.damaged("a block has no end-of-block code") }
        let literals = try HuffmanCode(lengths: Array(lengths[0..<literalCount]), name: "literal/length")
        let distances = try HuffmanCode(lengths: Array(lengths[literalCount...]), name: "distance")
        return (literals, distances)
    }

    /// The next symbol of `code`, read one bit at a time (codes are packed most significant bit first).
    mutating func decode(_ code: HuffmanCode) throws -> Int {
        var value = 0       // the bits read so far, as a code of length `length`
        var firstCode = 0   // the first code of length `length`
        var firstIndex = 0  // the index in `symbols` of that first code
        for length in 1...HuffmanCode.maximumLength {
            value |= try bit()
            let count = code.counts[length]
            if value - firstCode < count {
                return code.symbols[firstIndex + value - firstCode]
            }
            firstIndex += count
            firstCode = (firstCode + count) << 1
            value <<= 1
        }
        throw RawDeflate.damaged("a \(code.name) code is not in its table")
    }
}

/// A canonical Huffman code (RFC 1951, 3.2.2), kept as the number of codes of each length and the symbols
/// in code order.
private struct HuffmanCode {
    static let maximumLength = 15
    let counts: [Int]
    let symbols: [Int]
    let name: String

    /// The code whose symbol `i` has the code length `lengths[i]` (0...15; 0: not used).
    /// - Throws: 259 when the lengths describe more codes than fit (an over-subscribed code). An incomplete
    ///   code is accepted; reading one of its missing codes throws then.
    init(lengths: [Int], name: String) throws {
        self.init(unchecked: lengths, name: name)
        var available = 1
        for length in 1...Self.maximumLength {
            available = available * 2 - counts[length]
            guard available >= 0 else { throw RawDeflate.damaged("the \(name) code lengths are over-subscribed") }
        }
    }

    /// The code for lengths known to be valid (the fixed codes).
    init(unchecked lengths: [Int], name: String) {
        self.name = name
        var counts = [Int](repeating: 0, count: Self.maximumLength + 1)
        for length in lengths {
            counts[length] += 1
        }
        var offsets = [Int](repeating: 0, count: Self.maximumLength + 1)
        for length in 1..<Self.maximumLength {
            offsets[length + 1] = offsets[length] + counts[length]
        }
        var symbols = [Int](repeating: 0, count: offsets[Self.maximumLength] + counts[Self.maximumLength])
        for (symbol, length) in lengths.enumerated() where length != 0 {
            symbols[offsets[length]] = symbol
            offsets[length] += 1
        }
        counts[0] = 0
        self.counts = counts
        self.symbols = symbols
    }
}

/// The codes of fixed-Huffman blocks (RFC 1951, 3.2.6).
private enum FixedCodes {
    static let literals: HuffmanCode = {
        let lengths = [Int](repeating: 8, count: 144) + [Int](repeating: 9, count: 112)
            + [Int](repeating: 7, count: 24) + [Int](repeating: 8, count: 8)
        return HuffmanCode(unchecked: lengths, name: "literal/length")
    }()
    /// Codes 30 and 31 are part of the code but invalid in a stream, so they are read and then rejected.
    static let distances = HuffmanCode(unchecked: [Int](repeating: 5, count: 32), name: "distance")
}

/// Base values and extra-bit counts of length codes 257...285 and distance codes 0...29 (RFC 1951, 3.2.5).
private enum LengthTables {
    static let lengthBase = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258]
    static let lengthExtra = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
    static let distanceBase = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769,
                               1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577]
    static let distanceExtra = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13]
}
