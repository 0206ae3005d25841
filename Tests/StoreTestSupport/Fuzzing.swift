import Foundation

/// A small deterministic random number generator for fuzzing (SplitMix64), so a fuzz test is the same on every run.
public struct SplitMix64: RandomNumberGenerator {
    public var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// One random damage to a file: a truncation, flipped bits, random bytes written, bytes inserted or removed.
public func mutate(_ data: Data, _ random: inout SplitMix64) -> Data {
    var bytes = [UInt8](data)
    guard !bytes.isEmpty else { return data }
    switch Int.random(in: 0..<5, using: &random) {
    case 0:
        bytes.removeLast(Int.random(in: 1...bytes.count, using: &random))
    case 1:
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            bytes[Int.random(in: 0..<bytes.count, using: &random)] ^= UInt8(1) << UInt8.random(in: 0..<8, using: &random)
        }
    case 2:
        let start = Int.random(in: 0..<bytes.count, using: &random)
        for index in start..<min(bytes.count, start + Int.random(in: 1...16, using: &random)) { bytes[index] = UInt8.random(in: 0...255, using: &random) }
    case 3:
        let at = Int.random(in: 0...bytes.count, using: &random)
        bytes.insert(contentsOf: (0..<Int.random(in: 1...8, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }, at: at)
    default:
        let start = Int.random(in: 0..<bytes.count, using: &random)
        bytes.removeSubrange(start..<min(bytes.count, start + Int.random(in: 1...64, using: &random)))
    }
    return Data(bytes)
}

/// How many cases a bounded fuzz test runs: `normal` in the ordinary `swift test`, or the number in the
/// environment variable `COREDATA_FUZZ_ITERATIONS` for a longer run (Docs/Testing.md, "Fuzzing").
public func fuzzIterations(normal: Int) -> Int {
    ProcessInfo.processInfo.environment["COREDATA_FUZZ_ITERATIONS"].flatMap { Int($0) }.map { max(1, $0) } ?? normal
}
